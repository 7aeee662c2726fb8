import { describe, expect, it } from 'vitest';
import { canonical } from '../machinery/canonical-json.js';
import { annotationsText, decodeStored, encodeStored, keyNamespaceAndName, objectKey, rowJson, splicedRowsHeld, spliceResourceVersion } from './stored-object.js';
import type { KubeObject, ResourceType } from './types.js';

/** What storage has always held: apiVersion, kind, metadata (without resourceVersion), then the rest, every map sorted. */
function reference(obj: KubeObject): string {
  const { apiVersion, kind, metadata, ...rest } = obj;
  const meta = canonical(metadata ?? {}) as Record<string, unknown> | unknown[] | string;
  if (meta && typeof meta === 'object' && !Array.isArray(meta)) delete meta.resourceVersion;
  return JSON.stringify({ apiVersion, kind, metadata: meta, ...(canonical(rest) as object) });
}

describe('encodeStored', () => {
  const created: KubeObject = {
    data: { 'z.yaml': 'z', 'a.yaml': 'a' },
    kind: 'ConfigMap',
    apiVersion: 'v1',
    metadata: {
      name: 'cm',
      namespace: 'default',
      labels: { tier: 'backend', app: 'x' },
      uid: 'u-1',
      creationTimestamp: '2026-01-01T00:00:00Z',
      annotations: { 'kcp.io/cluster': 'root' },
      managedFields: [{ manager: 'm', operation: 'Update', apiVersion: 'v1', time: 't', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:z.yaml': {}, '.': {} } } }],
      resourceVersion: '42',
    },
  };

  it('writes apiVersion, kind and metadata first, every map sorted, without the resourceVersion', () => {
    const text = encodeStored(created);
    expect(text).toBe(reference(created));
    expect(text.startsWith('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"annotations":')).toBe(true);
    expect(text).not.toContain('resourceVersion');
    expect(text.indexOf('"a.yaml"')).toBeLessThan(text.indexOf('"z.yaml"'));
    // What reads do with it: the revision spliced in is the object's resourceVersion again.
    expect(decodeStored({ value: text, revision: 42 }).metadata).toEqual(created.metadata);
    expect(JSON.parse(spliceResourceVersion(text, 42)).metadata.resourceVersion).toBe('42');
  });

  it('stores the same bytes as the sorted-copy encoding for objects of every form', () => {
    const weird = JSON.parse('{"__proto__":{"b":1,"a":2},"metadata":{"__proto__":"x","name":"n"},"kind":"K"}') as KubeObject;
    const cases: KubeObject[] = [
      created,
      { apiVersion: 'v1', kind: 'ConfigMap' },
      { kind: 'Thing', metadata: {}, spec: { list: [{ b: 1, a: { d: 1, c: [3, { f: 1, e: 2 }] } }], empty: {} } },
      { apiVersion: 'v1', kind: 'Thing', metadata: { name: 'n', labels: undefined, generation: 3 }, spec: undefined, status: { z: null, a: true } },
      { apiVersion: undefined, kind: 'Thing', metadata: null as unknown as undefined, spec: { x: 1 } },
      { apiVersion: 'v1', kind: 'Thing', metadata: ['not', 'a', 'map'] as unknown as undefined, spec: { b: 1, a: 2 } },
      { apiVersion: 'v1', kind: 'Thing', metadata: 'text' as unknown as undefined },
      { apiVersion: 'v1', kind: 'Thing', metadata: { resourceVersion: '7' } },
      { apiVersion: 'v1', kind: 'Thing', metadata: { name: 'ü', annotations: { 'é': '\u2028', 'B': 'b', 'a': 'a' } }, '10': 1, '9': 2, Z: 3 } as KubeObject,
      weird,
    ];
    for (const obj of cases) expect(encodeStored(obj), JSON.stringify(obj)).toBe(reference(obj));
    // A key named __proto__ is data, kept where it was sent, never the prototype.
    expect(JSON.parse(encodeStored(weird))).toEqual(JSON.parse('{"kind":"K","metadata":{"__proto__":"x","name":"n"},"__proto__":{"a":2,"b":1}}'));
  });

  it('leaves the object it encodes as it was', () => {
    const obj = structuredClone(created);
    encodeStored(obj);
    expect(obj).toEqual(created);
    expect(Object.keys(obj.metadata!)).toEqual(Object.keys(created.metadata!));
  });
});

describe('rowJson', () => {
  const key = '/registry/core/configmaps/root/default/row-json';
  const stored = encodeStored({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'row-json', namespace: 'default' }, data: { a: '1' } });

  it('answers what spliceResourceVersion answers, for the row as it is now', () => {
    expect(rowJson({ key, value: stored, revision: 5 })).toBe(spliceResourceVersion(stored, 5));
    expect(rowJson({ key, value: stored, revision: 5 })).toBe(spliceResourceVersion(stored, 5));
    // The same key at a later revision, then with other text (another store holding the same key): never the old answer.
    expect(JSON.parse(rowJson({ key, value: stored, revision: 6 })).metadata.resourceVersion).toBe('6');
    const changed = stored.replace('"a":"1"', '"a":"2"');
    expect(JSON.parse(rowJson({ key, value: changed, revision: 6 })).data).toEqual({ a: '2' });
    expect(JSON.parse(rowJson({ key, value: stored, revision: 6 })).data).toEqual({ a: '1' });
  });

  it('holds a bounded number of characters however many rows are read', () => {
    const big = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"data":{"a":"${'x'.repeat(10_000)}"}}`;
    for (let i = 0; i < 400; i++) rowJson({ key: `/registry/core/configmaps/root/default/bulk-${i}`, value: big, revision: i + 1 });
    const held = splicedRowsHeld();
    expect(held.chars).toBeLessThanOrEqual(4 * 1024 * 1024);
    expect(held.rows).toBeLessThan(400);
    // A row too big to keep is still answered right.
    const huge = big.replace('x'.repeat(10_000), 'y'.repeat(100_000));
    expect(JSON.parse(rowJson({ key, value: huge, revision: 9 })).metadata.resourceVersion).toBe('9');
    expect(splicedRowsHeld().chars).toBeLessThanOrEqual(4 * 1024 * 1024);
  });
});

describe('annotationsText', () => {
  it('is the annotations object of canonical stored JSON, whatever its strings hold', () => {
    const annotations = { 'a.example.com/x': 'has } and { and "quotes" and \\ backslash', 'b.example.com/y': '' };
    const stored = encodeStored({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'n', annotations, labels: { l: '}' } }, data: { k: '{' } });
    const text = annotationsText(stored);
    expect(text).toBeDefined();
    expect(JSON.parse(text!)).toEqual(annotations);
  });

  it('differs when any annotation differs, and is undefined without annotations first in metadata', () => {
    const of = (annotations?: Record<string, string>) => annotationsText(encodeStored({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'n', ...(annotations ? { annotations } : {}) } }));
    expect(of({ a: '1' })).not.toBe(of({ a: '2' }));
    expect(of({ a: '1' })).toBe(of({ a: '1' }));
    expect(of()).toBeUndefined();
    // Not canonical (annotations after another key): not read from the text.
    expect(annotationsText('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"n","annotations":{"a":"1"}}}')).toBeUndefined();
    expect(annotationsText('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"annotations":{"a":"1"')).toBeUndefined();
  });
});

describe('keyNamespaceAndName', () => {
  it('reads back what objectKey wrote, for namespaced and cluster-scoped types, whatever the cluster or prefix', () => {
    const namespaced = { namespaced: true, storagePrefix: 'core/configmaps' } as ResourceType;
    const clusterScoped = { namespaced: false, storagePrefix: 'example.com/things' } as ResourceType;
    for (const cluster of ['root', '2x7k9', 'a-b']) {
      expect(keyNamespaceAndName(namespaced, objectKey(namespaced, cluster, 'kube-system', 'cm.v1'))).toEqual({ namespace: 'kube-system', name: 'cm.v1' });
      expect(keyNamespaceAndName(clusterScoped, objectKey(clusterScoped, cluster, '', 'thing'))).toEqual({ namespace: '', name: 'thing' });
    }
  });
});
