import { describe, expect, it } from 'vitest';
import { objectCountKey } from './object-count.js';
import { countClusterObjects, effectiveLimit, exemptFromDefaultLimit, maxTotalObjectsAnnotation } from './object-count-limit.js';
import { admissionFixture, thrown } from '../builtin/admission-test-support.js';

const full = (cluster: string, count: number, limit: number) =>
  `logical cluster "${cluster}" has reached its total object count limit (${count}/${limit} objects); delete objects to free up capacity`;

describe('effective limit', () => {
  it('the annotation wins over the default, and <= 0 switches the cap off', () => {
    expect(effectiveLimit('c1', { [maxTotalObjectsAnnotation]: '5' }, 100)).toBe(5);
    expect(effectiveLimit('c1', { [maxTotalObjectsAnnotation]: '500' }, 100)).toBe(500);
    expect(effectiveLimit('c1', { [maxTotalObjectsAnnotation]: '0' }, 100)).toBe(0);
    expect(effectiveLimit('c1', { [maxTotalObjectsAnnotation]: '-3' }, 100)).toBe(-3);
    expect(effectiveLimit('c1', {}, 100)).toBe(100);
    expect(effectiveLimit('c1', undefined, 0)).toBe(0);
  });

  it('an annotation that is not an integer falls back to the default', () => {
    for (const bad of ['', 'ten', '1.5', ' 5', '1e3', '99999999999999999999']) {
      expect(effectiveLimit('c1', { [maxTotalObjectsAnnotation]: bad }, 7), bad).toBe(7);
    }
    expect(effectiveLimit('c1', { [maxTotalObjectsAnnotation]: '+4' }, 7)).toBe(4);
  });

  it('root and system:* clusters are exempt from the default, not from their annotation', () => {
    expect(exemptFromDefaultLimit('root')).toBe(true);
    expect(exemptFromDefaultLimit('system:admin')).toBe(true);
    expect(exemptFromDefaultLimit('rootish')).toBe(false);
    expect(effectiveLimit('root', {}, 10)).toBe(0);
    expect(effectiveLimit('system:shard', {}, 10)).toBe(0);
    expect(effectiveLimit('root', { [maxTotalObjectsAnnotation]: '3' }, 10)).toBe(3);
  });
});

describe('counting a logical cluster', () => {
  it('counts namespaced and cluster-scoped objects and custom resources, not events, not other clusters', () => {
    const f = admissionFixture();
    f.cluster('c1', { namespaces: ['a', 'b'] });
    f.cluster('c10', { namespaces: ['a'] });
    const base = countClusterObjects(f.store, f.catalog, 'c1');
    expect(base).toBe(3); // the LogicalCluster and two namespaces
    f.configMap('c1', 'a', 'one');
    f.configMap('c1', 'b', 'two');
    f.generic.create(f.ctx(f.types.widgets, 'c1', 'a'), { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } });
    f.generic.create(f.ctx(f.types.gadgets, 'c1'), { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g' } });
    f.generic.create(f.ctx(f.types.events, 'c1', 'a'), {
      metadata: { name: 'e' },
      involvedObject: { kind: 'ConfigMap', namespace: 'a', name: 'one' },
    });
    f.configMap('c10', 'a', 'elsewhere');
    expect(countClusterObjects(f.store, f.catalog, 'c1')).toBe(base + 4);
    expect(countClusterObjects(f.store, f.catalog, 'c10')).toBe(3);
  });
});

describe('LogicalClusterObjectCountLimit admission', () => {
  it('refuses the create that would go over the annotation cap with kcp’s 403; a delete frees room', () => {
    const f = admissionFixture();
    f.cluster('c1');
    f.annotate('c1', { [maxTotalObjectsAnnotation]: '4' }); // LogicalCluster + default namespace + 2
    f.configMap('c1', 'default', 'a');
    f.configMap('c1', 'default', 'b');
    const err = thrown(() => f.configMap('c1', 'default', 'c'));
    expect(err).toMatchObject({
      code: 403,
      reason: 'Forbidden',
      message: `configmaps "c" is forbidden: ${full('c1', 4, 4)}`,
      details: { name: 'c', group: '', kind: 'configmaps' },
    });
    // Dry runs are refused as well, and cluster-scoped custom resources count against the same cap.
    expect(thrown(() => f.configMap('c1', 'default', 'c', true)).code).toBe(403);
    expect(
      thrown(() => f.generic.create(f.ctx(f.types.gadgets, 'c1'), { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g' } }))
        .message,
    ).toBe(`gadgets.example.com "g" is forbidden: ${full('c1', 4, 4)}`);

    f.generic.delete(f.ctx(f.types.configMaps, 'c1', 'default'), 'a');
    f.configMap('c1', 'default', 'c');
    expect(thrown(() => f.configMap('c1', 'default', 'd')).code).toBe(403);
  });

  it('reports the real count when the cap was lowered below it', () => {
    const f = admissionFixture();
    f.cluster('c1');
    for (const name of ['a', 'b', 'c']) f.configMap('c1', 'default', name);
    f.annotate('c1', { [maxTotalObjectsAnnotation]: '2' });
    expect(thrown(() => f.configMap('c1', 'default', 'x')).message).toBe(`configmaps "x" is forbidden: ${full('c1', 5, 2)}`);
  });

  it('leaves updates, events, the LogicalCluster and the workspace-admin binding alone', () => {
    const f = admissionFixture();
    f.cluster('c1');
    f.annotate('c1', { [maxTotalObjectsAnnotation]: '2' });
    expect(thrown(() => f.configMap('c1', 'default', 'x')).code).toBe(403);
    const cm = f.generic.get(f.ctx(f.types.namespaces, 'c1'), 'default');
    f.generic.update(f.ctx(f.types.namespaces, 'c1'), 'default', { ...cm, metadata: { ...cm.metadata, labels: { a: 'b' } } });
    f.generic.create(f.ctx(f.types.events, 'c1', 'default'), {
      metadata: { name: 'e1' },
      involvedObject: { kind: 'Namespace', name: 'default' },
    });
    f.generic.create(f.ctx(f.types.clusterRoleBindings, 'c1'), {
      metadata: { name: 'workspace-admin' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ kind: 'User', name: 'alice', apiGroup: 'rbac.authorization.k8s.io' }],
    });
    expect(
      thrown(() =>
        f.generic.create(f.ctx(f.types.clusterRoleBindings, 'c1'), {
          metadata: { name: 'other' },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
        }),
      ).code,
    ).toBe(403);
  });

  it('the server-wide default caps other clusters but not root; the annotation overrides it, 0 lifts it', () => {
    const f = admissionFixture({ defaultLimit: 3 });
    f.cluster('root');
    f.cluster('c1');
    f.configMap('c1', 'default', 'a');
    expect(thrown(() => f.configMap('c1', 'default', 'b')).message).toBe(`configmaps "b" is forbidden: ${full('c1', 3, 3)}`);
    for (let i = 0; i < 5; i++) f.configMap('root', 'default', `r${i}`);

    f.annotate('c1', { [maxTotalObjectsAnnotation]: '5' });
    f.configMap('c1', 'default', 'b');
    f.configMap('c1', 'default', 'c');
    expect(thrown(() => f.configMap('c1', 'default', 'd')).message).toBe(`configmaps "d" is forbidden: ${full('c1', 5, 5)}`);
    f.annotate('c1', { [maxTotalObjectsAnnotation]: '0' });
    f.configMap('c1', 'default', 'd');

    f.annotate('root', { [maxTotalObjectsAnnotation]: '1' });
    expect(thrown(() => f.configMap('root', 'default', 'r9')).code).toBe(403);
  });

  it('nothing is enforced before the cluster is Ready, nor in a cluster without a LogicalCluster', () => {
    const f = admissionFixture({ defaultLimit: 1 });
    f.cluster('c1', { phase: 'Initializing', namespaces: ['default', 'kube-system'] });
    f.configMap('c1', 'default', 'a');
    f.generic.create(f.ctx(f.types.namespaces, 'nolc'), { metadata: { name: 'default' } });
    f.configMap('nolc', 'default', 'a');
    f.configMap('nolc', 'default', 'b');
  });
});

describe('the stored count of a capped cluster', () => {
  const stored = (f: ReturnType<typeof admissionFixture>, cluster: string) => f.store.get(objectCountKey(cluster))?.value;

  it('appears with the first capped create and follows every create and removal in the same commit', () => {
    const f = admissionFixture();
    f.cluster('c1', { namespaces: ['default', 'other'] });
    f.configMap('c1', 'default', 'before-cap');
    expect(stored(f, 'c1')).toBeUndefined();
    f.annotate('c1', { [maxTotalObjectsAnnotation]: '100' });
    expect(stored(f, 'c1')).toBeUndefined();
    f.configMap('c1', 'default', 'a');
    expect(stored(f, 'c1')).toBe('5'); // LogicalCluster, 2 namespaces, 2 ConfigMaps
    f.generic.create(f.ctx(f.types.gadgets, 'c1'), { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g' } });
    f.generic.create(f.ctx(f.types.events, 'c1', 'default'), { metadata: { name: 'e' }, involvedObject: { kind: 'Namespace', name: 'default' } });
    expect(stored(f, 'c1')).toBe('6');
    f.generic.delete(f.ctx(f.types.configMaps, 'c1', 'default'), 'a');
    f.generic.delete(f.ctx(f.types.events, 'c1', 'default'), 'e');
    expect(stored(f, 'c1')).toBe('5');
    // Removal through the last finalizer going away counts too.
    f.generic.create(f.ctx(f.types.configMaps, 'c1', 'default'), { metadata: { name: 'held', finalizers: ['example.com/hold'] } });
    expect(stored(f, 'c1')).toBe('6');
    f.generic.delete(f.ctx(f.types.configMaps, 'c1', 'default'), 'held');
    expect(stored(f, 'c1')).toBe('6');
    const marked = f.generic.get(f.ctx(f.types.configMaps, 'c1', 'default'), 'held');
    f.generic.update(f.ctx(f.types.configMaps, 'c1', 'default'), 'held', { ...marked, metadata: { ...marked.metadata, finalizers: [] } });
    expect(stored(f, 'c1')).toBe('5');
    expect(countClusterObjects(f.store, f.catalog, 'c1')).toBe(5);
    // Dry runs leave it alone; uncapped clusters never get one.
    f.configMap('c1', 'default', 'dry', true);
    expect(stored(f, 'c1')).toBe('5');
    f.cluster('c2');
    f.configMap('c2', 'default', 'x');
    expect(stored(f, 'c2')).toBeUndefined();
  });

  it('goes away when the cap is lifted or the LogicalCluster removed', () => {
    const f = admissionFixture({ defaultLimit: 50 });
    f.cluster('c1');
    f.configMap('c1', 'default', 'a');
    expect(stored(f, 'c1')).toBe('3');
    f.annotate('c1', { [maxTotalObjectsAnnotation]: '10' });
    expect(stored(f, 'c1')).toBe('3');
    f.annotate('c1', { [maxTotalObjectsAnnotation]: '0' });
    expect(stored(f, 'c1')).toBeUndefined();
    f.annotate('c1', {});
    f.configMap('c1', 'default', 'b');
    expect(stored(f, 'c1')).toBe('4');
    f.generic.delete(f.ctx(f.types.logicalClusters, 'c1'), 'cluster');
    expect(stored(f, 'c1')).toBeUndefined();
  });

  it('is checked against storage before a create is refused, and put right', () => {
    const f = admissionFixture();
    f.cluster('c1');
    f.annotate('c1', { [maxTotalObjectsAnnotation]: '4' });
    f.configMap('c1', 'default', 'a');
    const kv = f.store.get(objectCountKey('c1'))!;
    f.store.commit([{ type: 'update', key: kv.key, value: '40', expectedRevision: kv.revision }]);
    f.configMap('c1', 'default', 'b');
    expect(stored(f, 'c1')).toBe('4');
    expect(thrown(() => f.configMap('c1', 'default', 'c')).message).toBe(`configmaps "c" is forbidden: ${full('c1', 4, 4)}`);
  });
});
