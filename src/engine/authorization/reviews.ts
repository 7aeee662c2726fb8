/**
 * The authorization.k8s.io reviews answered by the same authorizer that guards requests: SelfSubjectAccessReview
 * (`kubectl auth can-i`), SubjectAccessReview, LocalSubjectAccessReview and SelfSubjectRulesReview
 * (`kubectl auth can-i --list`), each in the logical cluster it was posted to.
 */
import { identityInCluster } from '../auth/foreign-identity.js';
import type { ReviewDeps } from '../auth/review-resources.js';
import { badRequest, fieldErrors, invalid, type FieldError } from '../machinery/status.js';
import type { VirtualCreateContext } from '../registry/types.js';
import type { UserInfo } from '../auth/user.js';
import type { Authorizer } from './authorizer.js';
import type { RbacEvaluator } from './rbac-evaluator.js';
import type { PolicyRule, RequestAttributes } from './rules.js';

type Spec = Record<string, unknown>;

const str = (v: unknown) => (typeof v === 'string' ? v : '');
const strings = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** spec.resourceAttributes / spec.nonResourceAttributes → request attributes. */
export function reviewAttributes(spec: Spec): RequestAttributes {
  const res = spec.resourceAttributes as Record<string, unknown> | undefined;
  if (res) {
    return {
      verb: str(res.verb),
      resourceRequest: true,
      apiGroup: str(res.group),
      resource: str(res.resource),
      subresource: str(res.subresource),
      name: str(res.name),
      namespace: str(res.namespace),
      path: '',
    };
  }
  const non = (spec.nonResourceAttributes ?? {}) as Record<string, unknown>;
  return { verb: str(non.verb), resourceRequest: false, apiGroup: '', resource: '', subresource: '', name: '', namespace: '', path: str(non.path) };
}

function subjectOf(spec: Spec): UserInfo {
  const extra = spec.extra && typeof spec.extra === 'object' ? (spec.extra as Record<string, string[]>) : undefined;
  return { username: str(spec.user), groups: strings(spec.groups), uid: str(spec.uid) || undefined, extra };
}

function validateSubjectReview(kind: string, spec: Spec): void {
  const errs: FieldError[] = [];
  if (!spec.resourceAttributes && !spec.nonResourceAttributes) {
    errs.push(fieldErrors.required('spec.resourceAttributes', 'exactly one of nonResourceAttributes or resourceAttributes must be specified'));
  }
  if (kind !== 'SelfSubjectAccessReview' && !str(spec.user) && strings(spec.groups).length === 0) {
    errs.push(fieldErrors.invalid('spec.user', '', 'at least one of user or group must be specified'));
  }
  if (errs.length > 0) throw invalid({ group: 'authorization.k8s.io', kind }, '', errs);
}

function ruleStatus(rules: readonly PolicyRule[]) {
  const resourceRules = [];
  const nonResourceRules = [];
  for (const r of rules) {
    if ((r.nonResourceURLs ?? []).length > 0) nonResourceRules.push({ verbs: r.verbs, nonResourceURLs: r.nonResourceURLs });
    else {
      resourceRules.push({
        verbs: r.verbs,
        apiGroups: r.apiGroups ?? [],
        resources: r.resources ?? [],
        ...((r.resourceNames ?? []).length ? { resourceNames: r.resourceNames } : {}),
      });
    }
  }
  return { resourceRules, nonResourceRules, incomplete: false };
}

export function reviewDeps(authorizer: Authorizer, rbac: RbacEvaluator): Pick<ReviewDeps, 'decide' | 'rules'> {
  return {
    decide(ctx: VirtualCreateContext, spec: Spec, kind) {
      validateSubjectReview(kind, spec);
      const attrs = reviewAttributes(spec);
      if (kind === 'LocalSubjectAccessReview' && attrs.namespace !== ctx.namespace) {
        throw badRequest(`spec.resourceAttributes.namespace must match namespace: ${ctx.namespace}`);
      }
      const subject = kind === 'SelfSubjectAccessReview' ? (ctx.user ?? { username: 'system:anonymous', groups: [] }) : subjectOf(spec);
      if (ctx.deepReview && kind !== 'SelfSubjectAccessReview') {
        // kcp's deep review: RBAC of the cluster alone, the identity as it is there (another shard asking for a user).
        const allowed = authorizer.allowedByRbac(ctx.cluster, identityInCluster(subject, ctx.cluster), attrs);
        return { allowed, reason: allowed ? 'access granted' : 'access denied' };
      }
      const decision = authorizer.authorize(ctx.cluster, subject, attrs);
      return { allowed: decision.allowed, reason: decision.reason, ...(decision.denied ? { denied: true } : {}) };
    },
    rules(ctx: VirtualCreateContext, spec: Spec) {
      const user = ctx.user ?? { username: 'system:anonymous', groups: [] };
      const subject = authorizer.subjectInside(ctx.cluster, user);
      if (!subject) return ruleStatus([]);
      if (user.groups.includes('system:masters')) {
        return ruleStatus([{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, { verbs: ['*'], nonResourceURLs: ['*'] }]);
      }
      return ruleStatus(rbac.rulesFor(ctx.cluster, subject, str(spec.namespace)));
    },
  };
}
