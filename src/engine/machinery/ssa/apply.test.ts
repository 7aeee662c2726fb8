import { describe, expect, it, vi } from 'vitest';
import { ApplyConflictError, applyConfig, Managers, recordUpdate, UndeclaredFieldsError, type ManagedFieldsEntry } from './apply.js';
import { FieldSet, FieldTrackingTooLarge, MAX_TRACKED_PATH_ELEMENTS, withPathBudget, type FieldsV1 } from './fieldset.js';
import { configMapType } from '../../builtin/test-support.js';
import { deploymentLikeType } from './test-types.js';
import { typeFromOpenAPI, withObjectMeta, type TypeNode } from './type-info.js';

const NOW = '2026-01-01T00:00:00Z';
const LATER = '2026-01-01T00:05:00Z';

type Obj = Record<string, unknown>;

function cm(data: Record<string, string>, extra: Obj = {}): Obj {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'default', ...extra }, data };
}

function managersOf(obj: Obj | null): Managers {
  return Managers.decode((obj?.metadata as Obj | undefined)?.managedFields) ?? new Managers();
}

function withoutManaged(obj: Obj): Obj {
  const { managedFields: _m, ...meta } = (obj.metadata ?? {}) as Obj;
  return { ...obj, metadata: meta };
}

/** Apply as the engine does: managedFields travel separately and are attached to the result. */
function apply(live: Obj | null, config: Obj, manager: string, force = false, typeInfo: TypeNode = configMapType, now = NOW) {
  const r = applyConfig({
    live: live ? withoutManaged(live) : undefined,
    config,
    managers: managersOf(live),
    manager,
    force,
    typeInfo,
    now,
    apiVersion: 'v1',
  });
  const managedFields = r.managers.encode();
  return { object: { ...r.object, metadata: { ...(r.object.metadata as Obj), managedFields } } as Obj, managedFields };
}

function update(old: Obj | null, updated: Obj, manager: string, opts: { apiVersion?: string; subresource?: string; now?: string } = {}) {
  const managers = recordUpdate({
    old: old ? withoutManaged(old) : undefined,
    updated: withoutManaged(updated),
    managers: managersOf(old),
    manager,
    typeInfo: configMapType,
    now: opts.now ?? NOW,
    apiVersion: opts.apiVersion ?? 'v1',
    subresource: opts.subresource,
  });
  const managedFields = managers.encode();
  return { object: { ...updated, metadata: { ...(updated.metadata as Obj), managedFields } } as Obj, managedFields };
}

function conflictOf(fn: () => unknown): ApplyConflictError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApplyConflictError) return e;
    throw e;
  }
  throw new Error('expected conflict');
}

const byManager = (mf: ManagedFieldsEntry[]) => Object.fromEntries(mf.map((m) => [m.manager, m.fieldsV1]));

describe('applyConfig: create and ownership', () => {
  it('creates an object with one Apply entry owning exactly the applied fields', () => {
    const r = apply(null, cm({ a: '1' }, { labels: { x: 'y' } }), 'kubectl');
    expect(r.object.data).toEqual({ a: '1' });
    expect(r.managedFields).toEqual([
      {
        manager: 'kubectl',
        operation: 'Apply',
        apiVersion: 'v1',
        time: NOW,
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { 'f:a': {} }, 'f:metadata': { 'f:labels': { 'f:x': {} } } },
      },
    ]);
    expect((r.object.metadata as Obj).name).toBe('x');
  });

  it('re-applying replaces the entry with exactly the applied fields and removes what was dropped', () => {
    const first = apply(null, cm({ a: '1', b: '2' }), 'kubectl');
    const second = apply(first.object, cm({ a: '1', c: '3' }), 'kubectl');
    expect(second.object.data).toEqual({ a: '1', c: '3' }); // b removed: only kubectl owned it
    expect(second.managedFields).toHaveLength(1);
    expect(second.managedFields[0]!.fieldsV1).toEqual({ 'f:data': { 'f:a': {}, 'f:c': {} } });
  });

  it('same value from two appliers is co-ownership, not a conflict', () => {
    const first = apply(null, cm({ a: '1' }), 'alice');
    const second = apply(first.object, cm({ a: '1' }), 'bob');
    expect(second.managedFields.map((m) => m.manager)).toEqual(['alice', 'bob']);
    // Bob drops a; alice still owns it so it stays.
    const third = apply(second.object, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }, 'bob');
    expect(third.object.data).toEqual({ a: '1' });
    expect(third.managedFields.map((m) => m.manager)).toEqual(['alice']);
  });

  it('a different value is a conflict naming the owner; force moves ownership', () => {
    const first = apply(null, cm({ a: '1', b: '1' }), 'alice');
    const err = conflictOf(() => apply(first.object, cm({ a: '2', b: '1' }), 'bob'));
    expect(err.conflicts).toEqual([{ manager: 'alice', operation: 'Apply', apiVersion: 'v1', path: '.data.a', rawPath: ['f:data', 'f:a'] }]);
    const forced = apply(first.object, cm({ a: '2', b: '1' }), 'bob', true);
    expect(forced.object.data).toEqual({ a: '2', b: '1' });
    expect(byManager(forced.managedFields)).toEqual({ alice: { 'f:data': { 'f:b': {} } }, bob: { 'f:data': { 'f:a': {}, 'f:b': {} } } });
  });

  it('attributes objects that have no managedFields to before-first-apply, and conflicts with it', () => {
    const live = cm({ a: '1' });
    const err = conflictOf(() => apply(live, cm({ a: '2' }), 'kubectl'));
    expect(err.conflicts[0]).toMatchObject({ manager: 'before-first-apply', operation: 'Update', path: '.data.a' });
    const ok = apply(live, cm({ a: '1', b: '2' }), 'kubectl');
    // Apply entries sort before Update entries, as upstream encodes them.
    expect(ok.managedFields.map((m) => [m.manager, m.operation])).toEqual([
      ['kubectl', 'Apply'],
      ['before-first-apply', 'Update'],
    ]);
    expect(byManager(ok.managedFields)['before-first-apply']).toEqual({ 'f:data': { '.': {}, 'f:a': {} } });
  });

  it('fields owned by an Update manager survive when the applier omits them', () => {
    const created = apply(null, cm({ a: '1' }), 'kubectl');
    const edited = update(created.object, { ...created.object, data: { a: '1', z: '9' } }, 'editor');
    const r = apply(edited.object, cm({}), 'kubectl');
    expect(r.object.data).toEqual({ z: '9' });
    const err = conflictOf(() => apply(edited.object, cm({ a: '1', z: '0' }), 'kubectl'));
    expect(err.conflicts).toEqual([{ manager: 'editor', operation: 'Update', apiVersion: 'v1', path: '.data.z', rawPath: ['f:data', 'f:z'] }]);
  });

  it('a conflict the caller allows (kubectl upgrading from client-side apply) is taken over without force', () => {
    const live = update(null, cm({ a: '1', b: '1' }), 'kubectl-client-side-apply').object;
    const allowed = new FieldSet([['f:data', 'f:a']]);
    const r = applyConfig({
      live: withoutManaged(live),
      config: cm({ a: '2', b: '1' }),
      managers: managersOf(live),
      manager: 'kubectl',
      typeInfo: configMapType,
      now: NOW,
      apiVersion: 'v1',
      allowedConflicts: allowed,
    });
    expect(r.object.data).toEqual({ a: '2', b: '1' });
    // Only b is reported when it is not allowed.
    const err = conflictOf(() =>
      applyConfig({ live: withoutManaged(live), config: cm({ a: '2', b: '3' }), managers: new Managers(), manager: 'kubectl', typeInfo: configMapType, now: NOW, apiVersion: 'v1', allowedConflicts: new FieldSet() }),
    );
    expect(err.conflicts.map((c) => c.path)).toEqual(['.data.a', '.data.b']);
  });

  it('removing the last label leaves no empty labels map behind', () => {
    const first = apply(null, cm({ a: '1' }, { labels: { x: 'y' } }), 'kubectl');
    const second = apply(first.object, cm({ a: '1' }), 'kubectl');
    expect((second.object.metadata as Obj).labels).toBeUndefined();
  });

  it('refuses fields the schema does not declare', () => {
    expect(() => apply(null, { ...cm({ a: '1' }), dta: {} }, 'kubectl')).toThrow(UndeclaredFieldsError);
    expect(() => apply(null, { ...cm({ a: '1' }), dta: {} }, 'kubectl')).toThrow('.dta: field not declared in schema');
  });
});

function dep(spec: Obj): Obj {
  return { apiVersion: 'apps/v1', kind: 'X', metadata: { name: 'd' }, spec };
}
const applyDep = (live: Obj | null, spec: Obj, manager: string, force = false) => apply(live, dep(spec), manager, force, deploymentLikeType);

describe('applyConfig: list and map types', () => {
  it('map lists merge by key across managers; conflicts render with keys', () => {
    const a = applyDep(null, { containers: [{ name: 'nginx', image: 'nginx:1' }] }, 'alice');
    const b = applyDep(a.object, { containers: [{ name: 'sidecar', image: 's:1' }] }, 'bob');
    expect((b.object.spec as { containers: unknown[] }).containers).toEqual([
      { name: 'nginx', image: 'nginx:1' },
      { name: 'sidecar', image: 's:1' },
    ]);
    const err = conflictOf(() => applyDep(b.object, { containers: [{ name: 'nginx', image: 'nginx:2' }] }, 'bob'));
    expect(err.conflicts.map((c) => c.path)).toEqual(['.spec.containers[name="nginx"].image']);
    // Bob drops his sidecar: the item goes away, alice's stays.
    const c = applyDep(b.object, {}, 'bob');
    expect((c.object.spec as { containers: unknown[] }).containers).toEqual([{ name: 'nginx', image: 'nginx:1' }]);
  });

  it('an item that omits a defaulted key field is the item with the default (the one the server stored)', () => {
    // What controller-gen writes for container ports, and many CRDs for their own ports.
    const listeners = typeFromOpenAPI({
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            listeners: {
              type: 'array',
              'x-kubernetes-list-type': 'map',
              'x-kubernetes-list-map-keys': ['port', 'protocol'],
              items: { type: 'object', properties: { port: { type: 'integer' }, protocol: { type: 'string', default: 'TCP' }, host: { type: 'string' } } },
            },
          },
        },
      },
    });
    const t = withObjectMeta(listeners);
    const gw = (spec: Obj): Obj => ({ apiVersion: 'x.io/v1', kind: 'Gateway', metadata: { name: 'g', namespace: 'default' }, spec });
    const created = apply(null, gw({ listeners: [{ port: 80, host: 'a' }] }), 'alice', false, t);
    expect(created.managedFields[0]!.fieldsV1).toEqual({ 'f:spec': { 'f:listeners': { 'k:{"port":80,"protocol":"TCP"}': { '.': {}, 'f:host': {}, 'f:port': {} } } } });
    // The server defaulted protocol; alice re-applies a new host, then another port.
    const stored = { ...created.object, spec: { listeners: [{ port: 80, protocol: 'TCP', host: 'a' }] } };
    const again = apply(stored, gw({ listeners: [{ port: 80, host: 'a2' }] }), 'alice', false, t);
    expect(again.object.spec).toEqual({ listeners: [{ port: 80, protocol: 'TCP', host: 'a2' }] });
    const moved = apply(again.object, gw({ listeners: [{ port: 81 }] }), 'alice', false, t);
    expect(moved.object.spec).toEqual({ listeners: [{ port: 81 }] });
    // Another manager setting the same item's host conflicts with alice.
    const err = conflictOf(() => apply(again.object, gw({ listeners: [{ port: 80, protocol: 'TCP', host: 'b' }] }), 'bob', false, t));
    expect(err.conflicts.map((c) => c.path)).toEqual(['.spec.listeners[port=80,protocol="TCP"].host']);
  });

  it('an item another manager still has fields in stays, with its keys, when the applier drops it', () => {
    const a = applyDep(null, { containers: [{ name: 'c', image: 'i:1' }] }, 'alice');
    const b = applyDep(a.object, { containers: [{ name: 'c', args: ['x'] }] }, 'bob');
    const c = applyDep(b.object, {}, 'alice');
    expect((c.object.spec as { containers: unknown[] }).containers).toEqual([{ name: 'c', args: ['x'] }]);
  });

  it('the applied order wins for items it reorders; new items land where the configuration puts them', () => {
    const a = applyDep(null, { containers: [{ name: 'a' }, { name: 'b' }] }, 'alice');
    const b = applyDep(a.object, { containers: [{ name: 'b' }, { name: 'a' }] }, 'alice');
    expect((b.object.spec as { containers: Obj[] }).containers.map((c) => c.name)).toEqual(['b', 'a']);
    const c = applyDep(b.object, { containers: [{ name: 'new' }, { name: 'a' }] }, 'bob');
    expect((c.object.spec as { containers: Obj[] }).containers.map((c) => c.name)).toEqual(['b', 'new', 'a']);
  });

  it('set lists union; an applier removes only its own items', () => {
    const a = applyDep(null, { tags: ['a', 'b'] }, 'alice');
    const b = applyDep(a.object, { tags: ['b', 'c'] }, 'bob');
    expect((b.object.spec as { tags: string[] }).tags).toEqual(['a', 'b', 'c']);
    const c = applyDep(b.object, { tags: [] }, 'bob');
    expect((c.object.spec as { tags: string[] }).tags).toEqual(['a', 'b']);
  });

  it('atomic lists and maps are replaced and conflict as a whole', () => {
    const a = applyDep(null, { containers: [{ name: 'c', args: ['x', 'y'] }], selector: { a: '1', b: '2' } }, 'alice');
    const again = applyDep(a.object, { containers: [{ name: 'c', args: ['z'] }], selector: { c: '3' } }, 'alice');
    expect(again.object.spec).toEqual({ containers: [{ name: 'c', args: ['z'] }], selector: { c: '3' } });
    const err = conflictOf(() => applyDep(a.object, { selector: { a: '1' } }, 'bob'));
    expect(err.conflicts.map((c) => c.path)).toEqual(['.spec.selector']);
  });
});

describe('recordUpdate', () => {
  it('a create gives the manager every field, with the containers it created as nodes', () => {
    const { managedFields } = update(null, cm({ a: '1' }, { labels: { x: 'y' } }), 'kubectl-create');
    expect(managedFields).toEqual([
      {
        manager: 'kubectl-create',
        operation: 'Update',
        apiVersion: 'v1',
        time: NOW,
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { '.': {}, 'f:a': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:x': {} } } },
      },
    ]);
  });

  it('changed fields move to the updater; empty entries drop; removed fields leave everyone', () => {
    const created = apply(null, cm({ a: '1', b: '2' }), 'alice');
    const { managedFields } = update(created.object, cm({ a: 'changed' }), 'editor');
    expect(byManager(managedFields)).toEqual({ editor: { 'f:data': { 'f:a': {} } } });
  });

  it('an unchanged write changes nothing, not even a time; entries are per apiVersion and subresource', () => {
    const first = update(null, cm({ a: '1' }), 'm');
    expect(update(first.object, cm({ a: '1' }), 'other', { now: LATER }).managedFields).toEqual(first.managedFields);
    const v2 = update(first.object, cm({ a: '1', b: '2' }), 'm', { apiVersion: 'v2' });
    expect(v2.managedFields.map((m) => m.apiVersion)).toEqual(['v1', 'v2']);
    const sub = update(first.object, { ...cm({ a: '1' }), status: { ok: true } }, 'm', { subresource: 'status' });
    expect(sub.managedFields[1]).toMatchObject({ manager: 'm', subresource: 'status', fieldsV1: { 'f:status': { '.': {}, 'f:ok': {} } } });
  });

  it('more than ten Update managers fold the oldest into ancient-changes', () => {
    let obj: Obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } };
    for (let i = 0; i < 12; i++) {
      obj = update(obj, cm({ ...(obj.data as Record<string, string>), [`k${i}`]: 'v' }), `m${i}`, { now: `2026-01-01T00:00:${String(10 + i)}Z` }).object;
    }
    const mf = (obj.metadata as Obj).managedFields as ManagedFieldsEntry[];
    expect(mf).toHaveLength(10);
    expect(mf[0]).toMatchObject({ manager: 'ancient-changes', operation: 'Update', time: '2026-01-01T00:00:12Z' });
    expect(mf[0]!.fieldsV1).toEqual({ 'f:data': { '.': {}, 'f:k0': {}, 'f:k1': {}, 'f:k2': {} } });
  });

  it('stops decoding a fieldsV1 whose paths would hold more than the budget of path elements, before holding them', () => {
    // A chain 400 deep with 100 leaves at every level (440 KB): 40,000 paths of 200 elements on average, 8e6 in all;
    // decoding it took 6-9 s and 120-220 MB (live: a 660 KB PUT 7.5 s). The field manager then drops managedFields.
    let node: FieldsV1 = {};
    const comb = node;
    for (let depth = 0; depth < 400; depth++) {
      for (let leaf = 0; leaf < 100; leaf++) node[`f:s${leaf}`] = {};
      node = node['f:n'] = {};
    }
    const entry = (fieldsV1: FieldsV1) => ({ manager: 'm', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1 });
    let held = 0;
    const add = FieldSet.prototype.add;
    const spy = vi.spyOn(FieldSet.prototype, 'add').mockImplementation(function (this: FieldSet, path: string[]) {
      held += path.length;
      return add.call(this, path);
    });
    try {
      expect(() => withPathBudget(() => Managers.decode([entry(comb)]))).toThrow(FieldTrackingTooLarge);
    } finally {
      spy.mockRestore();
    }
    expect(held).toBeLessThanOrEqual(MAX_TRACKED_PATH_ELEMENTS + 400);
    // Every key of a 1.5 MB ConfigMap owned by ten managers is far inside it.
    const keys: FieldsV1 = {};
    for (let i = 0; i < 100_000; i++) keys[`f:k${i}`] = {};
    const owners = withPathBudget(() => Managers.decode(Array.from({ length: 10 }, (_, i) => ({ ...entry({ 'f:data': keys }), manager: `m${i}` }))));
    expect(owners?.size).toBe(10);
  });

  it('prunes thousands of dropped fields under thousands of owners in work linear in the fields', () => {
    // A stored ConfigMap with 8,000 Apply owners of one key each; its applier drops the 8,000 keys it set last time.
    // Pruning unioned the owners one by one (copying the union each time) and scanned the dropped set for every path
    // of the object: 15 s of the event loop in one process. Counted here as paths cloned and prefix comparisons.
    const n = 3_000;
    const data: Record<string, string> = {};
    const entries: ManagedFieldsEntry[] = [];
    const mine: FieldsV1 = {};
    for (let i = 0; i < n; i++) {
      data[`k${i}`] = 'v';
      data[`x${i}`] = 'v';
      mine[`f:x${i}`] = {};
      entries.push({ manager: `m${i}`, operation: 'Apply', apiVersion: 'v1', time: NOW, fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { [`f:k${i}`]: {} } } });
    }
    entries.push({ manager: 'me', operation: 'Apply', apiVersion: 'v1', time: NOW, fieldsType: 'FieldsV1', fieldsV1: { 'f:data': mine } });
    let copied = 0;
    let compared = 0;
    const clone = FieldSet.prototype.clone;
    const startsWith = String.prototype.startsWith;
    const spies = [
      vi.spyOn(FieldSet.prototype, 'clone').mockImplementation(function (this: FieldSet) {
        copied += this.size;
        return clone.call(this);
      }),
      vi.spyOn(String.prototype, 'startsWith').mockImplementation(function (this: string, ...args: [string, number?]) {
        compared++;
        return startsWith.apply(this, args);
      }),
    ];
    let result;
    try {
      result = applyConfig({
        live: cm(data),
        config: cm({ only: 'one' }),
        managers: Managers.decode(entries)!,
        manager: 'me',
        apiVersion: 'v1',
        now: LATER,
        typeInfo: configMapType,
      });
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    expect(Object.keys(result.object.data as object)).toHaveLength(n + 1);
    expect(result.object.data).not.toHaveProperty('x0');
    expect(copied + compared).toBeLessThanOrEqual(20 * n);
  });

  it('folds thousands of sent Update managers copying each path once, not once per manager', () => {
    // A hostile PUT sends 16,000 Update entries of one field each (2.6 MB): a union per folded manager copied the
    // bucket every time, 1.3e8 path copies that held the event loop 35 s. Counted here as paths cloned.
    const n = 4_000;
    const entries = Array.from({ length: n }, (_, i) => ({
      manager: `m${i}`,
      operation: 'Update',
      apiVersion: 'v1',
      time: new Date(Date.UTC(2020, 0, 1) + i * 60_000).toISOString().replace('.000', ''),
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:data': { [`f:k${i}`]: {} } },
    }));
    const managers = Managers.decode(entries)!;
    let copied = 0;
    const clone = FieldSet.prototype.clone;
    const spy = vi.spyOn(FieldSet.prototype, 'clone').mockImplementation(function (this: FieldSet) {
      copied += this.size;
      return clone.call(this);
    });
    try {
      const mf = managers.encode();
      expect(mf).toHaveLength(10);
      expect(mf[0]).toMatchObject({ manager: 'ancient-changes', time: entries[n - 10]!.time });
      expect(Object.keys((mf[0]!.fieldsV1 as Record<string, object>)['f:data']!)).toHaveLength(n - 9);
    } finally {
      spy.mockRestore();
    }
    expect(copied).toBeLessThanOrEqual(n);
  });
});
