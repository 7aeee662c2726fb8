import { describe, expect, it } from 'vitest';
import { ApplyConflictError, applyObject, recordUpdate, type ManagedFieldsEntry } from './apply.js';
import { withObjectMeta, type TypeNode } from './type-info.js';

const NOW = '2026-01-01T00:00:00Z';
const cmType = withObjectMeta(undefined);

function cm(data: Record<string, string>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'default', ...extra }, data };
}

function apply(live: Record<string, unknown> | null, applied: Record<string, unknown>, manager: string, force = false, typeInfo: TypeNode = cmType) {
  return applyObject({ live, applied, manager, typeInfo, force, now: NOW, apiVersion: 'v1' });
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

describe('applyObject: create and ownership', () => {
  it('creates an object with one Apply entry', () => {
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
    expect((r.object.metadata as Record<string, unknown>).managedFields).toEqual(r.managedFields);
    expect((r.object.metadata as Record<string, unknown>).name).toBe('x');
  });

  it('re-applying replaces the entry with exactly the applied fields', () => {
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

  it('different value is a conflict; force moves ownership', () => {
    const first = apply(null, cm({ a: '1', b: '1' }), 'alice');
    const err = conflictOf(() => apply(first.object, cm({ a: '2', b: '1' }), 'bob'));
    expect(err.conflicts).toEqual([{ manager: 'alice', operation: 'Apply', apiVersion: 'v1', path: '.data.a', rawPath: ['f:data', 'f:a'] }]);
    const forced = apply(first.object, cm({ a: '2', b: '1' }), 'bob', true);
    expect(forced.object.data).toEqual({ a: '2', b: '1' });
    const byMgr = Object.fromEntries(forced.managedFields.map((m) => [m.manager, m.fieldsV1]));
    expect(byMgr).toEqual({ alice: { 'f:data': { 'f:b': {} } }, bob: { 'f:data': { 'f:a': {}, 'f:b': {} } } });
  });

  it('attributes unmanaged objects to before-first-apply and conflicts with it', () => {
    const live = cm({ a: '1' });
    const err = conflictOf(() => apply(live, cm({ a: '2' }), 'kubectl'));
    expect(err.conflicts[0]).toMatchObject({ manager: 'before-first-apply', operation: 'Update', path: '.data.a' });
    const ok = apply(live, cm({ a: '1', b: '2' }), 'kubectl');
    expect(ok.managedFields.map((m) => [m.manager, m.operation])).toEqual([
      ['before-first-apply', 'Update'],
      ['kubectl', 'Apply'],
    ]);
  });

  it('fields owned by an Update manager survive when the applier omits them', () => {
    const created = apply(null, cm({ a: '1' }), 'kubectl');
    const updated: Record<string, unknown> = { ...created.object, data: { a: '1', z: '9' } };
    const mf = recordUpdate({ old: created.object, updated, manager: 'editor', typeInfo: cmType, now: NOW, apiVersion: 'v1' });
    const live = { ...updated, metadata: { ...(updated.metadata as object), managedFields: mf } };
    const r = apply(live, cm({}), 'kubectl');
    expect(r.object.data).toEqual({ z: '9' });
    const err = conflictOf(() => apply(live, cm({ a: '1', z: '0' }), 'kubectl'));
    expect(err.conflicts).toEqual([{ manager: 'editor', operation: 'Update', apiVersion: 'v1', path: '.data.z', rawPath: ['f:data', 'f:z'] }]);
  });
});

const depType: TypeNode = withObjectMeta({
  kind: 'struct',
  fields: {
    spec: {
      kind: 'struct',
      fields: {
        containers: {
          kind: 'list',
          listType: 'map',
          keys: ['name'],
          elem: { kind: 'struct', fields: { args: { kind: 'list', listType: 'atomic' } } },
        },
        tags: { kind: 'list', listType: 'set' },
        selector: { kind: 'map', mapType: 'atomic' },
      },
    },
  },
});

function dep(spec: Record<string, unknown>): Record<string, unknown> {
  return { apiVersion: 'apps/v1', kind: 'X', metadata: { name: 'd' }, spec };
}

describe('applyObject: list and map types', () => {
  it('map lists merge by key across managers; conflicts render with keys', () => {
    const a = apply(null, dep({ containers: [{ name: 'nginx', image: 'nginx:1' }] }), 'alice', false, depType);
    const b = apply(a.object, dep({ containers: [{ name: 'sidecar', image: 's:1' }] }), 'bob', false, depType);
    expect((b.object.spec as { containers: unknown[] }).containers).toEqual([
      { name: 'nginx', image: 'nginx:1' },
      { name: 'sidecar', image: 's:1' },
    ]);
    const err = conflictOf(() => apply(b.object, dep({ containers: [{ name: 'nginx', image: 'nginx:2' }] }), 'bob', false, depType));
    expect(err.conflicts.map((c) => c.path)).toEqual(['.spec.containers[name="nginx"].image']);
    // Bob drops his sidecar: the item goes away, alice's stays.
    const c = apply(b.object, dep({}), 'bob', false, depType);
    expect((c.object.spec as { containers: unknown[] }).containers).toEqual([{ name: 'nginx', image: 'nginx:1' }]);
  });

  it('set lists union; removal only of own items', () => {
    const a = apply(null, dep({ tags: ['a', 'b'] }), 'alice', false, depType);
    const b = apply(a.object, dep({ tags: ['b', 'c'] }), 'bob', false, depType);
    expect((b.object.spec as { tags: string[] }).tags).toEqual(['a', 'b', 'c']);
    const c = apply(b.object, dep({ tags: [] }), 'bob', false, depType);
    expect((c.object.spec as { tags: string[] }).tags).toEqual(['a', 'b']);
  });

  it('atomic lists and maps are replaced and conflict as a whole', () => {
    const a = apply(null, dep({ containers: [{ name: 'c', args: ['x', 'y'] }], selector: { a: '1', b: '2' } }), 'alice', false, depType);
    const again = apply(a.object, dep({ containers: [{ name: 'c', args: ['z'] }], selector: { c: '3' } }), 'alice', false, depType);
    expect(again.object.spec).toEqual({ containers: [{ name: 'c', args: ['z'] }], selector: { c: '3' } });
    const err = conflictOf(() => apply(a.object, dep({ selector: { a: '1' } }), 'bob', false, depType));
    expect(err.conflicts.map((c) => c.path)).toEqual(['.spec.selector']);
  });
});

describe('recordUpdate', () => {
  it('create gives the manager every field, with map nodes', () => {
    const mf = recordUpdate({ old: null, updated: cm({ a: '1' }, { labels: { x: 'y' } }), manager: 'kubectl-create', typeInfo: cmType, now: NOW, apiVersion: 'v1' });
    expect(mf).toEqual([
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
    const updated = cm({ a: 'changed' });
    const mf = recordUpdate({ old: created.object, updated, manager: 'editor', typeInfo: cmType, now: NOW, apiVersion: 'v1' });
    const byMgr = Object.fromEntries(mf.map((m: ManagedFieldsEntry) => [m.manager, m.fieldsV1]));
    expect(byMgr).toEqual({ editor: { 'f:data': { 'f:a': {} } } });
  });

  it('unchanged writes add nothing; entries are per apiVersion for Update', () => {
    const base = cm({ a: '1' });
    const mf1 = recordUpdate({ old: null, updated: base, manager: 'm', typeInfo: cmType, now: NOW, apiVersion: 'v1' });
    const live = { ...base, metadata: { ...(base.metadata as object), managedFields: mf1 } };
    expect(recordUpdate({ old: live, updated: base, manager: 'other', typeInfo: cmType, now: NOW, apiVersion: 'v1' })).toEqual(mf1);
    const mf2 = recordUpdate({ old: live, updated: cm({ a: '1', b: '2' }), manager: 'm', typeInfo: cmType, now: NOW, apiVersion: 'v2' });
    expect(mf2.map((m) => m.apiVersion)).toEqual(['v1', 'v2']);
    const sub = recordUpdate({ old: live, updated: { ...base, status: { ok: true } }, manager: 'm', typeInfo: cmType, now: NOW, apiVersion: 'v1', subresource: 'status' });
    expect(sub[1]).toMatchObject({ manager: 'm', subresource: 'status', fieldsV1: { 'f:status': { '.': {}, 'f:ok': {} } } });
  });
});
