/**
 * Whose share of the in-flight and watch budgets a request counts against: its tenant's, not its identity's. Each
 * holder gets at most half of a budget (inflight-limit.ts), and identities are cheap: a workspace admin mints service
 * accounts at will, so until 2026-11-30 a user and one service account of theirs (or two accounts) held every read
 * slot between them for as long as they kept their requests unanswered, and 500 watches per account. Now a user and
 * the service accounts of their home tree share one share (their home's path), the service accounts of an
 * organisation's tree share that organisation's (`root:<org>`), and an account of a workspace this shard cannot place
 * shares with its workspace's other accounts. system:masters (the shards' own clients) keeps its own.
 */
import { CLUSTER_NAME_EXTRA } from '../auth/foreign-identity.js';
import { MASTERS_GROUP } from '../machinery/user-groups.js';
import { homePath, type HomeOptions } from '../tenancy/home-workspaces.js';
import type { BudgetHolder } from './inflight-limit.js';

/** Users whose home path was computed (a sha1 each): forgotten all at once past this many. */
const REMEMBERED = 10_000;

/**
 * The share key of a holder: `pathOf` gives a logical cluster's canonical path (undefined when it is not known
 * here), `homes` how home paths are made.
 */
export function tenantShare(pathOf: (cluster: string) => string | undefined, homes: HomeOptions): (holder: BudgetHolder) => string {
  const homeDepth = homes.prefix.split(':').length + homes.levels + 1;
  const underHomes = `${homes.prefix}:`;
  const tenantOfPath = (path: string) => path.split(':', path.startsWith(underHomes) ? homeDepth : 2).join(':');
  const homesOf = new Map<string, string>();
  return (holder) => {
    if (holder.groups?.includes(MASTERS_GROUP)) return holder.username;
    const origin = holder.extra?.[CLUSTER_NAME_EXTRA]?.[0];
    if (origin !== undefined) {
      const path = pathOf(origin);
      return path ? tenantOfPath(path) : `cluster:${origin}`;
    }
    let home = homesOf.get(holder.username);
    if (home === undefined) {
      if (homesOf.size >= REMEMBERED) homesOf.clear();
      homesOf.set(holder.username, (home = homePath(holder.username, homes)));
    }
    return home;
  };
}
