/** Objects written from a template are the very bytes the create pipeline writes, with the same events and index rows. */
import { describe, expect, it } from 'vitest';
import { namespaces, serviceAccounts } from '../builtin/core/resources.js';
import { logicalClusters } from '../builtin/kcp-core/resources.js';
import { clusterRoleBindings } from '../builtin/rbac/resources.js';
import { deepFreeze } from '../machinery/deep-freeze.js';
import { createMemoryStore } from '../storage/index.js';
import type { WriteOp } from '../storage/store.js';
import { GenericStore, WriteBatch } from './generic-store.js';
import { ObjectTemplates, slotPaths, withSlots } from './object-templates.js';
import type { KubeObject, ResourceType } from './types.js';
import { WriteAuthority } from '../admission/write-authority.js';

/** Stands in for uid and time, which differ between any two creates. */
function comparable(value: string): string {
  return value.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uid>').replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/g, '<time>');
}

function setup() {
  // An index writer that records what it was shown, as the owner index or access-subjects writers would.
  const seen: string[] = [];
  const shown = new Map<string, KubeObject | undefined>();
  const indexWriter = (key: string, _before: KubeObject | undefined, after: KubeObject | undefined): WriteOp[] => {
    seen.push(`${key} ${after?.metadata?.name}`);
    shown.set(key, after);
    return key.includes('clusterrolebindings') ? [{ type: 'create', key: `/kcpt/test-index${key}`, value: '' }] : [];
  };
  const store = createMemoryStore();
  const generic = new GenericStore(store, namespaces, { authority: new WriteAuthority(), indexWriters: [indexWriter] });
  return { store, generic, templates: new ObjectTemplates(generic), seen, shown };
}

function written(batch: WriteBatch): string[] {
  return batch.ops.map((op) => `${op.type} ${op.key} ${'value' in op ? comparable(op.value) : ''}`);
}

const binding = (user: string): KubeObject => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRoleBinding',
  metadata: { name: 'workspace-admin' },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
  subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
});

const logicalCluster = (user: string, groups: string[]): KubeObject => ({
  apiVersion: 'core.kcp.io/v1alpha1',
  kind: 'LogicalCluster',
  metadata: {
    name: 'cluster',
    annotations: { 'kcp.io/path': `root:${user}`, 'experimental.tenancy.kcp.io/owner': JSON.stringify({ username: user }) },
    finalizers: ['core.kcp.io/logicalcluster-deletion'],
  },
  spec: { owner: { apiVersion: 'tenancy.kcp.io/v1alpha1', resource: 'workspaces', name: 'w', cluster: 'root', uid: 'u-1' }, createdBy: { username: user, groups } },
  status: { phase: 'Ready', URL: 'https://example.com/clusters/x', conditions: [{ type: 'WorkspaceInitialized', status: 'True', lastTransitionTime: '2020-01-01T00:00:00Z' }] },
});

describe('ObjectTemplates', () => {
  const cases: Array<[string, ResourceType, string, (variant: string) => KubeObject, string[][]?]> = [
    ['a namespace', namespaces, '', () => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } })],
    ['a ServiceAccount in a namespace the batch creates', serviceAccounts, 'default', () => ({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } })],
    ['a binding naming a user with quotes and backslashes', clusterRoleBindings, '', binding, [['subjects', '*', 'name']]],
    [
      'a LogicalCluster with status and a creator',
      logicalClusters,
      '',
      (user) => logicalCluster(user, ['system:authenticated', `g-${user}`]),
      [['metadata', 'annotations', '*'], ['spec', 'createdBy', 'username'], ['spec', 'createdBy', 'groups', '*']],
    ],
  ];
  for (const [what, rt, namespace, build, variables] of cases) {
    it(`writes ${what} exactly as the pipeline does`, () => {
      for (const user of ['alice', 'bob "the" \\admin\\', 'ünïcode']) {
        const { generic, templates, seen, shown } = setup();
        const object = build(user);
        const viaPipeline = new WriteBatch();
        if (namespace) generic.create({ rt: namespaces, cluster: 'c1', namespace: '' }, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }, { batch: viaPipeline });
        generic.create({ rt, cluster: 'c1', namespace }, object, { batch: viaPipeline, withStatus: true });
        const pipelineSeen = seen.splice(0);
        // From here on the pipeline runs only as the templates' dry runs.
        let realCreates = 0;
        const create = generic.create.bind(generic);
        generic.create = (ctx, input, opts = {}) => {
          if (!opts.dryRun) realCreates++;
          return create(ctx, input, opts);
        };

        // Twice: the first builds the template, the second only fills it.
        for (let round = 0; round < 2; round++) {
          const viaTemplate = new WriteBatch();
          if (namespace) templates.create({ rt: namespaces, cluster: 'c1', namespace: '', object: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } } }, viaTemplate);
          templates.create({ rt, cluster: 'c1', namespace, withStatus: true, ...withSlots(object, slotPaths(variables ?? [])) }, viaTemplate);
          expect(written(viaTemplate)).toEqual(written(viaPipeline));
          expect(seen.splice(0)).toEqual(pipelineSeen);
          expect(realCreates).toBe(0);
          // Index writers see each object exactly as its stored text reads (built from a parsed sample, not parsed).
          for (const op of viaTemplate.ops) if (op.type === 'create' && op.key.startsWith('/registry/')) expect(shown.get(op.key)).toEqual(JSON.parse(op.value));
          const objectOp = viaTemplate.ops.find((op) => op.key.startsWith(`/registry/${rt.storagePrefix}/`)) as { value: string };
          expect((JSON.parse(objectOp.value) as KubeObject).metadata?.annotations?.['kcp.io/cluster']).toBe('c1');
        }
      }
    });
  }

  it('writes a frozen object passed again (its text remembered) with each create’s own slots', () => {
    const { generic, templates } = setup();
    const shape = deepFreeze(binding('{{user}}'));
    for (const user of ['alice', 'bob "the" \\admin\\', 'ünïcode']) {
      const viaPipeline = new WriteBatch();
      generic.create({ rt: clusterRoleBindings, cluster: 'c1', namespace: '' }, binding(user), { batch: viaPipeline });
      const viaTemplate = new WriteBatch();
      templates.create({ rt: clusterRoleBindings, cluster: 'c1', namespace: '', object: shape, slots: { user } }, viaTemplate);
      expect(written(viaTemplate)).toEqual(written(viaPipeline));
    }
  });

  it('gives every object its own uid, and commits like the pipeline', () => {
    const { store, templates } = setup();
    const batch = new WriteBatch();
    for (const cluster of ['c1', 'c2']) templates.create({ rt: namespaces, cluster, namespace: '', object: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } } }, batch);
    store.commit(batch.ops);
    const uids = ['c1', 'c2'].map((c) => (JSON.parse(store.get(`/registry/core/namespaces/${c}/default`)!.value) as KubeObject).metadata?.uid);
    expect(uids[0]).not.toBe(uids[1]);
  });
});
