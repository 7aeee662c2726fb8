import { describe, expect, it } from 'vitest';
import { ShardIndex } from './shard-index.js';

function twoShards(): ShardIndex {
  const index = new ShardIndex();
  index.upsertShard('root', 'https://root:6443/');
  index.upsertShard('beta', 'https://beta:6444');
  index.upsertCluster('root', 'root');
  // root:org lives on beta; its Workspace object stays in root (root's shard).
  index.upsertWorkspace('root', 'root', 'org', { cluster: 'c-org', phase: 'Ready', shard: 'beta' });
  index.upsertCluster('beta', 'c-org');
  index.upsertWorkspace('beta', 'c-org', 'team', { cluster: 'c-team', phase: 'Ready', shard: 'root' });
  index.upsertCluster('root', 'c-team');
  return index;
}

describe('ShardIndex.lookup', () => {
  it('walks a path segment by segment across shards', () => {
    const index = twoShards();
    expect(index.lookup('root')).toEqual({ kind: 'found', shard: 'root', cluster: 'root', baseURL: 'https://root:6443' });
    expect(index.lookup('root:org')).toEqual({ kind: 'found', shard: 'beta', cluster: 'c-org', baseURL: 'https://beta:6444' });
    expect(index.lookup('root:org:team')).toMatchObject({ kind: 'found', shard: 'root', cluster: 'c-team' });
    // A path may start at any cluster name.
    expect(index.lookup('c-org:team')).toMatchObject({ kind: 'found', cluster: 'c-team' });
  });

  it('does not know unknown paths, workspaces being scheduled, or unknown cluster names', () => {
    const index = twoShards();
    index.upsertWorkspace('root', 'root', 'new', { cluster: '', phase: 'Scheduling' });
    expect(index.lookup('root:nope').kind).toBe('unknown');
    expect(index.lookup('root:new').kind).toBe('unknown');
    expect(index.lookup('nope').kind).toBe('unknown');
  });

  it('answers unavailable for an Unavailable workspace and one whose shard left', () => {
    const index = twoShards();
    index.upsertWorkspace('root', 'root', 'org', { cluster: 'c-org', phase: 'Unavailable', shard: 'beta' });
    expect(index.lookup('root:org').kind).toBe('unavailable');
    const again = twoShards();
    again.deleteShard('beta');
    expect(again.lookup('root:org').kind).toBe('unavailable');
  });

  it('falls back to the shard annotation of a workspace whose shard was never listed', () => {
    const index = twoShards();
    index.replaceClusters('beta', []);
    expect(index.lookup('root:org')).toMatchObject({ kind: 'found', shard: 'beta', cluster: 'c-org' });
  });

  it('replaces exactly what one shard contributed on a relist', () => {
    const index = twoShards();
    index.replaceWorkspaces('beta', []);
    expect(index.lookup('root:org').kind).toBe('found');
    expect(index.lookup('root:org:team').kind).toBe('unknown');
  });

  it('rewrites user:<name> to the home path and routes system: clusters to root', () => {
    const index = twoShards();
    for (const [parent, name, cluster] of [
      ['root', 'users', 'c-users'],
      ['c-users', 'zu', 'c-zu'],
      ['c-zu', 'yc', 'c-yc'],
      ['c-yc', 'kcp-admin', 'c-home'],
    ] as const) {
      index.upsertWorkspace('root', parent, name, { cluster, phase: 'Ready' });
      index.upsertCluster('root', cluster);
    }
    expect(index.lookup('user:kcp-admin')).toMatchObject({ kind: 'found', cluster: 'c-home' });
    expect(index.lookup('system:admin')).toMatchObject({ kind: 'found', shard: 'root', cluster: 'system:admin' });
  });
});
