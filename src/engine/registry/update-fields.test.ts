/**
 * Updates whose managedFields come from the per-shape cache get exactly what the field-set computation gives: the
 * same owners, fields and times, in the same order, whatever was computed before for a similar change.
 */
import { describe, expect, it, vi } from 'vitest';
import { configMaps } from '../builtin/core/resources.js';
import { logicalClusters } from '../builtin/kcp-core/resources.js';
import { Managers, recordUpdate } from '../machinery/ssa/apply.js';
import { FieldSet, MAX_TRACKED_PATH_ELEMENTS } from '../machinery/ssa/fieldset.js';
import { FieldManager } from './field-manager.js';
import { nowTimestamp } from './object-rules.js';
import { apiVersionOf, type KubeObject, type ResourceType } from './types.js';
import { changeShape } from './update-fields.js';

/** managedFields by the uncached algorithm (kube's rules: the request's entries when they decode, else the live ones). */
function reference(fm: FieldManager, rt: ResourceType, old: KubeObject, obj: KubeObject, manager: string, subresource?: string) {
  const view = (o: KubeObject) => {
    const { managedFields: _m, ...meta } = o.metadata ?? {};
    return { ...o, metadata: meta };
  };
  const live = Managers.decode(old.metadata?.managedFields) ?? new Managers();
  const sent = obj.metadata?.managedFields;
  const fromRequest = subresource ? undefined : Managers.isReset(sent) ? new Managers() : Managers.decode(sent);
  const base = fromRequest && (fromRequest.size > 0 || Managers.isReset(sent)) ? fromRequest : live;
  const ignore = subresource === 'status' ? (p: string[]) => p[0] !== 'f:status' : rt.subresources?.status && !subresource ? (p: string[]) => p[0] === 'f:status' : undefined;
  const managers = recordUpdate({
    old: view(old),
    updated: view(obj),
    managers: base,
    manager,
    apiVersion: apiVersionOf(rt),
    subresource,
    now: nowTimestamp(),
    typeInfo: fm.typeInfo(rt),
    ignore,
  });
  return managers.encode();
}

/** Runs the write through `fm` and the reference; returns both (times as T: order is checked, not the clock) and the raw entries. */
function both(fm: FieldManager, rt: ResourceType, old: KubeObject, next: KubeObject, manager: string, subresource?: string) {
  const obj = structuredClone(next);
  fm.recordWrite(rt, old, obj, { manager, subresource });
  const got = (obj.metadata?.managedFields ?? []).map((e) => ({ ...(e as object), time: (e as { time?: string }).time === undefined ? undefined : 'T' }));
  const want = reference(fm, rt, old, next, manager, subresource).map((e) => ({ ...e, time: e.time === undefined ? undefined : 'T' }));
  return [got, want, obj.metadata?.managedFields as Array<{ manager: string; time?: string }>] as const;
}

const created = (name: string, labels: Record<string, string>, time: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: {
    name,
    namespace: 'default',
    uid: `uid-${name}`,
    labels,
    managedFields: [
      { manager: 'kubectl-create', operation: 'Update', apiVersion: 'v1', time, fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:a': {} }, 'f:metadata': { 'f:labels': Object.fromEntries(Object.keys(labels).map((k) => [`f:${k}`, {}])) } } },
    ],
  },
  data: { a: name },
});

/** What a controller does to it: a label set, an annotation and a finalizer added, a data key added. */
function settled(obj: KubeObject, phase: string): KubeObject {
  return {
    ...obj,
    metadata: { ...obj.metadata, labels: { ...obj.metadata!.labels, phase }, annotations: { url: `https://x/${obj.metadata!.name}` }, finalizers: ['example.com/f'] },
    data: { ...(obj.data as object), b: `${obj.metadata!.name}-b` },
  };
}

describe('update managedFields from the shape cache', () => {
  it('match the computation for a repeated controller update, with each object’s own names, values and times', () => {
    const fm = new FieldManager();
    for (const [i, time] of ['2020-01-01T00:00:00Z', '2099-01-01T00:00:00Z', '2021-05-05T10:00:00Z'].entries()) {
      const old = created(`cm-${i}`, { app: `a${i}` }, time);
      const [got, want, raw] = both(fm, configMaps, old, settled(old, 'Ready'), 'kcpt');
      expect(got).toEqual(want);
      // The creator's entry keeps its own time; the writer's is now. A creator's entry from the future sorts last.
      expect(raw.find((e) => e.manager === 'kubectl-create')?.time).toBe(time);
      expect(raw.map((e) => e.manager)).toEqual(time > new Date().toISOString() ? ['kcpt', 'kubectl-create'] : ['kubectl-create', 'kcpt']);
    }
  });

  it('tell a value kept from a value changed: a changed label moves to the writer, a kept one stays with its owner', () => {
    const fm = new FieldManager();
    const old = created('kept', { app: 'a', phase: 'Ready' }, '2020-01-01T00:00:00Z');
    const [got1, want1] = both(fm, configMaps, old, settled(old, 'Ready'), 'kcpt');
    expect(got1).toEqual(want1);
    const old2 = created('moved', { app: 'a', phase: 'Scheduling' }, '2020-01-01T00:00:00Z');
    const [got2, want2] = both(fm, configMaps, old2, settled(old2, 'Ready'), 'kcpt');
    expect(got2).toEqual(want2);
    expect(JSON.stringify(got2)).not.toEqual(JSON.stringify(got1));
  });

  it('follow the request’s own managedFields, a reset, and a status write', () => {
    const fm = new FieldManager();
    const old = created('req', { app: 'a' }, '2020-01-01T00:00:00Z');
    const edited = settled(old, 'Ready');
    edited.metadata!.managedFields = [{ manager: 'someone', operation: 'Update', apiVersion: 'v1', time: '2020-02-02T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': {} } }];
    for (let i = 0; i < 2; i++) {
      const [got, want] = both(fm, configMaps, old, edited, 'kubectl-edit');
      expect(got).toEqual(want);
    }
    const reset = { ...settled(old, 'Ready'), metadata: { ...settled(old, 'Ready').metadata, managedFields: [{}] } };
    const [got, want] = both(fm, configMaps, old, reset, 'kubectl-edit');
    expect(got).toEqual(want);

    const lc = (phase: string, at: string): KubeObject => ({
      apiVersion: 'core.kcp.io/v1alpha1',
      kind: 'LogicalCluster',
      metadata: { name: 'cluster', uid: 'u', managedFields: [{ manager: 'kcpt', operation: 'Update', apiVersion: 'core.kcp.io/v1alpha1', time: at, fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': {} } }] },
      spec: {},
      status: { phase, conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: at }] },
    });
    for (const [phase, at] of [['Ready', '2020-01-01T00:00:00Z'], ['Ready', '2020-01-01T00:00:09Z'], ['Initializing', '2020-01-01T00:00:09Z']]) {
      const [g, w] = both(fm, logicalClusters, lc('Scheduling', '2019-01-01T00:00:00Z'), lc(phase, at), 'kcpt', 'status');
      expect(g).toEqual(w);
    }
  });
});

describe('changeShape', () => {
  it('tells apart what the comparison tells apart', () => {
    const shapes = [
      changeShape({ a: 1 }, { a: 1 }),
      changeShape({ a: 1 }, { a: 2 }),
      changeShape({ a: 1 }, { a: null }),
      changeShape({ a: 1 }, { a: { b: 1 } }),
      changeShape({ a: null }, { a: { b: 1 } }),
      changeShape({ a: [1] }, { a: { b: 1 } }),
      changeShape({ a: [1] }, { a: [2] }),
      changeShape({ a: [1] }, { a: [1, 2] }),
      changeShape({}, { a: 1 }),
      changeShape({ a: 1 }, {}),
      changeShape({}, { a: [1] }),
      changeShape({}, { a: [2] }),
    ];
    expect(new Set(shapes).size).toBe(shapes.length);
    expect(changeShape({ a: 'x', l: [{ k: 1 }] }, { a: 'y', l: [{ k: 1 }] })).toBe(changeShape({ a: 'p', l: [{ k: 1 }] }, { a: 'q', l: [{ k: 1 }] }));
  });
});

describe('field tracking of an object too large to track', () => {
  // A type without a schema, as a custom resource that preserves unknown fields is tracked: every map key is a field.
  const free: ResourceType = { ...configMaps, openapiSchemaName: undefined };
  // A 478 KB custom resource shaped as a chain 600 deep with 100 leaves at every level held every tenant's requests
  // for 7.6-11.5 s on its create: each tracked field keeps its whole path (1.8e7 elements). kube's UpdateNoErrors
  // removes managedFields it cannot compute and lets the write go on; so does kcpt past its budget of path elements.
  const comb = () => {
    let node: Record<string, unknown> = {};
    const spec = node;
    for (let depth = 0; depth < 600; depth++) {
      for (let leaf = 0; leaf < 100; leaf++) node[`s${leaf}`] = 1;
      node = node.n = {};
    }
    return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'comb', namespace: 'default' }, spec } as KubeObject;
  };

  /** The path elements field sets take in (FieldSet.add) while `fn` runs. */
  const pathElementsHeld = (fn: () => void): number => {
    let held = 0;
    const add = FieldSet.prototype.add;
    const spy = vi.spyOn(FieldSet.prototype, 'add').mockImplementation(function (this: FieldSet, path: string[]) {
      held += path.length;
      return add.call(this, path);
    });
    try {
      fn();
    } finally {
      spy.mockRestore();
    }
    return held;
  };

  it('removes managedFields of a create past the budget, spending at most the budget on it', () => {
    const fm = new FieldManager();
    const created = comb();
    expect(pathElementsHeld(() => fm.recordWrite(free, undefined, created, { manager: 'alice' }))).toBeLessThanOrEqual(MAX_TRACKED_PATH_ELEMENTS + 600);
    expect(created.metadata).not.toHaveProperty('managedFields');
    // An update records what it changed: the unchanged chain is walked, not held, and the rest is tracked as ever.
    const updated = { ...comb(), data: { a: '1' } } as KubeObject;
    expect(pathElementsHeld(() => fm.recordWrite(free, created, updated, { manager: 'alice' }))).toBeLessThan(100);
    expect(updated.metadata?.managedFields).toMatchObject([{ manager: 'alice', fieldsV1: { 'f:data': { '.': {}, 'f:a': {} } } }]);
  });

  it('refuses a server-side apply past the budget with a 413', () => {
    const err = (() => {
      try {
        new FieldManager().apply(free, undefined, comb(), { manager: 'alice', force: false });
      } catch (e) {
        return e as { code: number; message: string };
      }
    })();
    expect(err?.code).toBe(413);
    expect(err?.message).toMatch(/^Request entity too large: field tracking of this object takes more than 2097152 path elements/);
  });

  it("refuses the apply's undeclared-field check past the budget too, spending at most the budget on it", () => {
    // The apply handler asks for the configuration's undeclared fields first: that field set was built without the
    // budget, 8 s of every tenant's event loop for a 478 KB chain before the apply reached its 413.
    let err: { code?: number; message?: string } | undefined;
    const held = pathElementsHeld(() => {
      try {
        new FieldManager().undeclaredFields(free, comb());
      } catch (e) {
        err = e as { code: number; message: string };
      }
    });
    expect(err?.code).toBe(413);
    expect(err?.message).toMatch(/^Request entity too large: field tracking of this object takes more than 2097152 path elements; server-side apply needs them/);
    expect(held).toBeLessThanOrEqual(MAX_TRACKED_PATH_ELEMENTS + 600);
  });

  it('tracks an ordinary object as before', () => {
    const obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'default' }, data: { a: '1' } } as KubeObject;
    new FieldManager().recordWrite(configMaps, undefined, obj, { manager: 'alice' });
    expect(obj.metadata?.managedFields).toMatchObject([{ manager: 'alice', operation: 'Update', fieldsV1: { 'f:data': { '.': {}, 'f:a': {} } } }]);
  });
});
