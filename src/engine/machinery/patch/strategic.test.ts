/**
 * Hand-written strategic merge patch cases. The bulk of the upstream comparison lives in kubectlFixtures.test.ts;
 * these pin down directive shapes kubectl apply/edit send, our normalisation of new values, and errors.
 */
import { describe, expect, it } from 'vitest';
import { StatusError } from '../status.js';
import type { JsonObject } from './json.js';
import { patchSchemaFor } from '../../builtin/test-support.js';
import type { PatchSchema } from './schema.js';
import { applyStrategicMergePatch } from './strategic.js';

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
const ref = (uid: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', name: uid, uid });
const cm = (): JsonObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'cm', labels: { app: 'a' }, finalizers: ['x/a', 'x/b'], ownerReferences: [ref('u1'), ref('u2')] },
  data: { a: '1', b: '2' },
});
const cmSchema = patchSchemaFor('', 'ConfigMap');
const svcSchema = patchSchemaFor('', 'Service');
const smp = (obj: JsonObject, patch: unknown, schema: PatchSchema = cmSchema) => applyStrategicMergePatch(obj, patch, schema) as any;

function failure(patch: unknown, obj: JsonObject = cm(), schema: PatchSchema = cmSchema): StatusError {
  try {
    applyStrategicMergePatch(obj, patch, schema);
  } catch (err) {
    expect(err).toBeInstanceOf(StatusError);
    return err as StatusError;
  }
  throw new Error('expected the patch to fail');
}

describe('applyStrategicMergePatch: what kubectl apply and edit send', () => {
  it('data change plus the new last-applied annotation', () => {
    const out = smp(cm(), { data: { b: null, c: '3' }, metadata: { annotations: { [LAST_APPLIED]: '{}\n' } } });
    expect(out.data).toEqual({ a: '1', c: '3' });
    expect(out.metadata.annotations).toEqual({ [LAST_APPLIED]: '{}\n' });
    expect(out.metadata.labels).toEqual({ app: 'a' });
  });

  it('$setElementOrder with $deleteFromPrimitiveList and an addition (finalizers)', () => {
    const patch = { metadata: { '$deleteFromPrimitiveList/finalizers': ['x/a'], '$setElementOrder/finalizers': ['x/b', 'x/c'], finalizers: ['x/c'] } };
    expect(smp(cm(), patch).metadata.finalizers).toEqual(['x/b', 'x/c']);
  });

  it('$setElementOrder alone reorders a merge list (ownerReferences)', () => {
    expect(smp(cm(), { metadata: { '$setElementOrder/ownerReferences': [{ uid: 'u2' }, { uid: 'u1' }] } }).metadata.ownerReferences).toEqual([ref('u2'), ref('u1')]);
  });

  it('$patch: delete list items with $setElementOrder (kubectl apply removing an owner)', () => {
    const patch = { metadata: { '$setElementOrder/ownerReferences': [{ uid: 'u2' }, { uid: 'u3' }], ownerReferences: [ref('u3'), { $patch: 'delete', uid: 'u1' }] } };
    expect(smp(cm(), patch).metadata.ownerReferences).toEqual([ref('u2'), ref('u3')]);
  });

  it('$patch: replace on a map replaces it', () => {
    expect(smp(cm(), { data: { $patch: 'replace', c: '3' } }).data).toEqual({ c: '3' });
  });

  it('$patch: replace as a list item replaces the list', () => {
    expect(smp(cm(), { metadata: { ownerReferences: [{ $patch: 'replace' }, ref('u9')] } }).metadata.ownerReferences).toEqual([ref('u9')]);
  });

  it('$patch: delete on an existing map empties it, as upstream does', () => {
    expect(smp(cm(), { metadata: { labels: { $patch: 'delete' } } }).metadata.labels).toEqual({});
  });

  it('$retainKeys keeps only the listed fields', () => {
    expect(smp(cm(), { data: { $retainKeys: ['b', 'c'], c: '3' } }).data).toEqual({ b: '2', c: '3' });
  });

  it('Service ports merge by port and keep server-set fields', () => {
    const svc = { spec: { clusterIP: '10.0.0.1', ports: [{ port: 80, targetPort: 8080, nodePort: 30080 }, { port: 443 }] } };
    const out = smp(svc, { spec: { '$setElementOrder/ports': [{ port: 443 }, { port: 80 }], ports: [{ port: 80, targetPort: 9090 }] } }, svcSchema);
    expect(out.spec).toEqual({ clusterIP: '10.0.0.1', ports: [{ port: 443 }, { port: 80, targetPort: 9090, nodePort: 30080 }] });
  });
});

describe('applyStrategicMergePatch: values new to the object are normalised', () => {
  it('drops nulls and directive items inside a new subtree', () => {
    const obj = { metadata: { name: 'x' } };
    const out = smp(obj, { metadata: { annotations: { a: null, b: '1' }, ownerReferences: [{ $patch: 'delete', uid: 'u0' }, { ...ref('u1'), controller: null }] } });
    expect(out.metadata).toEqual({ name: 'x', annotations: { b: '1' }, ownerReferences: [ref('u1')] });
  });

  it('new maps with $patch: delete are dropped, with $patch: replace are kept', () => {
    expect(smp({}, { data: { $patch: 'delete', a: '1' }, spec: { $patch: 'replace', b: 1 } })).toEqual({ spec: { b: 1 } });
  });

  it('never stores a directive key', () => {
    const out = smp({ metadata: { name: 'x' } }, { spec: { '$setElementOrder/x': ['a'], x: ['a'], $retainKeys: ['x'] } });
    expect(JSON.stringify(out)).not.toContain('$');
  });

  it('items appended to a merge list are normalised too', () => {
    expect(smp(cm(), { metadata: { ownerReferences: [{ ...ref('u3'), controller: null }] } }).metadata.ownerReferences).toEqual([ref('u3'), ref('u1'), ref('u2')]);
  });

  it('atomic lists take the patch list, without directive items', () => {
    const role = { rules: [{ verbs: ['get'] }] };
    expect(smp(role, { rules: [{ verbs: ['list'], resourceNames: null }, { $patch: 'delete' }] })).toEqual({ rules: [{ verbs: ['list'] }] });
  });

  it('keys starting with $ that are not directives are data (JSONSchemaProps has $ref)', () => {
    expect(smp({}, { spec: { schema: { $ref: '#/x' } } })).toEqual({ spec: { schema: { $ref: '#/x' } } });
  });

  it('a map field tagged replace is replaced', () => {
    const schema: PatchSchema = { fields: { spec: { patchStrategy: 'replace' } } };
    expect(smp({ spec: { a: 1, b: 2 } }, { spec: { c: 3, d: null } }, schema)).toEqual({ spec: { c: 3 } });
  });

  it('a top-level $patch: delete empties the object', () => {
    expect(smp(cm(), { $patch: 'delete' })).toEqual({});
  });
});

describe('applyStrategicMergePatch: errors', () => {
  it.each([
    ['a non-object patch', [1], 400, 'error decoding patch: a strategic merge patch must be a JSON object, got array'],
    ['null', null, 400, 'got null'],
    ['an unknown $patch value', { metadata: { labels: { $patch: 'bogus' } } }, 400, 'unknown patch type: bogus in map: map[$patch:bogus]'],
    ['$patch: merge on a map (kube rejects it)', { metadata: { labels: { $patch: 'merge', x: 'y' } } }, 400, 'unknown patch type: merge in map: map[$patch:merge x:y]'],
    ['$patch: merge on a list item (kube rejects it)', { metadata: { ownerReferences: [{ $patch: 'merge', uid: 'u1' }] } }, 400, 'merging lists cannot yet be specified in the patch'],
    ['an unknown $patch on a list item', { metadata: { ownerReferences: [{ $patch: 'x', uid: 'u1' }] } }, 400, 'unknown patch type: x in map: map[$patch:x uid:u1]'],
    ['a list item without its merge key', { metadata: { ownerReferences: [{ name: 'no-uid' }] } }, 400, 'map: map[name:no-uid] does not contain declared merge key: uid'],
    ['a delete item without its merge key', { metadata: { ownerReferences: [{ $patch: 'delete' }] } }, 400, 'map: map[$patch:delete] does not contain declared merge key: uid'],
    ['a list holding a list', { metadata: { finalizers: [['x']] } }, 400, 'list element types are not identical: [[x/a x/b] [[x]]]'],
    ['mixed element types', { metadata: { finalizers: [1] } }, 400, 'list element types are not identical: [[x/a x/b] [1]]'],
    ['objects in a primitive merge list', { metadata: { finalizers: [{ a: 1 }] } }, 400, 'list element types are not identical'],
    ['$retainKeys that is not a list', { metadata: { $retainKeys: 'name' } }, 400, 'invalid patch format of retainKeys'],
    ['a patch field missing from $retainKeys', { metadata: { $retainKeys: ['name'], labels: { a: 'b' } } }, 400, 'invalid patch format of retainKeys'],
    ['$setElementOrder that is not a list', { metadata: { '$setElementOrder/finalizers': 'x/a' } }, 400, 'invalid patch format of setElementOrder list'],
    ['$setElementOrder without a field name', { metadata: { '$setElementOrder/': [] } }, 400, 'invalid patch format of setElementOrder list'],
    ['$setElementOrderX', { metadata: { $setElementOrderX: [] } }, 400, 'invalid patch format of setElementOrder list'],
    ['$setElementOrder on a map', { metadata: { '$setElementOrder/labels': ['app'] } }, 400, 'invalid patch format of setElementOrder list'],
    ['$setElementOrder that contradicts the patch list', { metadata: { '$setElementOrder/finalizers': ['x/a'], finalizers: ['x/c'] } }, 400, "The order in patch list:\n[x/c]\n doesn't match $setElementOrder list:\n[x/a]"],
    ['$setElementOrder items without the merge key', { metadata: { '$setElementOrder/ownerReferences': [{ name: 'u1' }], ownerReferences: [ref('u1')] } }, 400, 'does not contain declared merge key: uid'],
    ['$deleteFromPrimitiveList of a map list', { metadata: { '$deleteFromPrimitiveList/ownerReferences': ['u1'] } }, 400, 'invalid patch format of primitive list'],
    ['$deleteFromPrimitiveList without a field name', { metadata: { $deleteFromPrimitiveList: ['a'] } }, 400, 'invalid patch format of primitive list'],
  ])('%s', (_name, patch, code, message) => {
    const err = failure(patch);
    expect(err.code).toBe(code);
    const texts = [err.message, ...(err.details?.causes ?? []).map((c) => c.message)];
    expect(texts.some((t) => t?.includes(message))).toBe(true);
  });

  it('a list whose first element is a list is 422, like kube (ErrNoListOfLists)', () => {
    const err = failure({ metadata: { finalizers: [['x']] } }, { metadata: { finalizers: [] } });
    expect(err.code).toBe(422);
    expect(err.details?.causes?.[0]?.message).toBe('lists of lists are not supported');
  });
});

describe('applyStrategicMergePatch: safety', () => {
  it('never modifies the object or the patch, and the result shares nothing with them', () => {
    const obj = cm();
    const patch = { metadata: { ownerReferences: [ref('u3')], finalizers: ['x/c'] }, spec: { list: [{ a: 1 }] } };
    const before = structuredClone({ obj, patch });
    const out = smp(obj, patch);
    out.metadata.ownerReferences[0].name = 'changed';
    out.spec.list[0].a = 2;
    out.metadata.labels.app = 'changed';
    expect({ obj, patch }).toEqual(before);
  });

  it('treats __proto__ and constructor as data and never touches Object.prototype', () => {
    const patch = JSON.parse('{"__proto__":{"polluted":1},"data":{"constructor":"c","__proto__":{"polluted":2}},"metadata":{"labels":{"__proto__":null,"constructor":null}}}');
    const out = smp(cm(), patch);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.prototype.hasOwnProperty.call(out, '__proto__')).toBe(true);
    expect(JSON.parse(JSON.stringify(out)).data).toEqual(JSON.parse('{"a":"1","b":"2","constructor":"c","__proto__":{"polluted":2}}'));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('a field named like an Object member finds no schema', () => {
    expect(smp({ constructor: [1] }, { constructor: [2], toString: { a: 1 } })).toEqual({ constructor: [2], toString: { a: 1 } });
  });
});

describe('applyStrategicMergePatch: the cost of long lists', () => {
  // Upstream compares every patch item with every live item; done that way, a 3 MiB patch of small items against
  // a long live list blocks the server for hours. Merging, ordering and partitioning go by index instead.
  it('merges 60,000 patch items into 30,000 live ones in linear time', { timeout: 60_000 }, () => {
    const live = cm();
    (live.metadata as any).ownerReferences = Array.from({ length: 30_000 }, (_, i) => ref(`live-${i}`));
    const patch = { metadata: { ownerReferences: Array.from({ length: 60_000 }, (_, i) => ({ uid: i % 2 ? `live-${i}` : `p-${i}` })) } };
    const out = smp(live, patch);
    // 30,000 live items, 15,000 of them patched, 45,000 new ones.
    expect(out.metadata.ownerReferences).toHaveLength(75_000);
    expect(out.metadata.ownerReferences.find((r: any) => r.uid === 'live-1')).toEqual(ref('live-1'));
  });

  it('merges long primitive merge lists (finalizers) in linear time', { timeout: 60_000 }, () => {
    const live = cm();
    (live.metadata as any).finalizers = Array.from({ length: 40_000 }, (_, i) => `x/l${i}`);
    const out = smp(live, { metadata: { finalizers: Array.from({ length: 40_000 }, (_, i) => `x/p${i}`) } });
    expect(out.metadata.finalizers).toHaveLength(80_000);
  });

  it('refuses a $setElementOrder patch deleting thousands of live items one by one, with a 413 before the work', () => {
    // kubectl apply's ordering replays upstream's in-place deletions: each costs a pass over the live list.
    const live = cm();
    (live.metadata as any).ownerReferences = Array.from({ length: 20_001 }, (_, i) => ref(`u-${i}`));
    const deletes = Array.from({ length: 20_000 }, (_, i) => ({ $patch: 'delete', uid: `u-${i}` }));
    const err = failure({ metadata: { '$setElementOrder/ownerReferences': [{ uid: 'u-20000' }], ownerReferences: deletes } }, live);
    expect(err.code).toBe(413);
    expect(err.reason).toBe('RequestEntityTooLarge');
    expect(err.message).toMatch(/^Request entity too large: merging the lists of this strategic merge patch takes more than 16777216 steps/);
  });

  it('orders deletions of a few hundred items as upstream does', () => {
    const live = cm();
    (live.metadata as any).ownerReferences = Array.from({ length: 600 }, (_, i) => ref(`u-${i}`));
    const deletes = Array.from({ length: 300 }, (_, i) => ({ $patch: 'delete', uid: `u-${i * 2}` }));
    const order = Array.from({ length: 300 }, (_, i) => ({ uid: `u-${i * 2 + 1}` }));
    const out = smp(live, { metadata: { '$setElementOrder/ownerReferences': order, ownerReferences: deletes } });
    expect(out.metadata.ownerReferences.map((r: any) => r.uid)).toEqual(order.map((o) => o.uid));
  });
});
