/**
 * Create-only review kinds that are computed, never stored: SelfSubjectReview (`kubectl auth whoami`),
 * SelfSubjectAccessReview and SelfSubjectRulesReview (`kubectl auth can-i`), SubjectAccessReview,
 * LocalSubjectAccessReview and TokenReview. The access and rules reviews are answered by the authorization layer
 * through `decide` and `rules` (without them, everything is allowed).
 */
import type { KubeObject, ResourceType, VirtualCreateContext } from '../registry/types.js';

export interface ReviewDeps {
  /** Resolve a bearer token (for TokenReview). */
  authenticate?(token: string): { username: string; uid?: string; groups: string[]; extra?: Record<string, string[]> } | undefined;
  /** The access decision for a review of `kind`; default: allowed. May throw a StatusError for a bad spec. */
  decide?(ctx: VirtualCreateContext, spec: Record<string, unknown>, kind: AccessReviewKind): { allowed: boolean; reason?: string; denied?: boolean };
  /** SelfSubjectRulesReview's status for the requesting user; default: everything. */
  rules?(ctx: VirtualCreateContext, spec: Record<string, unknown>): Record<string, unknown>;
}

export type AccessReviewKind = 'SelfSubjectAccessReview' | 'SubjectAccessReview' | 'LocalSubjectAccessReview';

function reviewType(group: string, resource: string, kind: string, namespaced: boolean, create: ResourceType['virtualCreate']): ResourceType {
  return {
    group,
    version: 'v1',
    resource,
    singular: kind.toLowerCase(),
    kind,
    listKind: `${kind}List`,
    namespaced,
    verbs: ['create'],
    strategy: {},
    storagePrefix: `${group}/${resource}`,
    storageVersion: 'v1',
    openapiSchemaName: `io.k8s.api.${group.split('.')[0]}.v1.${kind}`,
    virtualCreate: create,
  };
}

const allowAll = () => ({ allowed: true });
const everything = () => ({
  resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
  nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
  incomplete: false,
});
const specOf = (obj: KubeObject) => (obj.spec as Record<string, unknown> | undefined) ?? {};

function echo(obj: KubeObject, kind: string, group: string, status: unknown): KubeObject {
  return {
    kind,
    apiVersion: `${group}/v1`,
    metadata: { ...(obj.metadata ?? {}), creationTimestamp: null },
    spec: obj.spec ?? {},
    status,
  };
}

export function reviewResourceTypes(deps: ReviewDeps = {}): ResourceType[] {
  const decide = deps.decide ?? allowAll;
  const rules = deps.rules ?? everything;
  const authn = 'authentication.k8s.io';
  const authz = 'authorization.k8s.io';
  return [
    reviewType(authn, 'selfsubjectreviews', 'SelfSubjectReview', false, (obj, ctx) => {
      const user = ctx.user ?? { username: 'system:anonymous', groups: [] };
      return echo(obj, 'SelfSubjectReview', authn, { userInfo: { ...user } });
    }),
    reviewType(authn, 'tokenreviews', 'TokenReview', false, (obj) => {
      const token = (obj.spec as { token?: string } | undefined)?.token ?? '';
      const user = deps.authenticate?.(token);
      return echo(obj, 'TokenReview', authn, user ? { authenticated: true, user, audiences: [] } : { authenticated: false, error: 'invalid bearer token' });
    }),
    reviewType(authz, 'selfsubjectaccessreviews', 'SelfSubjectAccessReview', false, (obj, ctx) =>
      echo(obj, 'SelfSubjectAccessReview', authz, decide(ctx, specOf(obj), 'SelfSubjectAccessReview')),
    ),
    reviewType(authz, 'selfsubjectrulesreviews', 'SelfSubjectRulesReview', false, (obj, ctx) =>
      echo(obj, 'SelfSubjectRulesReview', authz, rules(ctx, specOf(obj))),
    ),
    reviewType(authz, 'subjectaccessreviews', 'SubjectAccessReview', false, (obj, ctx) =>
      echo(obj, 'SubjectAccessReview', authz, decide(ctx, specOf(obj), 'SubjectAccessReview')),
    ),
    reviewType(authz, 'localsubjectaccessreviews', 'LocalSubjectAccessReview', true, (obj, ctx) =>
      echo(obj, 'LocalSubjectAccessReview', authz, decide(ctx, specOf(obj), 'LocalSubjectAccessReview')),
    ),
  ];
}
