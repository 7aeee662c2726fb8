import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../registry/types.js';
import { createMemoryStore } from '../storage/index.js';
import { ClusterPaths, logicalClusterKey } from './cluster-paths.js';
import { PATH_ANNOTATION, ROOT_CLUSTER, TYPE_ANNOTATION } from '../machinery/kcp-names.js';
import { workspaceResourceType } from './workspace-resource.js';
import { workspaceTypesPrefix, WorkspaceTypes } from './workspace-types.js';

/** Root (of type root:root, whose default child type is root:organization) and the two types, in a memory store. */
function rootWorkspaces() {
  const store = createMemoryStore();
  const type = (name: string, spec: Record<string, unknown> = {}) =>
    JSON.stringify({ apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'WorkspaceType', metadata: { name, annotations: { [PATH_ANNOTATION]: ROOT_CLUSTER } }, spec });
  store.commit([
    {
      type: 'create',
      key: logicalClusterKey(ROOT_CLUSTER),
      value: JSON.stringify({ apiVersion: 'core.kcp.io/v1alpha1', kind: 'LogicalCluster', metadata: { name: 'cluster', annotations: { [TYPE_ANNOTATION]: 'root:root' } } }),
    },
    { type: 'create', key: `${workspaceTypesPrefix}${ROOT_CLUSTER}/root`, value: type('root', { defaultChildWorkspaceType: { name: 'organization', path: 'root' } }) },
    { type: 'create', key: `${workspaceTypesPrefix}${ROOT_CLUSTER}/organization`, value: type('organization') },
  ]);
  const paths = new ClusterPaths(store);
  return workspaceResourceType({ store, paths, types: new WorkspaceTypes(store, paths) });
}

describe('creating a Workspace without a type', () => {
  const ctx = { cluster: ROOT_CLUSTER };
  const workspace = (spec?: Record<string, unknown>): KubeObject => ({
    apiVersion: 'tenancy.kcp.io/v1alpha1',
    kind: 'Workspace',
    metadata: { name: 'org' },
    ...(spec ? { spec } : {}),
  });

  // kcp's own `kubectl ws create` without --type sends the zero reference `{"name":""}`; kcp defaults it like no type.
  it.each([
    ['no spec', undefined],
    ['no spec.type', {}],
    ['an empty spec.type', { type: {} }],
    ['the zero reference kcp’s Go types send', { type: { name: '' } }],
    ['name and path empty', { type: { name: '', path: '' } }],
  ])('gets the parent type’s default child type: %s', (_, spec) => {
    const ws = rootWorkspaces();
    const obj = workspace(spec);
    ws.strategy.prepareForCreate!(obj, ctx);
    expect((obj.spec as { type: unknown }).type).toEqual({ name: 'organization', path: 'root' });
    expect(ws.strategy.validate!(obj, ctx)).toEqual([]);
  });

  it('still refuses a path without a name (the schema, 422)', () => {
    const ws = rootWorkspaces();
    const obj = workspace({ type: { name: '', path: 'root' } });
    ws.strategy.prepareForCreate!(obj, ctx);
    expect(ws.strategy.validate!(obj, ctx).map((e) => e.field)).toContain('spec.type.name');
  });
});
