/**
 * The cluster deleter's marks of child workspaces, handed to the child's own pass only while they are what is stored;
 * what a child Workspace's mark records; the owner index and the deletion markers in a cluster's final pass.
 */
import { describe, expect, it } from 'vitest';
import { WriteAuthority } from '../admission/write-authority.js';
import { namespaces, serviceAccounts } from '../builtin/core/resources.js';
import { clusterRoleBindings, clusterRoles } from '../builtin/rbac/resources.js';
import { ownerIndexWriter } from '../controllers/owner-index.js';
import { OwnerResolver } from '../controllers/owner-references.js';
import { logicalClusters } from '../builtin/kcp-core/resources.js';
import { LOGICAL_CLUSTER_FINALIZER, PHASE_LABEL } from '../machinery/kcp-names.js';
import { StaticCatalog } from '../registry/catalog.js';
import { GenericStore } from '../registry/generic-store.js';
import { decodeStored } from '../registry/stored-object.js';
import { createMemoryStore } from '../storage/index.js';
import type { ResourceType } from '../registry/types.js';
import type { ManagedFieldsEntry } from '../machinery/ssa/managers.js';
import { ClusterContentDeleter } from './cluster-deletion.js';
import { logicalClusterKey, workspaceKey } from './cluster-paths.js';
import { tenancyResourceType } from './crds.js';
import { LOGICAL_CLUSTER_DELETION_FINALIZER } from './workspace-scheduler.js';

const workspaces = tenancyResourceType('workspaces');

/**
 * A parent cluster `p` being deleted, with one child workspace `w` whose LogicalCluster `c` is hosted here.
 * `before`: runs before the deleter exists (rows it writes are older than the deleter's process, as after a restart).
 */
function tree({ rt = workspaces, before }: { rt?: ResourceType; before?: (store: ReturnType<typeof createMemoryStore>) => void } = {}) {
  const store = createMemoryStore();
  const generic = new GenericStore(store, namespaces, { authority: new WriteAuthority(), garbageCollection: true });
  const lcCtx = (cluster: string) => ({ rt: logicalClusters, cluster, namespace: '' });
  const lc = (owner?: object) => ({
    apiVersion: 'core.kcp.io/v1alpha1',
    kind: 'LogicalCluster',
    metadata: { name: 'cluster', finalizers: [LOGICAL_CLUSTER_DELETION_FINALIZER] },
    spec: owner ? { owner } : {},
  });
  generic.create(lcCtx('p'), lc());
  const ws = generic.create(
    { rt, cluster: 'p', namespace: '' },
    { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name: 'w', finalizers: [LOGICAL_CLUSTER_FINALIZER] }, spec: { cluster: 'c' } },
  );
  generic.create(lcCtx('c'), lc({ apiVersion: 'tenancy.kcp.io/v1alpha1', resource: 'workspaces', cluster: 'p', name: 'w', uid: ws.metadata!.uid }));
  generic.delete(lcCtx('p'), 'cluster');
  before?.(store);
  const deleter = new ClusterContentDeleter(store, generic, () => new StaticCatalog([rt, logicalClusters], 'test'), logicalClusters, undefined, rt);
  const parent = store.get(logicalClusterKey('p'))!;
  const progress = deleter.run('p', parent, decodeStored(parent));
  return { store, generic, deleter, progress };
}

describe('ClusterContentDeleter.storedObject', () => {
  it('hands the child’s pass the LogicalCluster and Workspace its parent’s pass marked, as stored', () => {
    const { store, deleter, progress } = tree();
    expect(progress).toMatchObject({ remaining: 1, done: false });
    for (const key of [logicalClusterKey('c'), workspaceKey('p', 'w')]) {
      const row = store.get(key)!;
      const handed = deleter.storedObject(row);
      expect(handed.metadata?.deletionTimestamp).toBeDefined();
      expect(JSON.parse(JSON.stringify(handed))).toEqual(decodeStored(row));
    }
  });

  it('shows a watch event of the mark the marked object, without taking it from the child’s pass', () => {
    const { store, deleter } = tree();
    const row = store.get(logicalClusterKey('c'))!;
    const shown = deleter.markAt(row.key, row.revision);
    expect(JSON.parse(JSON.stringify(shown))).toEqual(decodeStored(row));
    expect(deleter.markAt(row.key, row.revision + 1)).toBeUndefined();
    expect(deleter.storedObject(row)).toBe(shown);
    expect(deleter.markAt(row.key, row.revision)).toBeUndefined();
  });

  it('parses the row once it changed after the mark (and a kept mark is taken once)', () => {
    const { store, generic, deleter } = tree();
    const row = store.get(logicalClusterKey('c'))!;
    const changed = { ...decodeStored(row) };
    changed.metadata = { ...changed.metadata, labels: { changed: 'yes' } };
    generic.update({ rt: logicalClusters, cluster: 'c', namespace: '' }, 'cluster', changed);
    const now = store.get(logicalClusterKey('c'))!;
    expect(deleter.storedObject(now).metadata?.labels).toEqual({ changed: 'yes' });
    const ws = store.get(workspaceKey('p', 'w'))!;
    const first = deleter.storedObject(ws);
    expect(deleter.storedObject(ws)).not.toBe(first);
  });
});

describe('ClusterContentDeleter: a child Workspace’s mark', () => {
  it('records the Deleting label it sets as the server’s field manager’s', () => {
    const { store } = tree();
    const marked = decodeStored(store.get(workspaceKey('p', 'w'))!);
    expect(marked.metadata?.labels?.[PHASE_LABEL]).toBe('Deleting');
    const server = (marked.metadata?.managedFields as ManagedFieldsEntry[] | undefined)?.find((e) => e.manager === 'kcpt');
    expect(server?.fieldsV1).toMatchObject({ 'f:metadata': { 'f:labels': { [`f:${PHASE_LABEL}`]: {} } } });
  });

  /** `w` as an earlier build stored it: a field this build's schema does not have. */
  const withLegacyField = (store: ReturnType<typeof createMemoryStore>) => {
    const row = store.get(workspaceKey('p', 'w'))!;
    const stored = JSON.parse(row.value) as { spec: Record<string, unknown> };
    stored.spec.legacyField = 'from an earlier build';
    store.commit([{ type: 'update', key: row.key, value: JSON.stringify(stored), expectedRevision: row.revision }]);
  };

  it('reads a stored-as-read Workspace written before the deleter existed as served (pruned), not as stored', () => {
    const rt = tenancyResourceType('workspaces', { storedAsRead: true });
    const { store, progress } = tree({ rt, before: withLegacyField });
    expect(progress).toMatchObject({ remaining: 1, done: false });
    const marked = decodeStored(store.get(workspaceKey('p', 'w'))!);
    expect(marked.metadata?.deletionTimestamp).toBeDefined();
    expect(marked.spec).not.toHaveProperty('legacyField');
  });
});

/**
 * A cluster `x` whose LogicalCluster is being deleted, holding a ClusterRole `owner` and a ClusterRoleBinding `dep`
 * it owns (both without finalizers: the final pass deletes their rows), with the owner index written as the server
 * writes it. `hold`: the LogicalCluster also carries a finalizer nobody removes.
 */
function ownedPair(hold: boolean) {
  const store = createMemoryStore();
  const catalog = new StaticCatalog([logicalClusters, clusterRoles, clusterRoleBindings], 'test');
  const ownerIndex = ownerIndexWriter(store, new OwnerResolver(store, () => catalog));
  const generic = new GenericStore(store, namespaces, { authority: new WriteAuthority(), garbageCollection: true, indexWriters: [ownerIndex] });
  const finalizers = [LOGICAL_CLUSTER_DELETION_FINALIZER, ...(hold ? ['example.com/hold'] : [])];
  generic.create({ rt: logicalClusters, cluster: 'x', namespace: '' }, { apiVersion: 'core.kcp.io/v1alpha1', kind: 'LogicalCluster', metadata: { name: 'cluster', finalizers }, spec: {} });
  const ctx = (rt: typeof clusterRoles) => ({ rt, cluster: 'x', namespace: '' });
  const owner = generic.create(ctx(clusterRoles), { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'owner' }, rules: [] });
  const ownerReferences = [{ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: 'owner', uid: owner.metadata!.uid!, blockOwnerDeletion: true }];
  generic.create(ctx(clusterRoleBindings), {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: 'dep', ownerReferences },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'owner' },
    subjects: [],
  });
  generic.delete({ rt: logicalClusters, cluster: 'x', namespace: '' }, 'cluster');
  const deleter = new ClusterContentDeleter(store, generic, () => catalog, logicalClusters);
  return { store, deleter };
}

const rowsUnder = (store: ReturnType<typeof createMemoryStore>, prefix: string) => store.list(prefix).items.map((kv) => kv.key);

describe('ClusterContentDeleter: the owner index in a cluster’s final pass', () => {
  it('leaves no index row behind when the cluster goes in that commit', () => {
    const { store, deleter } = ownedPair(false);
    expect(rowsUnder(store, '/kcpt/owners/x/')).toHaveLength(1);
    const lc = store.get(logicalClusterKey('x'))!;
    expect(deleter.run('x', lc, decodeStored(lc))).toMatchObject({ done: true });
    expect(rowsUnder(store, '/registry/')).toEqual([]);
    expect(rowsUnder(store, '/kcpt/owners/x/')).toEqual([]);
    expect(rowsUnder(store, '/kcpt/gc/absent-owners/x/')).toEqual([]);
  });

  it('keeps the index in step with the objects when another finalizer holds the LogicalCluster', () => {
    const { store, deleter } = ownedPair(true);
    const lc = store.get(logicalClusterKey('x'))!;
    expect(deleter.run('x', lc, decodeStored(lc))).toMatchObject({ done: false, heldByOthers: 1 });
    // The objects are gone and the cluster stays: their index rows went with them, not left for a later sweep.
    expect(rowsUnder(store, '/registry/rbac.authorization.k8s.io/')).toEqual([]);
    expect(rowsUnder(store, '/kcpt/owners/x/')).toEqual([]);
    expect(store.get(logicalClusterKey('x'))).toBeDefined();
  });
});

describe('ClusterContentDeleter: deletion markers in a cluster’s final pass', () => {
  it('removes the marker of a namespace it marked in an earlier pass with the namespace’s row in the last', () => {
    const store = createMemoryStore();
    const catalog = new StaticCatalog([logicalClusters, namespaces, serviceAccounts], 'test');
    const generic = new GenericStore(store, namespaces, { authority: new WriteAuthority(), garbageCollection: true });
    const ctx = (rt: ResourceType, namespace = '') => ({ rt, cluster: 'x', namespace });
    generic.create(ctx(logicalClusters), { apiVersion: 'core.kcp.io/v1alpha1', kind: 'LogicalCluster', metadata: { name: 'cluster', finalizers: [LOGICAL_CLUSTER_DELETION_FINALIZER] }, spec: {} });
    generic.create(ctx(namespaces), { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } });
    generic.create(ctx(serviceAccounts, 'team'), { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'held', namespace: 'team', finalizers: ['example.com/hold'] } });
    generic.delete(ctx(logicalClusters), 'cluster');
    const deleter = new ClusterContentDeleter(store, generic, () => catalog, logicalClusters);
    const pass = () => {
      const lc = store.get(logicalClusterKey('x'))!;
      return deleter.run('x', lc, decodeStored(lc));
    };
    // The ServiceAccount stays (its finalizer), so its namespace is marked and kept, with a marker.
    expect(pass()).toMatchObject({ done: false });
    expect(rowsUnder(store, '/kcpt/deleting/core/namespaces/x/')).toEqual(['/kcpt/deleting/core/namespaces/x/team']);
    const sa = store.get('/registry/core/serviceaccounts/x/team/held')!;
    generic.releaseFinalizer(ctx(serviceAccounts, 'team'), sa, decodeStored(sa), 'example.com/hold');
    expect(pass()).toMatchObject({ done: true });
    expect(rowsUnder(store, '/registry/')).toEqual([]);
    expect(rowsUnder(store, '/kcpt/deleting/')).toEqual([]);
  });
});
