/**
 * kcp's authorizer chain, consulted on every request:
 *
 *   1. `system:masters` is always allowed;
 *   2. required groups: the LogicalCluster's `authorization.kcp.io/required-groups` (`,` separates alternatives,
 *      `;` groups that must all be held; `system:kcp:admin` always qualifies; service accounts skip it);
 *   3. workspace content: the LogicalCluster must exist and be in a serving phase; a service account of this
 *      workspace and the lifecycle groups of its initializers/terminators go straight to RBAC, a service account of
 *      another workspace is a foreign identity (`system:anonymous` in `system:cluster:<origin>`), everyone else
 *      needs the non-resource verb `access` on `/` here;
 *   4. maximal permission policy: a resource bound from an APIExport with `maximalPermissionPolicy.local` must also
 *      be allowed by RBAC in the export's workspace for the user and groups prefixed `apis.kcp.io:binding:`;
 *   5. Kubernetes RBAC of the cluster together with the shard's bootstrap policy.
 * Before 2 (kcp's system CRD step): writes to the status of APIExports and APIBindings are denied to everyone but
 * `system:masters` (the server's controllers write it without a request).
 *
 * Decisions carry kcp's anonymised reasons (`access granted` / `access denied`); the detailed reason is kept for
 * tests and logs. Nothing here knows HTTP: the router, the reviews and admission all ask the same object.
 */
import { CLUSTER_NAME_EXTRA, identityInCluster, isInScope } from '../auth/foreign-identity.js';
import type { UserInfo } from '../auth/user.js';
import type { RbacEvaluator, Subject } from './rbac-evaluator.js';
import {
  AUTHENTICATED_GROUP,
  INITIALIZER_GROUP_PREFIX,
  KCP_ADMIN_GROUP,
  LOGICAL_CLUSTER_ADMIN_GROUP,
  MASTERS_GROUP,
  TERMINATOR_GROUP_PREFIX,
  WORKSPACE_BOOTSTRAPPER_GROUP,
} from '../machinery/user-groups.js';
import type { RequestAttributes } from './rules.js';
import { statusWrittenBySystem } from '../admission/write-authority.js';

/** What the chain reads from a cluster's LogicalCluster (undefined: it has none). */
export interface LogicalClusterFacts {
  phase?: string;
  requiredGroups?: string;
  initializers?: readonly string[];
  terminators?: readonly string[];
  deleting?: boolean;
}

export interface Decision {
  allowed: boolean;
  /** Deny (as opposed to no opinion): the SubjectAccessReview's `denied`. */
  denied: boolean;
  /** kcp's anonymised reason: `access granted` or `access denied`. */
  reason: string;
  /** Which step decided, and why (not shown to clients). */
  detail: string;
}


/** A user tied to no cluster (not a service account): shared, not an empty array per request. */
const NO_ORIGINS: readonly string[] = [];

/** Phases in which a workspace's content is served (Scheduling and Unavailable are not). */
const SERVING_PHASES = new Set(['Initializing', 'Ready', 'Inactive', 'Terminating', 'Deleting']);

const allow = (detail: string): Decision => ({ allowed: true, denied: false, reason: 'access granted', detail });
const noOpinion = (detail: string): Decision => ({ allowed: false, denied: false, reason: 'access denied', detail });
const deny = (detail: string): Decision => ({ allowed: false, denied: true, reason: 'access denied', detail });

/** kcp's workspace access: the non-resource verb `access` on `/`. */
export const accessAttributes: RequestAttributes = {
  verb: 'access',
  resourceRequest: false,
  apiGroup: '',
  resource: '',
  subresource: '',
  name: '',
  namespace: '',
  path: '/',
};

export interface AuthorizerDeps {
  rbac: RbacEvaluator;
  /** The LogicalCluster facts of a cluster, or undefined when it has none. */
  clusterFacts(cluster: string): LogicalClusterFacts | undefined;
  /**
   * The workspace whose RBAC caps this request (a resource bound from an export with a local maximal permission
   * policy), or undefined when nothing caps it.
   */
  maximalPolicy?(cluster: string, attrs: RequestAttributes): MaximalPolicyCap | undefined;
  /**
   * The answer another shard gave (asked just before, see `prepareAuthorization` of the router) for a cap whose
   * export lives there: undefined when it was not asked.
   */
  remoteCapAllows?(cap: MaximalPolicyCap, subject: Subject, attrs: RequestAttributes): boolean | undefined;
}

/** The export whose workspace's RBAC caps a request. */
export interface MaximalPolicyCap {
  cluster: string;
  name: string;
  /** Its workspace is on another shard. */
  remote?: boolean;
}

/** How a capped request's user appears to the export's RBAC (kcp's MaximalPermissionPolicyRBACUserGroupPrefix). */
export const BINDING_SUBJECT_PREFIX = 'apis.kcp.io:binding:';

export function bindingSubject(subject: Subject): Subject {
  return { username: `${BINDING_SUBJECT_PREFIX}${subject.username}`, groups: subject.groups.map((g) => `${BINDING_SUBJECT_PREFIX}${g}`) };
}

export class Authorizer {
  constructor(private readonly deps: AuthorizerDeps) {}

  /**
   * Decides a request in `cluster` (undefined: no cluster — the bare URL or the `*` wildcard, where kcp lets only
   * privileged users in).
   */
  authorize(cluster: string | undefined, user: UserInfo, attrs: RequestAttributes): Decision {
    if (user.groups.includes(MASTERS_GROUP)) return allow('system:masters');
    if (isSystemStatusWrite(attrs)) return deny('only the system may write the status of APIExports and APIBindings');
    const entered = this.enter(cluster, user);
    if ('allowed' in entered) return entered;
    const cap = this.deps.maximalPolicy?.(entered.cluster, attrs);
    // An identity scoped to this cluster (impersonated here) is only an authenticated anonymous to the export's RBAC.
    if (cap && !this.capAllows(cap, isInScope(user, cap.cluster) ? entered.subject : identityInCluster(user, cap.cluster), attrs)) {
      return noOpinion(`API export cluster "${cap.cluster}": maximal permission policy does not allow it`);
    }
    return this.deps.rbac.allows(entered.cluster, entered.subject, attrs) ? allow(`${entered.via}: RBAC`) : noOpinion(`${entered.via}: no RBAC rule`);
  }

  /** Whether an export's maximal permission policy allows the subject's request (as the binding's subject). */
  private capAllows(cap: MaximalPolicyCap, subject: Subject, attrs: RequestAttributes): boolean {
    return cap.remote ? this.deps.remoteCapAllows?.(cap, bindingSubject(subject), attrs) === true : this.deps.rbac.allows(cap.cluster, bindingSubject(subject), attrs);
  }

  /**
   * Who the user is to RBAC inside `cluster` (a foreign service account becomes anonymous), or undefined when the
   * chain stops them before RBAC (no such workspace, wrong phase, no `access`). `system:masters` enters anywhere.
   */
  subjectInside(cluster: string | undefined, user: UserInfo): Subject | undefined {
    if (user.groups.includes(MASTERS_GROUP)) return user;
    const entered = this.enter(cluster, user);
    return 'allowed' in entered ? undefined : entered.subject;
  }

  /** Required groups, then workspace content: the steps before RBAC. */
  private enter(cluster: string | undefined, user: UserInfo): Decision | { cluster: string; subject: Subject; via: string } {
    if (!cluster) return noOpinion('empty cluster name');
    const facts = this.deps.clusterFacts(cluster);
    const origins = user.extra?.[CLUSTER_NAME_EXTRA] ?? NO_ORIGINS;
    const isServiceAccount = origins.length > 0;
    const clusterAdmin = !isServiceAccount && user.groups.includes(LOGICAL_CLUSTER_ADMIN_GROUP);

    if (!isServiceAccount && !clusterAdmin) {
      if (!facts) return noOpinion('this workspace not found');
      if (facts.requiredGroups !== undefined && !holdsRequiredGroups(user.groups, facts.requiredGroups)) {
        return deny(`subject is not a member of required groups: ${facts.requiredGroups}`);
      }
    }

    if (cluster.startsWith('system:')) return noOpinion('empty or system workspace');
    if (clusterAdmin) return { cluster, subject: user, via: 'logical cluster admin access' };
    if (!facts) return deny('LogicalCluster not found');
    if (!SERVING_PHASES.has(facts.phase ?? '')) return noOpinion(`not permitted due to phase "${facts.phase ?? ''}"`);
    if (isServiceAccount && origins.includes(cluster)) return { cluster, subject: user, via: 'service account access to thisworkspace' };
    if (inLifecycleGroup(user.groups, facts)) return { cluster, subject: user, via: 'lifecycle group access' };
    const subject: Subject = isServiceAccount ? foreignIdentity(origins) : user;
    if (!this.deps.rbac.allows(cluster, subject, accessAttributes)) return noOpinion('no verb=access permission on /');
    return { cluster, subject, via: 'user access to thisworkspace' };
  }

  /** Whether RBAC alone (local and bootstrap policy) allows it: what admission checks such as `use` ask. */
  allowedByRbac(cluster: string, user: UserInfo, attrs: RequestAttributes): boolean {
    return allowedByRbac(this.deps.rbac, cluster, user, attrs);
  }
}

/** RBAC alone (local and bootstrap policy), `system:masters` always allowed. */
export function allowedByRbac(rbac: RbacEvaluator, cluster: string, user: UserInfo, attrs: RequestAttributes): boolean {
  return user.groups.includes(MASTERS_GROUP) || rbac.allows(cluster, user, attrs);
}

const READ_VERBS = new Set(['get', 'list', 'watch']);

/**
 * kcp's system CRD authorizer: the status of APIExports and APIBindings is written by kcp's controllers only (the
 * write authority's rule, asked here too so reviews and `kubectl auth can-i` say so).
 */
function isSystemStatusWrite(attrs: RequestAttributes): boolean {
  return attrs.resourceRequest && attrs.subresource === 'status' && statusWrittenBySystem(attrs.apiGroup, attrs.resource) && !READ_VERBS.has(attrs.verb);
}

/** `a;b,c`: members of both a and b, or of c. kcp's admins and its bootstrapper always qualify. */
export function holdsRequiredGroups(groups: readonly string[], annotation: string): boolean {
  const clauses = [...annotation.split(','), KCP_ADMIN_GROUP, WORKSPACE_BOOTSTRAPPER_GROUP];
  return clauses.some((clause) => clause.split(';').every((g) => groups.includes(g)));
}

function inLifecycleGroup(groups: readonly string[], facts: LogicalClusterFacts): boolean {
  for (const g of groups) {
    if (g.startsWith(INITIALIZER_GROUP_PREFIX) && facts.phase === 'Initializing') {
      if ((facts.initializers ?? []).includes(g.slice(INITIALIZER_GROUP_PREFIX.length))) return true;
    }
    if (g.startsWith(TERMINATOR_GROUP_PREFIX) && facts.deleting) {
      if ((facts.terminators ?? []).includes(g.slice(TERMINATOR_GROUP_PREFIX.length))) return true;
    }
  }
  return false;
}

/** A service account seen outside its own workspace: anonymous, known only by where it comes from. */
export function foreignIdentity(origins: readonly string[]): Subject {
  return { username: 'system:anonymous', groups: [AUTHENTICATED_GROUP, ...origins.map((c) => `system:cluster:${c}`)] };
}
