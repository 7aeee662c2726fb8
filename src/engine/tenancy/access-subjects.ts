/**
 * Which logical clusters name a subject in a ClusterRoleBinding: the secondary index behind the workspace index
 *. Workspace access (the non-resource verb `access` on `/`) can only come from a ClusterRoleBinding
 * (RoleBindings never grant non-resource URLs), so the clusters a user might reach are exactly the clusters with a
 * ClusterRoleBinding naming the user, one of their groups, or (for a service account) the account itself. The
 * authorizer then decides for each candidate; nothing scans the workspace tree.
 *
 * Rows: `/kcpt/access-subjects/<subject>/<cluster>/<binding name>` (empty value), written by the generic store in the
 * same commit as the binding, so the index never disagrees with the bindings, even across a crash. Subjects are
 * `u:<user>`, `g:<group>` and `sa:<namespace>:<name>`, URI-encoded so a `/` in a name cannot split a key.
 */
import { CLUSTER_NAME_EXTRA } from '../auth/foreign-identity.js';
import type { IndexWriter } from '../registry/index-writer.js';
import type { KubeObject } from '../registry/types.js';
import type { Store, WriteOp } from '../storage/store.js';

export const ACCESS_SUBJECTS_PREFIX = '/kcpt/access-subjects/';
const CLUSTER_ROLE_BINDINGS_PREFIX = '/registry/rbac.authorization.k8s.io/clusterrolebindings/';
/** Present once every ClusterRoleBinding stored before the index existed has its rows. */
const BACKFILLED_KEY = '/kcpt/access-subjects-backfilled';

interface Subject {
  kind?: string;
  name?: string;
  namespace?: string;
}

/** The identity an authenticated request carries (the parts the index looks at). */
export interface SubjectIdentity {
  username: string;
  groups: readonly string[];
  extra?: Record<string, readonly string[]>;
}

const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';

function subjectKey(subject: Subject): string | undefined {
  if (!subject.name) return undefined;
  switch (subject.kind) {
    case 'User':
      return `u:${subject.name}`;
    case 'Group':
      return `g:${subject.name}`;
    case 'ServiceAccount':
      return subject.namespace ? `sa:${subject.namespace}:${subject.name}` : undefined;
    default:
      return undefined;
  }
}

function subjectsOf(binding: KubeObject | undefined): Set<string> {
  const keys = new Set<string>();
  const subjects = (binding as { subjects?: unknown } | undefined)?.subjects;
  if (!Array.isArray(subjects)) return keys;
  for (const s of subjects as Subject[]) {
    const key = s && typeof s === 'object' ? subjectKey(s) : undefined;
    if (key) keys.add(key);
  }
  return keys;
}

function rowKey(subject: string, cluster: string, binding: string): string {
  return `${ACCESS_SUBJECTS_PREFIX}${encodeURIComponent(subject)}/${cluster}/${encodeURIComponent(binding)}`;
}

/** `/registry/rbac.authorization.k8s.io/clusterrolebindings/<cluster>/<name>` → its cluster and name. */
function bindingCoordinates(key: string): { cluster: string; name: string } | undefined {
  if (!key.startsWith(CLUSTER_ROLE_BINDINGS_PREFIX)) return undefined;
  const rest = key.slice(CLUSTER_ROLE_BINDINGS_PREFIX.length);
  const slash = rest.indexOf('/');
  return slash > 0 ? { cluster: rest.slice(0, slash), name: rest.slice(slash + 1) } : undefined;
}

/** Keeps the rows of a ClusterRoleBinding in step with its subjects; every other write costs one prefix test. */
export function accessSubjectsWriter(): IndexWriter {
  return (key, before, after) => {
    const at = bindingCoordinates(key);
    if (!at) return [];
    const was = subjectsOf(before);
    const now = subjectsOf(after);
    const ops: WriteOp[] = [];
    // Rows are read only as they are now (candidateClusters): no event history needed.
    for (const s of was) if (!now.has(s)) ops.push({ type: 'delete', key: rowKey(s, at.cluster, at.name), unlogged: true });
    for (const s of now) if (!was.has(s)) ops.push({ type: 'create', key: rowKey(s, at.cluster, at.name), value: '', unlogged: true });
    return ops;
  };
}

/** The subject keys an identity answers to. */
export function identitySubjects(user: SubjectIdentity): string[] {
  const keys = [`u:${user.username}`, ...user.groups.map((g) => `g:${g}`)];
  // Outside its own workspace a service account is known by its origin's group (kcp's foreign identity).
  for (const origin of user.extra?.[CLUSTER_NAME_EXTRA] ?? []) keys.push(`g:system:cluster:${origin}`);
  if (user.username.startsWith(SERVICE_ACCOUNT_PREFIX)) {
    const [namespace, name] = user.username.slice(SERVICE_ACCOUNT_PREFIX.length).split(':');
    if (namespace && name) keys.push(`sa:${namespace}:${name}`);
  }
  return keys;
}

/**
 * Clusters with a ClusterRoleBinding naming this identity: candidates for the authorizer, never an answer by
 * themselves. A service account's `sa:` rows count only in its own cluster (elsewhere the name means another account).
 */
export function candidateClusters(store: Store, user: SubjectIdentity): Set<string> {
  const clusters = new Set<string>();
  const home = user.extra?.[CLUSTER_NAME_EXTRA]?.[0];
  if (home) clusters.add(home);
  for (const subject of identitySubjects(user)) {
    const prefix = `${ACCESS_SUBJECTS_PREFIX}${encodeURIComponent(subject)}/`;
    const ownClusterOnly = subject.startsWith('sa:');
    for (const kv of store.list(prefix).items) {
      const cluster = kv.key.slice(prefix.length, kv.key.indexOf('/', prefix.length));
      if (!ownClusterOnly || cluster === home) clusters.add(cluster);
    }
  }
  return clusters;
}

/** Whether a write of this binding can change what an identity with these subject keys may reach. */
export function bindingMentions(subjects: ReadonlySet<string>, ...bindings: Array<KubeObject | undefined>): boolean {
  for (const binding of bindings) for (const s of subjectsOf(binding)) if (subjects.has(s)) return true;
  return false;
}

/**
 * Writes the rows of ClusterRoleBindings stored before this index existed (a root directory from an older kcpt),
 * once; later starts cost one key lookup.
 */
export function backfillAccessSubjects(store: Store): void {
  if (store.get(BACKFILLED_KEY)) return;
  const writer = accessSubjectsWriter();
  let startAfter: string | undefined;
  for (;;) {
    const page = store.list(CLUSTER_ROLE_BINDINGS_PREFIX, { startAfter, limit: 1000 });
    const ops: WriteOp[] = [];
    for (const kv of page.items) {
      for (const op of writer(kv.key, undefined, JSON.parse(kv.value) as KubeObject)) {
        if (!store.get(op.key)) ops.push(op);
      }
    }
    if (ops.length > 0) store.commit(ops);
    if (!page.more || page.items.length === 0) break;
    startAfter = page.items.at(-1)!.key;
  }
  store.commit([{ type: 'create', key: BACKFILLED_KEY, value: '' }]);
}
