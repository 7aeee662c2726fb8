/**
 * Who may change a label or an annotation, by its key (kcp's ReservedMetadata admission). Keys in the `kcp.io`
 * domain (`kcp.io/…`, `*.kcp.io/…`) and in kcpt's own system domain `internal.kcpt.dev` belong to the system unless
 * they are listed below as the workspace's own or as kcp admins'; keys of every other domain (the rest of `kcpt.dev`
 * included: users label their own objects there) are the workspace's. A workspace admin
 * is never cleared for more: their workspace is theirs, but these keys decide things across workspaces (paths, types,
 * shards, the API groups a cluster serves).
 */

/** Who may write: ordered, each tier includes the ones before it. */
export type Tier = 'tenant' | 'admin' | 'system';

export const tierRank: Record<Tier, number> = { tenant: 0, admin: 1, system: 2 };

type Rule = [match: (key: string) => boolean, tier: Tier];

const exact = (key: string, tier: Tier): Rule => [(k) => k === key, tier];
const prefix = (start: string, tier: Tier): Rule => [(k) => k.startsWith(start), tier];

const annotationRules: readonly Rule[] = [
  // Stamped by the store on every write, whatever the client sent.
  exact('kcp.io/cluster', 'tenant'),
  // A workspace's own access rule and its creator: kcp's workspace admission keeps them right on create.
  exact('authorization.kcp.io/required-groups', 'tenant'),
  exact('experimental.tenancy.kcp.io/owner', 'tenant'),
  exact('experimental.quota.kcp.io/cluster-scoped', 'tenant'),
  // Set by an export's owner on their own objects.
  exact('apiexports.apis.kcp.io/skip-endpointslice', 'tenant'),
  prefix('extra.apis.kcp.io/', 'tenant'),
  // v1alpha1 ↔ v1alpha2 round-trip annotations of the APIs kinds.
  prefix('apis.v1alpha2.kcp.io/', 'tenant'),
  // Set by kcp's admins: a cluster's object cap, a shard left out of scheduling.
  exact('core.kcp.io/max-total-objects', 'admin'),
  exact('experimental.core.kcp.io/unschedulable', 'admin'),
];

const labelRules: readonly Rule[] = [
  // Stamped by kcp's own admission inside the user's request (permission claims, the binding's export).
  prefix('claimed.internal.apis.kcp.io/', 'tenant'),
  exact('internal.apis.kcp.io/export', 'tenant'),
];

function reservedDomain(key: string): boolean {
  const slash = key.indexOf('/');
  const domain = slash < 0 ? key : key.slice(0, slash);
  return domain === 'kcp.io' || domain.endsWith('.kcp.io') || domain === 'internal.kcpt.dev' || domain.endsWith('.internal.kcpt.dev');
}

function tierOf(key: string, rules: readonly Rule[]): Tier {
  if (!reservedDomain(key)) return 'tenant';
  for (const [matches, tier] of rules) if (matches(key)) return tier;
  return 'system';
}

export const annotationTier = (key: string): Tier => tierOf(key, annotationRules);
export const labelTier = (key: string): Tier => tierOf(key, labelRules);

/**
 * The first key added, removed or changed between `before` and `after` that needs more than `clearance`, with the
 * tier it needs. `skip` names keys the system derives itself (the client's value never counts).
 */
export function reservedChange(
  after: Record<string, string> | undefined,
  before: Record<string, string> | undefined,
  tierOfKey: (key: string) => Tier,
  clearance: Tier,
  skip: (key: string) => boolean = () => false,
): { key: string; tier: Tier } | undefined {
  const a = after ?? {};
  const b = before ?? {};
  // A create (nothing before) changes exactly the keys it has: no set of both sides to build.
  const keys = before === undefined ? Object.keys(a) : new Set([...Object.keys(b), ...Object.keys(a)]);
  for (const key of keys) {
    const had = Object.hasOwn(b, key);
    const has = Object.hasOwn(a, key);
    if (had === has && (!has || a[key] === b[key])) continue;
    if (skip(key)) continue;
    const tier = tierOfKey(key);
    if (tierRank[tier] > tierRank[clearance]) return { key, tier };
  }
  return undefined;
}
