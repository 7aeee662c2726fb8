/**
 * Paths to no workspace: 404 for a user who could have listed the workspaces where the path ends, kcp's 403
 * "workspace access not permitted" for anyone else, decided by the deepest workspace of the path that exists, and
 * found in lookups whose total length grows as n log n in the path, not n².
 */
import { describe, expect, it } from 'vitest';
import type { UserInfo } from '../auth/user.js';
import type { ClusterCatalog } from '../registry/catalog.js';
import { ShardClusterResolver } from './cluster-resolver.js';
import type { RequestInfo } from './request-info.js';

// root ─ org ─ team; bob's home at user:bob (cluster home-bob) with a child ws.
const clusters: Record<string, string> = {
  'root:org': 'c-org',
  'root:org:team': 'c-team',
  'user:bob': 'home-bob',
  'user:bob:ws': 'c-ws',
};

function resolver(seen: string[] = []) {
  const lookup = (path: string) => {
    seen.push(path);
    // Segment by segment, as the tree resolves: the first missing one ends the walk.
    const segments = path.split(':');
    for (let i = 2; i <= segments.length; i++) {
      if (clusters[segments.slice(0, i).join(':')] === undefined) return undefined;
    }
    return clusters[path];
  };
  // alice may list workspaces in c-org and bob's home; nobody else sees anything.
  const visible = (user: UserInfo, cluster: string) => user.username === 'alice' && (cluster === 'c-org' || cluster === 'home-bob');
  return new ShardClusterResolver(() => ({}) as ClusterCatalog, lookup, visible);
}

const info = { path: '/api/v1/namespaces', isResourceRequest: true, verb: 'list' } as RequestInfo;
const alice: UserInfo = { username: 'alice', groups: [] };
const mallory: UserInfo = { username: 'mallory', groups: [] };

function answer(path: string, user: UserInfo, seen?: string[]) {
  try {
    resolver(seen).resolve({ path } as never, user, info);
  } catch (err) {
    const { code, message } = err as { code: number; message: string };
    return [code, message.slice(0, 60)];
  }
  return 'resolved';
}

describe('ShardClusterResolver: a path to no workspace', () => {
  it.each([
    ['root:org:nope', alice, 404],
    ['root:org:nope:deeper:still', alice, 404],
    ['root:org:team:nope', alice, 403], // c-team is not alice's to list
    ['root:org:nope', mallory, 403],
    ['root:nope:x', alice, 403],
    ['user:bob:nope', alice, 404],
    ['user:bob:ws:nope', alice, 403],
    ['user:nobody:x', alice, 403],
  ])('%s as %s', (path, user, code) => {
    expect(answer(path, user)[0]).toBe(code);
  });

  it('resolves what exists', () => {
    expect(answer('root:org:team', mallory)).toBe('resolved');
  });

  it("finds the deepest existing workspace in lookups of n log n characters: 25,000 segments", () => {
    // Any authenticated user's 50 KB path: each prefix from the longest down cost its length, 6e8 characters.
    const n = 25_000;
    const path = `root:org${':x'.repeat(n)}`;
    const seen: string[] = [];
    expect(answer(path, alice, seen)).toEqual([404, 'workspaces.tenancy.kcp.io "root:org:x:x:x:x:x:x:x:x:x:x:x:x:'.slice(0, 60)]);
    const characters = seen.reduce((sum, p) => sum + p.length, 0);
    expect(characters).toBeLessThanOrEqual(20 * path.length);
  });
});
