import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../../storage/memory-store.js';
import { ExportBindings } from './export-bindings.js';

const key = (cluster: string, name: string) => `/registry/apis.kcp.io/apibindings/${cluster}/${name}`;
const binding = (path: string | undefined, name: string, phase?: string, exportCluster?: string) =>
  JSON.stringify({
    apiVersion: 'apis.kcp.io/v1alpha2',
    kind: 'APIBinding',
    metadata: { name: 'b' },
    spec: { reference: { export: { ...(path ? { path } : {}), name } } },
    status: { ...(phase ? { phase } : {}), ...(exportCluster ? { apiExportClusterName: exportCluster } : {}) },
  });

describe('ExportBindings', () => {
  const paths: Record<string, string> = { 'root:provider': 'prov1' };

  it('reads the bindings when first asked and follows them afterwards', () => {
    const store = createMemoryStore({});
    store.commit([{ type: 'create', key: key('c1', 'b'), value: binding('root:provider', 'widgets', 'Bound', 'prov1') }]);
    const index = new ExportBindings(store, (p) => paths[p]);
    expect([...index.boundConsumers('prov1', 'widgets').keys()]).toEqual(['c1']);
    // Binding (not yet Bound): referenced (an endpoint) but not served.
    store.commit([{ type: 'create', key: key('c2', 'b'), value: binding('root:provider', 'widgets') }]);
    expect(index.hasBindings('prov1', 'widgets')).toBe(true);
    expect(index.boundBinding('prov1', 'widgets', 'c2')).toBeUndefined();
    const current = store.get(key('c2', 'b'))!;
    store.commit([{ type: 'update', key: key('c2', 'b'), value: binding('root:provider', 'widgets', 'Bound', 'prov1'), expectedRevision: current.revision }]);
    expect([...index.boundConsumers('prov1', 'widgets').keys()].sort()).toEqual(['c1', 'c2']);
    store.commit([{ type: 'delete', key: key('c1', 'b') }, { type: 'delete', key: key('c2', 'b') }]);
    expect(index.hasBindings('prov1', 'widgets')).toBe(false);
    index.stop();
  });

  it('files a binding without a path under its own workspace', () => {
    const store = createMemoryStore({});
    store.commit([{ type: 'create', key: key('c1', 'b'), value: binding(undefined, 'local', 'Bound') }]);
    const index = new ExportBindings(store, () => undefined);
    expect(index.boundBinding('c1', 'local', 'c1')).toBeDefined();
    index.stop();
  });

  it('tells listeners about the export of every change, before and after a load', () => {
    const store = createMemoryStore({});
    const index = new ExportBindings(store, (p) => paths[p]);
    const heard: string[] = [];
    index.onChange((cluster, name) => heard.push(`${cluster}|${name}`));
    index.start();
    store.commit([{ type: 'create', key: key('c1', 'b'), value: binding('root:provider', 'widgets') }]);
    expect(heard).toEqual(['prov1|widgets']);
    expect(index.hasBindings('prov1', 'widgets')).toBe(true);
    store.commit([{ type: 'delete', key: key('c1', 'b') }]);
    expect(heard).toEqual(['prov1|widgets', 'prov1|widgets']);
    expect(index.hasBindings('prov1', 'widgets')).toBe(false);
    index.stop();
  });
});
