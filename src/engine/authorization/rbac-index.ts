/**
 * The RBAC objects of one logical cluster, compiled for lookups: roles by name and bindings by the subject they
 * name (a User, a Group, or a ServiceAccount as the username its tokens carry). Built from four prefix lists the
 * first time a cluster is asked about, kept in a bounded LRU, and dropped the moment any of the cluster's RBAC
 * objects changes (one store watch per RBAC resource, not per cluster). An idle cluster costs nothing: entries
 * nobody asked for in a while are purged.
 */
import type { KubeObject } from '../registry/types.js';
import type { Store, WatchHandle } from '../storage/store.js';
import { normalizeRules, type PolicyRule } from './rules.js';

export const RBAC_PREFIX = '/registry/rbac.authorization.k8s.io/';
const PREFIXES = ['clusterroles', 'clusterrolebindings', 'roles', 'rolebindings'].map((r) => `${RBAC_PREFIX}${r}/`);

/** kcp's shard-local cluster holding the bootstrap policy every workspace can bind. */
export const BOOTSTRAP_CLUSTER = 'system:admin';

export interface CompiledBinding {
  /** `Role` (in `namespace`) or `ClusterRole`. */
  roleKind: string;
  roleName: string;
  /** The binding's namespace; '' for a ClusterRoleBinding. */
  namespace: string;
  /** `<kind>/<namespace>/<name>` of the binding, for messages and tests. */
  source: string;
}

/** Bindings keyed by who they bind. */
class SubjectIndex {
  readonly users = new Map<string, CompiledBinding[]>();
  readonly groups = new Map<string, CompiledBinding[]>();

  add(binding: CompiledBinding, subjects: unknown): void {
    if (!Array.isArray(subjects)) return;
    for (const raw of subjects) {
      const s = (raw ?? {}) as { kind?: string; name?: string; namespace?: string };
      if (!s.name) continue;
      if (s.kind === 'User') push(this.users, s.name, binding);
      else if (s.kind === 'Group') push(this.groups, s.name, binding);
      else if (s.kind === 'ServiceAccount') {
        // A RoleBinding's service account defaults to the binding's namespace.
        const ns = s.namespace || binding.namespace;
        if (ns) push(this.users, `system:serviceaccount:${ns}:${s.name}`, binding);
      }
    }
  }

  /** Every binding naming this user or one of their groups (a binding naming both appears twice; harmless). */
  bindingsFor(username: string, groups: readonly string[]): CompiledBinding[] {
    const out: CompiledBinding[] = [...(this.users.get(username) ?? [])];
    for (const g of groups) {
      const found = this.groups.get(g);
      if (found) out.push(...found);
    }
    return out;
  }
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** What a user with exactly these groups may do in `namespace` ('' = cluster-wide rules only). */
export interface UserRules {
  namespace: string;
  groups: readonly string[];
  generation: number;
  rules: PolicyRule[];
}

/** One logical cluster's RBAC, compiled. */
export class ClusterPolicy {
  readonly clusterRoles = new Map<string, PolicyRule[]>();
  /** `<namespace>/<name>` → rules */
  readonly roles = new Map<string, PolicyRule[]>();
  readonly clusterBindings = new SubjectIndex();
  /** namespace → its RoleBindings */
  readonly roleBindings = new Map<string, SubjectIndex>();
  /**
   * Flattened rules per (user name, namespace, groups), filled by the evaluator; bounded, dropped with the policy.
   * By user name, then a short scan: building one string key of all three per lookup cost more than the scan.
   */
  readonly userRules = new Map<string, UserRules[]>();
  /** Entries in userRules, all users together. */
  userRuleCount = 0;
  /** The RbacIndexes minute this policy was last asked for (idle policies are dropped). */
  usedMinute = 0;

  constructor(
    readonly cluster: string,
    readonly revision: number,
  ) {}
}

function parse(value: string): KubeObject | undefined {
  try {
    return JSON.parse(value) as KubeObject;
  } catch {
    return undefined;
  }
}

export function compileClusterPolicy(store: Store, cluster: string): ClusterPolicy {
  const policy = new ClusterPolicy(cluster, store.currentRevision());
  const [clusterRoles, clusterRoleBindings, roles, roleBindings] = PREFIXES.map((p) => store.list(`${p}${cluster}/`).items);
  for (const kv of clusterRoles!) {
    const obj = parse(kv.value);
    if (obj?.metadata?.name) policy.clusterRoles.set(obj.metadata.name, normalizeRules(obj.rules));
  }
  for (const kv of roles!) {
    const obj = parse(kv.value);
    if (obj?.metadata?.name) policy.roles.set(`${obj.metadata.namespace ?? ''}/${obj.metadata.name}`, normalizeRules(obj.rules));
  }
  for (const kv of clusterRoleBindings!) {
    const obj = parse(kv.value);
    const ref = (obj?.roleRef ?? {}) as { kind?: string; name?: string };
    if (!obj || ref.kind !== 'ClusterRole' || !ref.name) continue;
    const binding = { roleKind: 'ClusterRole', roleName: ref.name, namespace: '', source: `ClusterRoleBinding/${obj.metadata?.name}` };
    policy.clusterBindings.add(binding, obj.subjects);
  }
  for (const kv of roleBindings!) {
    const obj = parse(kv.value);
    const ref = (obj?.roleRef ?? {}) as { kind?: string; name?: string };
    const ns = obj?.metadata?.namespace ?? '';
    if (!obj || !ns || (ref.kind !== 'ClusterRole' && ref.kind !== 'Role') || !ref.name) continue;
    let index = policy.roleBindings.get(ns);
    if (!index) policy.roleBindings.set(ns, (index = new SubjectIndex()));
    index.add({ roleKind: ref.kind, roleName: ref.name, namespace: ns, source: `RoleBinding/${ns}/${obj.metadata?.name}` }, obj.subjects);
  }
  return policy;
}

export const MAX_COMPILED_CLUSTERS = 4096;
/** A compiled cluster nobody asked about for this many minutes is dropped at the next sweep. */
export const IDLE_MINUTES = 5;
const SWEEP_MS = 60_000;

/** Compiled policies of the clusters in use, kept right by one watch per RBAC prefix. */
export class RbacIndexes {
  /**
   * Compiled policies, oldest compiled first. Asked twice per request, so a hit is one Map lookup and one field
   * write: the minute is kept by the sweep, not read from a clock (lru-cache's get with an idle TTL cost ~1.4 µs of
   * a GET). Past MAX_COMPILED_CLUSTERS the oldest compiled goes, even if in use: it is compiled again when asked.
   */
  private readonly cache = new Map<string, ClusterPolicy>();
  /** Minutes since start, advanced by the sweep. */
  private minute = 0;
  private watches: WatchHandle[] = [];
  private sweeper?: NodeJS.Timeout;
  /** Bumped whenever the bootstrap policy changes: every cached per-user rule list depends on it. */
  bootstrapGeneration = 0;
  private readonly listeners = new Set<(cluster: string) => void>();

  constructor(private readonly store: Store) {}

  start(): void {
    const from = this.store.currentRevision();
    for (const prefix of PREFIXES) {
      this.watches.push(
        this.store.watch(prefix, from, (events) => {
          const touched = new Set<string>();
          for (const e of events) touched.add(e.key.slice(prefix.length).split('/')[0]!);
          for (const cluster of touched) this.invalidate(cluster);
        }),
      );
    }
    this.sweeper = setInterval(() => this.sweep(), SWEEP_MS);
    this.sweeper.unref();
  }

  stop(): void {
    for (const w of this.watches) w.cancel();
    this.watches = [];
    if (this.sweeper) clearInterval(this.sweeper);
  }

  /** Called with the cluster whose RBAC changed (after the cache forgot it). */
  onChange(listener: (cluster: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  invalidate(cluster: string): void {
    this.cache.delete(cluster);
    if (cluster === BOOTSTRAP_CLUSTER) this.bootstrapGeneration++;
    for (const l of this.listeners) l(cluster);
  }

  policy(cluster: string): ClusterPolicy {
    let policy = this.cache.get(cluster);
    if (!policy) {
      policy = compileClusterPolicy(this.store, cluster);
      if (this.cache.size >= MAX_COMPILED_CLUSTERS) this.cache.delete(this.cache.keys().next().value!);
      this.cache.set(cluster, policy);
    }
    policy.usedMinute = this.minute;
    return policy;
  }

  /** Once a minute: a minute passes, and the policies nobody asked for in more than IDLE_MINUTES are dropped. */
  sweep(): void {
    this.minute += 1;
    for (const [cluster, policy] of this.cache) if (this.minute - policy.usedMinute > IDLE_MINUTES) this.cache.delete(cluster);
  }

  /** How many clusters are compiled right now (for tests and the cost benchmark). */
  get size(): number {
    return this.cache.size;
  }
}
