import { describe, expect, it } from 'vitest';
import { bindingIndexPrefix } from '../../apis/binding-index.js';
import { createMemoryStore } from '../../storage/memory-store.js';
import { ExportBindings } from './export-bindings.js';

const row = (consumer: string, binding: string) => `${bindingIndexPrefix('prov1', 'widgets')}${consumer}/${binding}`;
const value = (accepted: unknown[] = []) => JSON.stringify({ resources: [], acceptedClaims: accepted });

describe('ExportBindings', () => {
  it('reads an export’s consumers when first asked and follows them afterwards', () => {
    const store = createMemoryStore({});
    store.commit([{ type: 'create', key: row('c1', 'b'), value: value() }]);
    const index = new ExportBindings(store);
    expect([...index.boundConsumers('prov1', 'widgets').keys()]).toEqual(['c1']);
    expect(index.hasBindings('prov1', 'other')).toBe(false);
    const claim = { group: '', resource: 'configmaps', verbs: ['get'], state: 'Accepted', selector: { matchAll: true } };
    store.commit([{ type: 'create', key: row('c2', 'b'), value: value([claim]) }]);
    expect(index.boundBinding('prov1', 'widgets', 'c2')?.claims).toEqual({ spec: { permissionClaims: [claim] } });
    store.commit([{ type: 'delete', key: row('c1', 'b') }]);
    expect([...index.boundConsumers('prov1', 'widgets').keys()]).toEqual(['c2']);
    store.commit([{ type: 'delete', key: row('c2', 'b') }]);
    expect(index.hasBindings('prov1', 'widgets')).toBe(false);
    index.stop();
  });

  it('keeps a consumer while one of its bindings to the export remains', () => {
    const store = createMemoryStore({});
    store.commit([
      { type: 'create', key: row('c1', 'a'), value: value() },
      { type: 'create', key: row('c1', 'b'), value: value() },
    ]);
    const index = new ExportBindings(store);
    expect(index.boundBinding('prov1', 'widgets', 'c1')?.binding).toBe('a');
    store.commit([{ type: 'delete', key: row('c1', 'a') }]);
    expect(index.boundBinding('prov1', 'widgets', 'c1')?.binding).toBe('b');
    index.stop();
  });

  it('tells listeners which export’s consumers changed', () => {
    const store = createMemoryStore({});
    const index = new ExportBindings(store);
    const heard: string[] = [];
    index.onChange((cluster, name) => heard.push(`${cluster}|${name}`));
    index.start();
    store.commit([{ type: 'create', key: row('c1', 'b'), value: value() }]);
    store.commit([{ type: 'delete', key: row('c1', 'b') }]);
    expect(heard).toEqual(['prov1|widgets', 'prov1|widgets']);
    index.stop();
  });
});
