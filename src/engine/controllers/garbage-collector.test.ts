/**
 * The collector inside the real generic store on an in-memory store: cascading deletion in all three modes,
 * dangling owners, logical-cluster isolation, repeated deletes, and work resumed by a collector started late (what a
 * restart looks like to it).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { configMaps, namespaces, secrets } from '../builtin/core/resources.js';
import { builtinResourceTypes } from '../builtin/index.js';
import { StaticCatalog } from '../registry/catalog.js';
import { GenericStore, type OpContext } from '../registry/generic-store.js';
import type { KubeObject, OwnerReference, ResourceType } from '../registry/types.js';
import { createMemoryStore } from '../storage/index.js';
import type { Store } from '../storage/store.js';
import type { Controller } from './controller.js';
import { garbageCollector } from './garbage-collector.js';
import { ownerIndexWriter } from './owner-index.js';
import { OwnerResolver } from './owner-references.js';
import { WriteAuthority } from '../admission/write-authority.js';

const running: Controller[] = [];
afterEach(() => {
  for (const gc of running.splice(0)) gc.stop();
});

function setup() {
  const store: Store = createMemoryStore();
  const catalog = new StaticCatalog(builtinResourceTypes(), 'test');
  const owners = new OwnerResolver(store, () => catalog);
  const generic = new GenericStore(store, namespaces, { authority: new WriteAuthority(), indexWriters: [ownerIndexWriter(store, owners)], garbageCollection: true });
  const errors: unknown[] = [];
  const collector = () => {
    const gc = garbageCollector({ store, generic, owners, onError: (_c, _k, err) => errors.push(err) });
    running.push(gc);
    return gc;
  };
  const ctx = (rt: ResourceType, cluster = 'c1', namespace = 'default'): OpContext => ({ rt, cluster, namespace });
  for (const cluster of ['c1', 'c2']) generic.create(ctx(namespaces, cluster, ''), { metadata: { name: 'default' } });
  const cm = (name: string, opts: { cluster?: string; owners?: OwnerReference[]; finalizers?: string[] } = {}) =>
    generic.create(ctx(configMaps, opts.cluster), {
      metadata: { name, ownerReferences: opts.owners, finalizers: opts.finalizers },
      data: { a: '1' },
    });
  const secret = (name: string, owners: OwnerReference[], cluster = 'c1') =>
    generic.create(ctx(secrets, cluster), { metadata: { name, ownerReferences: owners } });
  const exists = (rt: ResourceType, name: string, cluster = 'c1') => {
    try {
      return generic.get(ctx(rt, cluster), name);
    } catch {
      return undefined;
    }
  };
  const refTo = (owner: KubeObject, extra: Partial<OwnerReference> = {}): OwnerReference => ({
    apiVersion: owner.apiVersion!,
    kind: owner.kind!,
    name: owner.metadata!.name!,
    uid: owner.metadata!.uid!,
    ...extra,
  });
  const release = (name: string) => {
    const obj = generic.get(ctx(configMaps), name);
    generic.update(ctx(configMaps), name, { ...obj, metadata: { ...obj.metadata, finalizers: [] } });
  };
  return { store, generic, ctx, cm, secret, exists, refTo, release, collector, errors };
}

describe('garbage collector', () => {
  it('Background: the owner goes at once, then its dependents', async () => {
    const t = setup();
    const gc = t.collector();
    gc.start();
    const owner = t.cm('owner');
    t.cm('dep', { owners: [t.refTo(owner)] });
    t.secret('dep-secret', [t.refTo(owner)]);
    t.cm('unrelated');
    expect(t.generic.delete(t.ctx(configMaps), 'owner', { propagationPolicy: 'Background' }).removed).toBe(true);
    await gc.idle();
    expect(t.exists(configMaps, 'dep')).toBeUndefined();
    expect(t.exists(secrets, 'dep-secret')).toBeUndefined();
    expect(t.exists(configMaps, 'unrelated')).toBeDefined();
    expect(t.store.list('/kcpt/').items).toEqual([]);
    expect(t.errors).toEqual([]);
  });

  it('Foreground: the owner waits for blocking dependents only, then goes', async () => {
    const t = setup();
    const gc = t.collector();
    gc.start();
    const owner = t.cm('owner');
    t.cm('held', { owners: [t.refTo(owner, { blockOwnerDeletion: true })], finalizers: ['example.com/hold'] });
    t.cm('held-nonblocking', { owners: [t.refTo(owner)], finalizers: ['example.com/hold'] });
    t.cm('plain', { owners: [t.refTo(owner, { blockOwnerDeletion: true })] });
    const marked = t.generic.delete(t.ctx(configMaps), 'owner', { propagationPolicy: 'Foreground' });
    expect(marked.removed).toBe(false);
    expect(marked.object.metadata?.finalizers).toEqual(['foregroundDeletion']);
    await gc.idle();
    expect(t.exists(configMaps, 'plain')).toBeUndefined();
    expect(t.exists(configMaps, 'held')?.metadata?.deletionTimestamp).toBeDefined();
    expect(t.exists(configMaps, 'owner')?.metadata?.finalizers).toEqual(['foregroundDeletion']);
    // A dependent that arrives while its owner waits goes too.
    t.cm('late', { owners: [t.refTo(owner)] });
    await gc.idle();
    expect(t.exists(configMaps, 'late')).toBeUndefined();
    t.release('held');
    await gc.idle();
    expect(t.exists(configMaps, 'owner')).toBeUndefined();
    // Non-blocking dependents are deleted too, but nobody waits for them.
    expect(t.exists(configMaps, 'held-nonblocking')?.metadata?.deletionTimestamp).toBeDefined();
    t.release('held-nonblocking');
    await gc.idle();
    expect(t.store.list('/kcpt/').items).toEqual([]);
  });

  it('Foreground propagates down a chain: grandchildren first, the root last', async () => {
    const t = setup();
    const gc = t.collector();
    gc.start();
    const root = t.cm('root');
    const child = t.cm('child', { owners: [t.refTo(root, { blockOwnerDeletion: true })] });
    t.cm('grandchild', { owners: [t.refTo(child, { blockOwnerDeletion: true })], finalizers: ['example.com/hold'] });
    t.generic.delete(t.ctx(configMaps), 'root', { propagationPolicy: 'Foreground' });
    await gc.idle();
    expect(t.exists(configMaps, 'child')?.metadata?.finalizers).toEqual(['foregroundDeletion']);
    expect(t.exists(configMaps, 'root')).toBeDefined();
    t.release('grandchild');
    await gc.idle();
    expect(['root', 'child', 'grandchild'].map((n) => t.exists(configMaps, n))).toEqual([undefined, undefined, undefined]);
  });

  it('Orphan: dependents stay without the reference; other references are kept', async () => {
    const t = setup();
    const gc = t.collector();
    gc.start();
    const owner = t.cm('owner');
    const other = t.cm('other');
    t.cm('dep', { owners: [t.refTo(owner), t.refTo(other)] });
    t.cm('only', { owners: [t.refTo(owner, { blockOwnerDeletion: true })] });
    expect(t.generic.delete(t.ctx(configMaps), 'owner', { orphanDependents: true }).object.metadata?.finalizers).toEqual(['orphan']);
    await gc.idle();
    expect(t.exists(configMaps, 'owner')).toBeUndefined();
    expect(t.exists(configMaps, 'dep')?.metadata?.ownerReferences).toEqual([t.refTo(other)]);
    expect(t.exists(configMaps, 'only')?.metadata).not.toHaveProperty('ownerReferences');
  });

  it('dangling owners: all gone → collected; some gone → only those references removed', async () => {
    const t = setup();
    const gc = t.collector();
    gc.start();
    const live = t.cm('live');
    const ghost = { apiVersion: 'v1', kind: 'ConfigMap', name: 'ghost', uid: 'no-such-uid' };
    const wrongUid = { apiVersion: 'v1', kind: 'ConfigMap', name: 'live', uid: 'not-lives-uid' };
    t.cm('orphaned', { owners: [ghost] });
    t.cm('mismatch', { owners: [wrongUid] });
    t.cm('mixed', { owners: [ghost, t.refTo(live)] });
    // An owner of a kind nobody serves is never taken for gone.
    t.cm('unknown-kind', { owners: [{ apiVersion: 'example.com/v1', kind: 'Widget', name: 'w', uid: 'u' }] });
    await gc.idle();
    expect(t.exists(configMaps, 'orphaned')).toBeUndefined();
    expect(t.exists(configMaps, 'mismatch')).toBeUndefined();
    expect(t.exists(configMaps, 'mixed')?.metadata?.ownerReferences).toEqual([t.refTo(live)]);
    expect(t.exists(configMaps, 'unknown-kind')).toBeDefined();
    expect(t.store.list('/kcpt/gc/').items).toEqual([]);
  });

  it('never crosses logical clusters', async () => {
    const t = setup();
    const gc = t.collector();
    gc.start();
    const owner = t.cm('owner');
    t.cm('dep', { owners: [t.refTo(owner)] });
    const twin = t.cm('owner', { cluster: 'c2' });
    t.cm('dep', { cluster: 'c2', owners: [t.refTo(twin)] });
    t.generic.delete(t.ctx(configMaps), 'owner');
    await gc.idle();
    expect(t.exists(configMaps, 'dep')).toBeUndefined();
    expect(t.exists(configMaps, 'dep', 'c2')).toBeDefined();
    expect(t.exists(configMaps, 'owner', 'c2')).toBeDefined();
  });

  it('a repeated DELETE swaps the GC finalizer; dropping the only one deletes at once', async () => {
    const t = setup();
    t.cm('owner', { finalizers: ['example.com/hold'] });
    const del = (opts: object) => t.generic.delete(t.ctx(configMaps), 'owner', opts);
    expect(del({ propagationPolicy: 'Foreground' }).object.metadata?.finalizers).toEqual(['example.com/hold', 'foregroundDeletion']);
    expect(del({ propagationPolicy: 'Orphan' }).object.metadata?.finalizers).toEqual(['example.com/hold', 'orphan']);
    expect(del({ propagationPolicy: 'Background' }).object.metadata?.finalizers).toEqual(['example.com/hold']);
    const other = t.cm('other');
    t.generic.delete(t.ctx(configMaps), 'other', { propagationPolicy: 'Orphan' });
    expect(t.exists(configMaps, 'other')?.metadata?.finalizers).toEqual(['orphan']);
    expect(t.generic.delete(t.ctx(configMaps), 'other', { propagationPolicy: 'Background' }).removed).toBe(true);
    expect(t.exists(configMaps, 'other')).toBeUndefined();
    expect(t.store.get(`/kcpt/deleting/core/configmaps/c1/default/other`)).toBeUndefined();
    expect(other.metadata?.uid).toBeDefined();
  });

  it('without a collector the store adds no GC finalizers', () => {
    const store = createMemoryStore();
    const generic = new GenericStore(store, namespaces, { authority: new WriteAuthority() });
    generic.create({ rt: namespaces, cluster: 'c1', namespace: '' }, { metadata: { name: 'default' } });
    generic.create({ rt: configMaps, cluster: 'c1', namespace: 'default' }, { metadata: { name: 'x' } });
    expect(generic.delete({ rt: configMaps, cluster: 'c1', namespace: 'default' }, 'x', { propagationPolicy: 'Foreground' }).removed).toBe(
      true,
    );
  });

  it('a namespace deleted in the foreground loses foregroundDeletion and still waits for its own finalizer', async () => {
    const t = setup();
    const gc = t.collector();
    gc.start();
    const nsCtx = t.ctx(namespaces, 'c1', '');
    t.generic.create(nsCtx, { metadata: { name: 'team' } });
    expect(t.generic.delete(nsCtx, 'team', { propagationPolicy: 'Foreground' }).object.metadata?.finalizers).toEqual(['foregroundDeletion']);
    await gc.idle();
    const ns = t.generic.get(nsCtx, 'team');
    expect(ns.metadata?.finalizers).toBeUndefined();
    expect(ns.status).toEqual({ phase: 'Terminating' });
    t.generic.update(nsCtx, 'team', { ...ns, spec: { finalizers: [] } }, { subresource: 'finalize' });
    expect(() => t.generic.get(nsCtx, 'team')).toThrow(/not found/);
  });

  it('resumes work left over when it was not running (a restart)', async () => {
    const t = setup();
    const a = t.cm('a');
    t.cm('a-dep', { owners: [t.refTo(a)] });
    const b = t.cm('b');
    t.cm('b-dep', { owners: [t.refTo(b, { blockOwnerDeletion: true })] });
    const c = t.cm('c');
    t.cm('c-dep', { owners: [t.refTo(c)] });
    t.cm('ghost-dep', { owners: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'ghost', uid: 'gone' }] });
    t.generic.delete(t.ctx(configMaps), 'a', { propagationPolicy: 'Background' });
    t.generic.delete(t.ctx(configMaps), 'b', { propagationPolicy: 'Foreground' });
    t.generic.delete(t.ctx(configMaps), 'c', { propagationPolicy: 'Orphan' });
    expect(t.exists(configMaps, 'a-dep')).toBeDefined();
    expect(t.exists(configMaps, 'b')).toBeDefined();
    const gc = t.collector();
    gc.start();
    await gc.idle();
    expect(['a-dep', 'b', 'b-dep', 'c', 'ghost-dep'].map((n) => t.exists(configMaps, n))).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(t.exists(configMaps, 'c-dep')?.metadata).not.toHaveProperty('ownerReferences');
    expect(t.store.list('/kcpt/').items).toEqual([]);
  });

  it('keeps the owner index in step with ownerReferences edits', () => {
    const t = setup();
    const owner = t.cm('owner');
    const dep = t.cm('dep', { owners: [t.refTo(owner)] });
    const uid = owner.metadata!.uid!;
    const keys = () => t.store.list('/kcpt/owners/').items.map((kv) => kv.key);
    expect(keys()).toEqual([`/kcpt/owners/c1/${uid}/n/core/configmaps/c1/default/dep`]);
    const blocking = t.generic.update(t.ctx(configMaps), 'dep', {
      ...dep,
      metadata: { ...dep.metadata, ownerReferences: [t.refTo(owner, { blockOwnerDeletion: true })] },
    });
    expect(keys()).toEqual([`/kcpt/owners/c1/${uid}/b/core/configmaps/c1/default/dep`]);
    t.generic.update(t.ctx(configMaps), 'dep', { ...blocking, metadata: { ...blocking.metadata, ownerReferences: [] } });
    expect(keys()).toEqual([]);
  });
});
