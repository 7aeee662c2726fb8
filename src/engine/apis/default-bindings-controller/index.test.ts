/**
 * The system:apibindings initializer over a memory store with the real generic store, APIBinding admission and
 * workspace types; the binding controller is played by writing a binding's status, as it would.
 */
import { describe, expect, it } from 'vitest';
import { builtinResourceTypes } from '../../builtin/index.js';
import { GenericStore } from '../../registry/generic-store.js';
import { decodeStored, encodeStored } from '../../registry/stored-object.js';
import type { KubeObject } from '../../registry/types.js';
import { createMemoryStore } from '../../storage/index.js';
import { ClusterPaths, logicalClusterKey } from '../../tenancy/cluster-paths.js';
import { PATH_ANNOTATION, TYPE_ANNOTATION } from '../../machinery/kcp-names.js';
import { WorkspaceTypes, type WorkspaceTypeSpec } from '../../tenancy/workspace-types.js';
import { defaultAPIBindingName } from '../default-binding-names.js';
import { defaultAPIBindingsController, maintainedWorkspacesWriter } from './index.js';
import { apisResourceTypes } from '../resources.js';
import { WriteAuthority } from '../../admission/write-authority.js';

function fixture(opts: { mayBind?: boolean } = {}) {
  const store = createMemoryStore();
  const builtins = builtinResourceTypes();
  const namespaces = builtins.find((t) => t.resource === 'namespaces')!;
  const logicalClusters = builtins.find((t) => t.resource === 'logicalclusters')!;
  const paths = new ClusterPaths(store);
  paths.start();
  const workspaceTypes = new WorkspaceTypes(store, paths);
  workspaceTypes.start();
  const apis = apisResourceTypes({ store, pathOf: (c) => c, resolvePath: (p) => p, mayBind: () => opts.mayBind ?? true });
  const stored = (resource: string) => apis.find((t) => t.resource === resource && t.version === 'v1alpha2')!;
  const apiBindings = stored('apibindings');
  const apiExports = stored('apiexports');
  const generic = new GenericStore(store, namespaces, { authority: new WriteAuthority(), indexWriters: [maintainedWorkspacesWriter(store, workspaceTypes)] });
  const put = (key: string, obj: KubeObject) => {
    const existing = store.get(key);
    store.commit([existing ? { type: 'update', key, value: encodeStored(obj), expectedRevision: existing.revision } : { type: 'create', key, value: encodeStored(obj) }]);
  };
  const defineType = (name: string, spec: WorkspaceTypeSpec) =>
    put(`/registry/tenancy.kcp.io/workspacetypes/root/${name}`, { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'WorkspaceType', metadata: { name, annotations: { [PATH_ANNOTATION]: 'root' } }, spec });
  const defineExport = (name: string, spec: Record<string, unknown> = {}) =>
    put(`/registry/apis.kcp.io/apiexports/provider/${name}`, { apiVersion: 'apis.kcp.io/v1alpha2', kind: 'APIExport', metadata: { name }, spec } as KubeObject);
  const newWorkspace = (cluster: string, type: string, createdBy?: { username: string; groups: string[] }) =>
    generic.create(
      { rt: logicalClusters, cluster, namespace: '' },
      {
        apiVersion: 'core.kcp.io/v1alpha1',
        kind: 'LogicalCluster',
        metadata: { name: 'cluster', annotations: { [PATH_ANNOTATION]: `root:${cluster}`, [TYPE_ANNOTATION]: `root:${type}` } },
        spec: { initializers: ['system:apibindings'], ...(createdBy ? { createdBy } : {}) },
        status: { phase: 'Initializing', initializers: ['system:apibindings'] },
      },
      { withStatus: true },
    );
  const lc = (cluster: string) => decodeStored(store.get(logicalClusterKey(cluster))!) as KubeObject & { status: { initializers?: string[]; conditions?: Record<string, string>[] } };
  const bindingsIn = (cluster: string) => store.list(`/registry/apis.kcp.io/apibindings/${cluster}/`).items.map((kv) => JSON.parse(kv.value) as KubeObject & { spec: Record<string, any> });
  const markBound = (cluster: string, name: string) => {
    const key = `/registry/apis.kcp.io/apibindings/${cluster}/${name}`;
    const b = JSON.parse(store.get(key)!.value) as KubeObject;
    put(key, { ...b, status: { phase: 'Bound', conditions: [{ type: 'InitialBindingCompleted', status: 'True', lastTransitionTime: 'x' }] } } as KubeObject);
  };
  const controller = defaultAPIBindingsController({ store, generic, paths, workspaceTypes, logicalClusters, apiBindings, apiExports });
  controller.start();
  const settle = async () => {
    for (let i = 0; i < 3; i++) {
      await controller.idle();
      await new Promise((r) => setTimeout(r, 5));
    }
  };
  const condition = (cluster: string) => lc(cluster).status.conditions?.find((c) => c.type === 'APIBindingsInitialized');
  return { store, defineType, defineExport, newWorkspace, lc, bindingsIn, markBound, settle, condition, controller };
}

describe('the system:apibindings initializer', () => {
  it('binds every default export under kcp’s name, waits until bound, then lets the workspace go', async () => {
    const f = fixture();
    f.defineExport('widgets', { permissionClaims: [{ group: '', resource: 'configmaps', verbs: ['get'] }] });
    f.defineType('base', { defaultAPIBindings: [{ path: 'provider', export: 'widgets' }] });
    f.defineType('leaf', { extend: { with: [{ name: 'base', path: 'root' }] } });
    f.newWorkspace('c1', 'leaf');
    await f.settle();
    const name = defaultAPIBindingName('c1', 'provider', 'widgets');
    const [binding] = f.bindingsIn('c1');
    expect(binding?.metadata?.name).toBe(name);
    expect(binding?.spec.reference).toEqual({ export: { path: 'provider', name: 'widgets' } });
    expect(binding?.spec.permissionClaims).toEqual([{ group: '', resource: 'configmaps', identityHash: '', verbs: ['get'], selector: { matchAll: true }, state: 'Accepted' }]);
    expect(f.condition('c1')).toMatchObject({ status: 'False', reason: 'WaitingOnAPIBindings', message: `APIBinding(s) not yet fully bound: ${name}` });
    expect(f.lc('c1').status.initializers).toEqual(['system:apibindings']);
    f.markBound('c1', name);
    await f.settle();
    expect(f.lc('c1').status.initializers).toBeUndefined();
    expect(f.condition('c1')).toMatchObject({ status: 'True' });
    f.controller.stop();
  });

  it('keeps a workspace waiting with kcp’s error while an export is missing, and goes on once it appears', async () => {
    const f = fixture();
    f.defineType('t', { defaultAPIBindings: [{ path: 'provider', export: 'later' }] });
    f.newWorkspace('c2', 't');
    await f.settle();
    expect(f.condition('c2')).toMatchObject({
      status: 'False',
      reason: 'APIBindingErrors',
      severity: 'Error',
      message: 'encountered errors: unable to complete initialization: unable to find at least 1 APIExport',
    });
    expect(f.bindingsIn('c2')).toEqual([]);
    f.defineExport('later');
    await f.settle();
    expect(f.bindingsIn('c2').map((b) => b.metadata?.name)).toEqual([defaultAPIBindingName('c2', 'provider', 'later')]);
    f.controller.stop();
  });

  it('creates the binding as the workspace’s creator: without bind on the export it reports the refusal', async () => {
    const f = fixture({ mayBind: false });
    f.defineExport('widgets');
    f.defineType('t', { defaultAPIBindings: [{ path: 'provider', export: 'widgets' }] });
    f.newWorkspace('c3', 't', { username: 'user-1', groups: ['system:authenticated'] });
    await f.settle();
    expect(f.condition('c3')?.message).toMatch(/^encountered errors: .*unable to create APIBinding: no permission to bind to export provider:widgets$/);
    expect(f.lc('c3').status.initializers).toEqual(['system:apibindings']);
    f.controller.stop();
  });

  it('Maintain: bindings added to the type later, or deleted, come back in initialized workspaces; InitializeOnly leaves them', async () => {
    const f = fixture();
    f.defineExport('a');
    f.defineExport('b');
    f.defineType('kept', { defaultAPIBindingLifecycle: 'Maintain', defaultAPIBindings: [{ path: 'provider', export: 'a' }] });
    f.defineType('once', { defaultAPIBindings: [{ path: 'provider', export: 'a' }] });
    f.newWorkspace('m', 'kept');
    f.newWorkspace('o', 'once');
    await f.settle();
    for (const c of ['m', 'o']) f.markBound(c, defaultAPIBindingName(c, 'provider', 'a'));
    await f.settle();
    expect(f.lc('m').status.initializers).toBeUndefined();
    expect(f.store.get('/kcpt/apibindings/maintained/m')).toBeDefined();
    expect(f.store.get('/kcpt/apibindings/maintained/o')).toBeUndefined();
    const both = [{ path: 'provider', export: 'a' }, { path: 'provider', export: 'b' }];
    f.defineType('kept', { defaultAPIBindingLifecycle: 'Maintain', defaultAPIBindings: both });
    f.defineType('once', { defaultAPIBindings: both });
    await f.settle();
    expect(f.bindingsIn('m').map((b) => b.spec.reference.export.name).sort()).toEqual(['a', 'b']);
    expect(f.bindingsIn('o').map((b) => b.spec.reference.export.name)).toEqual(['a']);
    f.store.commit([{ type: 'delete', key: `/registry/apis.kcp.io/apibindings/m/${defaultAPIBindingName('m', 'provider', 'b')}` }]);
    await f.settle();
    expect(f.bindingsIn('m')).toHaveLength(2);
    f.controller.stop();
  });
});
