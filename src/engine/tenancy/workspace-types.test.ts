import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../registry/types.js';
import { createMemoryStore } from '../storage/index.js';
import { ClusterPaths, logicalClusterKey } from './cluster-paths.js';
import { workspaceTypesPrefix, WorkspaceTypes, type RemoteWorkspaceTypes } from './workspace-types.js';

const typeValue = (name: string, path: string) =>
  JSON.stringify({ apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'WorkspaceType', metadata: { name, annotations: { 'kcp.io/path': path } } });

const logicalClusterValue = (path: string) =>
  JSON.stringify({ apiVersion: 'core.kcp.io/v1alpha1', kind: 'LogicalCluster', metadata: { name: 'cluster', annotations: { 'kcp.io/path': path } } });

/** Another shard's types, as the sharing replica serves them (by path or cluster name). */
class FakeRemote implements RemoteWorkspaceTypes {
  readonly types = new Map<string, KubeObject>();
  private listener?: () => void;
  workspaceType(path: string, name: string): KubeObject | undefined {
    return this.types.get(`${path}/${name}`);
  }
  onTypeChange(listener: () => void): void {
    this.listener = listener;
  }
  set(path: string, name: string, object: KubeObject): void {
    this.types.set(`${path}/${name}`, object);
    this.listener?.();
  }
}

describe('WorkspaceTypes on a shard of a sharded deployment', () => {
  it('finds a type stored here by its kcp.io/path when the path does not lead here through Workspaces', () => {
    const store = createMemoryStore();
    const paths = new ClusterPaths(store);
    const types = new WorkspaceTypes(store, paths);
    types.useRemote(new FakeRemote());
    types.start();
    // root:team's Workspace lives on another shard; its logical cluster abc (and its type) here.
    store.commit([
      { type: 'create', key: logicalClusterKey('abc'), value: logicalClusterValue('root:team') },
      { type: 'create', key: `${workspaceTypesPrefix}abc/leaf`, value: typeValue('leaf', 'root:team') },
    ]);
    expect(types.get('root:team', 'leaf')?.metadata?.name).toBe('leaf');
    expect(types.get('abc', 'leaf')?.metadata?.name).toBe('leaf');
    expect(types.get('root:other', 'leaf')).toBeUndefined();
    // A type claiming a path its cluster does not have (the cluster's LogicalCluster, written by the system, says).
    store.commit([
      { type: 'create', key: logicalClusterKey('def'), value: logicalClusterValue('root:mallory') },
      { type: 'create', key: `${workspaceTypesPrefix}def/leaf`, value: typeValue('leaf', 'root:victim') },
    ]);
    expect(types.get('root:victim', 'leaf')).toBeUndefined();
    types.stop();
  });

  it('falls back to another shard’s type, and forgets what it found when the replica changes', () => {
    const store = createMemoryStore();
    const types = new WorkspaceTypes(store, new ClusterPaths(store));
    const remote = new FakeRemote();
    types.useRemote(remote);
    let woken = 0;
    types.onRemoteChange(() => (woken += 1));
    types.start();
    store.commit([{ type: 'create', key: `${workspaceTypesPrefix}root/universal`, value: typeValue('universal', 'root') }]);
    expect(types.get('root', 'custom')).toBeUndefined();
    remote.set('root', 'custom', { metadata: { name: 'custom', annotations: { 'kcp.io/path': 'root' } }, spec: { defaultAPIBindings: [] } });
    expect(woken).toBe(1);
    expect(types.get('root', 'custom')?.metadata?.name).toBe('custom');
    // This shard's own copy wins (every shard keeps root's built-in types).
    remote.set('root', 'universal', { metadata: { name: 'universal', labels: { remote: 'yes' } } });
    expect(types.get('root', 'universal')?.metadata?.labels).toBeUndefined();
    types.stop();
  });
});
