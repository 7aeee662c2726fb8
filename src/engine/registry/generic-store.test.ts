/** Generic-store rules that hold for every kind, checked on a small custom resource type in a memory store. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { customResourceTypes } from '../apiextensions/cr-types.js';
import type { CustomResourceDefinition } from '../apiextensions/crd.js';
import { configMaps, namespaces } from '../builtin/core/resources.js';
import { createMemoryStore, openSqliteStore } from '../storage/index.js';
import { hasKeys } from '../storage/store.js';
import { GenericStore, WriteBatch, type OpContext } from './generic-store.js';
import { FieldManager } from './field-manager.js';
import { rng } from '../../../test/helpers/seeded-random.js';
import { decodeStored, spliceResourceVersion } from './stored-object.js';
import { WriteAuthority } from '../admission/write-authority.js';
import { tenancyResourceType } from '../tenancy/crds.js';
import type { KubeObject } from './types.js';

const crd = {
  metadata: { name: 'things.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Cluster',
    names: { plural: 'things', singular: 'thing', kind: 'Thing', listKind: 'ThingList' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
  },
  status: { acceptedNames: { plural: 'things', singular: 'thing', kind: 'Thing', listKind: 'ThingList' } },
} as unknown as CustomResourceDefinition;

const thing = customResourceTypes(crd)[0]!;

/** `<code> <message>` of what `fn` throws, or 'accepted'. */
function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    return `${(err as { code?: number }).code} ${(err as Error).message}`;
  }
  return 'accepted';
}

function setup() {
  const generic = new GenericStore(createMemoryStore(), namespaces, { authority: new WriteAuthority() });
  const ctx: OpContext = { rt: thing, cluster: 'c1', namespace: '' };
  return { generic, ctx };
}

describe('GenericStore.delete of an object held by a finalizer', () => {
  it('marks it as kube’s markAsDeleting does: generation bumped once, grace period 0 whatever was asked', () => {
    const { generic, ctx } = setup();
    generic.create(ctx, { apiVersion: 'example.com/v1', kind: 'Thing', metadata: { name: 'x', finalizers: ['example.com/hold'] }, spec: { a: 1 } });
    const first = generic.delete(ctx, 'x', { gracePeriodSeconds: 30 });
    expect(first.removed).toBe(false);
    expect(first.object.metadata).toMatchObject({ generation: 2, deletionGracePeriodSeconds: 0 });
    expect(first.object.metadata!.deletionTimestamp).toMatch(/Z$/);
    const again = generic.delete(ctx, 'x');
    expect(again.object.metadata?.generation).toBe(2);
  });
});

describe('GenericStore.delete handed the stored row and object (a deleter that has just read them)', () => {
  const held = { apiVersion: 'example.com/v1', kind: 'Thing', metadata: { name: 'x', finalizers: ['example.com/hold'], labels: { a: 'b' } }, spec: { a: 1 } };
  /** A held Thing, its stored row and the object as served, and a watch of what is written. */
  function stored() {
    const { generic, ctx } = setup();
    generic.create(ctx, held);
    const row = generic.getRaw(ctx, 'x');
    const object = generic.get(ctx, 'x');
    return { generic, ctx, row, object, served: JSON.stringify(object) };
  }
  // `alsoOnMark` as the tree deleter's showDeleting writes it: metadata and status replaced, not edited.
  const showGone = (marked: KubeObject) => {
    marked.metadata = { ...marked.metadata, labels: { ...marked.metadata?.labels, phase: 'Deleting' } };
    marked.status = { phase: 'Deleting' };
  };

  it('parses nothing, leaves the handed object as it was, and stores the same mark as a delete that reads the row itself', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(new Date('2026-11-29T11:00:00Z'));
      const read = stored();
      read.generic.delete(read.ctx, 'x', { alsoOnMark: showGone });
      const handed = stored();
      const parse = vi.spyOn(JSON, 'parse');
      const result = handed.generic.delete(handed.ctx, 'x', { current: { row: handed.row, object: handed.object }, alsoOnMark: showGone });
      expect(parse).not.toHaveBeenCalled();
      parse.mockRestore();
      expect(JSON.stringify(handed.object)).toBe(handed.served);
      expect(result.object.metadata?.labels).toEqual({ a: 'b', phase: 'Deleting' });
      const withoutUid = (value: string) => value.replace(/"uid":"[^"]+"/, '"uid":"<uid>"');
      expect(withoutUid(handed.generic.getRaw(handed.ctx, 'x').value)).toBe(withoutUid(read.generic.getRaw(read.ctx, 'x').value));
    } finally {
      vi.useRealTimers();
    }
  });

  it('answers the mark with its own resourceVersion, also when the mark replaced the metadata', () => {
    const { generic, ctx } = stored();
    const direct = generic.delete(ctx, 'x', { alsoOnMark: showGone });
    expect(direct.object.metadata?.resourceVersion).toBe(String(generic.getRaw(ctx, 'x').revision));
    const again = stored();
    const batch = new WriteBatch();
    const batched = again.generic.delete(again.ctx, 'x', { batch, current: { row: again.row, object: again.object }, alsoOnMark: showGone });
    again.generic.commitBatch(batch);
    expect(batched.object.metadata?.resourceVersion).toBe(String(again.generic.getRaw(again.ctx, 'x').revision));
  });

  it('reads the row itself when the one handed is another object’s', () => {
    const { generic, ctx, row, object } = stored();
    generic.create(ctx, { ...held, metadata: { name: 'y' } });
    const result = generic.delete(ctx, 'y', { current: { row, object } });
    expect(result).toMatchObject({ removed: true, object: { metadata: { name: 'y' } } });
    expect(generic.getRaw(ctx, 'x').revision).toBe(row.revision);
  });
});

describe('GenericStore field ownership', () => {
  it('records the writer of a create and an update, and leaves the server’s own writes to “kcpt”', () => {
    const { generic, ctx } = setup();
    generic.create(ctx, { apiVersion: 'example.com/v1', kind: 'Thing', metadata: { name: 'y' }, spec: { a: 1 } }, { fieldManager: 'maker' });
    const current = generic.get(ctx, 'y');
    generic.update(ctx, 'y', { ...current, spec: { a: 1, b: 2 } }, { fieldManager: 'editor' });
    generic.update(ctx, 'y', { ...generic.get(ctx, 'y'), spec: { a: 1, b: 2, c: 3 } });
    const entries = generic.get(ctx, 'y').metadata!.managedFields as { manager: string; fieldsV1: unknown }[];
    expect(Object.fromEntries(entries.map((m) => [m.manager, m.fieldsV1]))).toEqual({
      maker: { 'f:spec': { '.': {}, 'f:a': {} } },
      editor: { 'f:spec': { 'f:b': {} } },
      kcpt: { 'f:spec': { 'f:c': {} } },
    });
  });
});

describe('GenericStore field ownership of creates (computed once per shape)', () => {
  type Entry = { manager: string; time: string; fieldsV1: Record<string, unknown> };
  const entryOf = (obj: KubeObject) => (obj.metadata!.managedFields as Entry[])[0]!;

  it('gives each create the fields of its own object, whatever shapes came before', () => {
    const { generic, ctx } = setup();
    const create = (name: string, metadata: Record<string, unknown>) =>
      entryOf(generic.create(ctx, { apiVersion: 'example.com/v1', kind: 'Thing', metadata: { name, ...metadata }, spec: { a: 1 } }, { fieldManager: 'maker' })).fieldsV1;
    const bare = { 'f:spec': { '.': {}, 'f:a': {} } };
    // The server's kcp.io/cluster annotation is nobody's field: an object with no other annotation owns none.
    expect(create('a', {})).toEqual(bare);
    expect(create('b', { annotations: { note: 'x' } })).toEqual({ ...bare, 'f:metadata': { 'f:annotations': { '.': {}, 'f:note': {} } } });
    expect(create('c', { annotations: { 'kcp.io/cluster': 'spoofed' } })).toEqual(bare);
    expect(create('d', {})).toEqual(bare);
    expect(create('e', { labels: { app: 'x' }, annotations: { note: 'y' } })).toEqual({
      ...bare,
      'f:metadata': { 'f:annotations': { '.': {}, 'f:note': {} }, 'f:labels': { '.': {}, 'f:app': {} } },
    });
    // managedFields a client sends are not a field of the object: the shape is that of the rest.
    expect(create('f', { managedFields: undefined, annotations: { note: 'z' } })).toEqual({ ...bare, 'f:metadata': { 'f:annotations': { '.': {}, 'f:note': {} } } });
  });

  it('tells apart shapes whose keys hold the characters the shape key is written with', () => {
    const { generic, ctx } = setup();
    const owned = (name: string, spec: Record<string, unknown>) =>
      Object.keys((entryOf(generic.create(ctx, { apiVersion: 'example.com/v1', kind: 'Thing', metadata: { name }, spec }, { fieldManager: 'maker' })).fieldsV1['f:spec'] as object)).sort();
    // Each pair reads alike to a shape key that does not delimit its keys: written bare (`a0b0`), or with a colon
    // and a comma (`a:0,b:0,`), or a map's brackets inside a key.
    expect(owned('a', { a: 1, b: 1 })).toEqual(['.', 'f:a', 'f:b']);
    expect(owned('b', { a0b: 1 })).toEqual(['.', 'f:a0b']);
    expect(owned('c', { 'a:0,b': 1 })).toEqual(['.', 'f:a:0,b']);
    expect(owned('d', { x: { y: 1 } })).toEqual(['.', 'f:x']);
    expect(owned('e', { 'x{y0}': 1 })).toEqual(['.', 'f:x{y0}']);
    expect(owned('f', { '1:a01:b': 1 })).toEqual(['.', 'f:1:a01:b']);
  });

  it('stamps each create with its own time, its entry keyed as storage keeps it (what a GET answers)', () => {
    vi.useFakeTimers({ now: new Date('2026-03-01T10:00:00Z'), toFake: ['Date'] });
    try {
      const { generic, ctx } = setup();
      const first = generic.create(ctx, { apiVersion: 'example.com/v1', kind: 'Thing', metadata: { name: 'a' }, spec: { a: 1 } });
      vi.setSystemTime(new Date('2026-03-01T10:00:05Z'));
      const second = generic.create(ctx, { apiVersion: 'example.com/v1', kind: 'Thing', metadata: { name: 'b' }, spec: { a: 2 } });
      expect([entryOf(first).time, entryOf(second).time]).toEqual(['2026-03-01T10:00:00Z', '2026-03-01T10:00:05Z']);
      expect(Object.keys(entryOf(second))).toEqual(['apiVersion', 'fieldsType', 'fieldsV1', 'manager', 'operation', 'time']);
      expect(generic.get(ctx, 'b').metadata!.managedFields).toEqual(second.metadata!.managedFields);
      expect(Object.keys(entryOf(generic.get(ctx, 'b')))).toEqual(Object.keys(entryOf(second)));
    } finally {
      vi.useRealTimers();
    }
  });

  // The shape key writes each map key as `<length>:<key>`. Keys made of that encoding's own characters (digits,
  // colons, the brackets and the one-letter value marks) must never make two shapes read alike: a create of one
  // shape would be stamped with fields another shape owns (a tenant's object recording fields it does not have).
  const keys = ['', '0', '1', ':', '1:', '1:a', '1:0', 'a', 'b', ',', 'a:0,b', 'a0', 'a0b', '0a', '{', '}', '{b0}', 'u', 'a:0', '0,b'];

  function generate(random: () => number, depth: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const n = Math.floor(random() * 4);
    for (let i = 0; i < n; i++) {
      const key = keys[Math.floor(random() * keys.length)]!;
      const r = random();
      out[key] = depth > 0 && r < 0.25 ? generate(random, depth - 1) : r < 0.3 ? [Math.floor(random() * 2)] : r < 0.35 ? null : 1;
    }
    return out;
  }

  const created = (manager: FieldManager, obj: KubeObject) => {
    const copy = structuredClone(obj);
    manager.recordWrite(thing, undefined, copy, { manager: 'maker' });
    return (copy.metadata!.managedFields as { fieldsV1: unknown }[]).map((e) => e.fieldsV1);
  };

  it('gives every create the fields a fresh computation gives it, over thousands of shapes built from the encoding’s own characters (fails with keys written bare, or as key:value,)', () => {
    const seed = 1129;
    const random = rng(seed);
    const cached = new FieldManager();
    const differ: string[] = [];
    let hits = 0;
    const seen = new Set<string>();
    for (let i = 0; i < 6000; i++) {
      const obj: KubeObject = { apiVersion: 'example.com/v1', kind: 'Thing', metadata: { name: 'x' }, spec: generate(random, 2) };
      if (random() < 0.3) obj.metadata!.annotations = generate(random, 0) as Record<string, string>;
      if (random() < 0.3) obj.metadata!.labels = generate(random, 0) as Record<string, string>;
      const text = JSON.stringify(obj);
      if (seen.has(text)) hits++;
      seen.add(text);
      const got = created(cached, obj);
      if (JSON.stringify(got) !== JSON.stringify(created(new FieldManager(), obj))) differ.push(text);
    }
    expect(differ.slice(0, 3)).toEqual([]);
    // Shapes repeat (the cache is exercised), and most are new (there are collisions to find).
    expect(hits).toBeGreaterThan(50);
    expect(seen.size).toBeGreaterThan(2000);
  });
});

describe('GenericStore.foldIntoCreatesOf', () => {
  it('folds the follow-up update into the create: one commit, ADDED then MODIFIED, index keys of the final state', () => {
    const store = createMemoryStore();
    // A marker while the object has no phase, as the workspace controller's pending marker.
    const marker = (key: string) => `/markers${key}`;
    const generic = new GenericStore(store, namespaces, { authority: new WriteAuthority(),
      indexWriters: [
        (key, before, after) => {
          const pending = after !== undefined && !after.metadata?.labels?.phase;
          if (pending && !before) return [{ type: 'create', key: marker(key), value: '{}', unlogged: true }];
          if (!pending && before && store.get(marker(key))) return [{ type: 'delete', key: marker(key), unlogged: true }];
          return [];
        },
      ],
    });
    const ctx: OpContext = { rt: thing, cluster: 'c1', namespace: '' };
    generic.foldIntoCreatesOf(thing, (created, row) => {
      const batch = new WriteBatch();
      const next = { ...created, metadata: { ...created.metadata, labels: { phase: 'Ready' } } };
      generic.update(ctx, created.metadata!.name!, next, { batch, current: { row, object: created } });
      return batch;
    });
    const seen: string[] = [];
    store.watch('/', store.currentRevision(), (events) => seen.push(...events.map((e) => `${e.type} ${e.revision} ${JSON.parse(e.value).metadata.labels?.phase ?? '-'}`)));
    const before = store.currentRevision();
    const created = generic.create(ctx, { apiVersion: 'example.com/v1', kind: 'Thing', metadata: { name: 'z' } });
    // The client is answered with the object as created, at the revision of its ADDED.
    expect(created.metadata?.labels).toBeUndefined();
    expect(created.metadata?.resourceVersion).toBe(String(before + 1));
    expect(seen).toEqual([`ADDED ${before + 1} -`, `MODIFIED ${before + 2} Ready`]);
    expect(generic.get(ctx, 'z').metadata).toMatchObject({ labels: { phase: 'Ready' }, resourceVersion: String(before + 2) });
    // The marker a create without the follow-up would write is not left behind.
    expect(store.list('/markers/').items).toEqual([]);
  });
});

describe('GenericStore object size limit', () => {
  // Found by the fuzzer: a 2 MiB custom resource was stored (etcd would refuse it; kube passes that on as a 500).
  it('refuses a create or update whose stored JSON is over 1.5 MiB with 413, and stores nothing', () => {
    const { generic, ctx } = setup();
    const big = 'x'.repeat(1.5 * 1024 * 1024);
    expect(refusal(() => generic.create(ctx, { apiVersion: 'example.com/v1', kind: 'Thing', metadata: { name: 'big' }, spec: { big } }))).toMatch(
      /^413 Request entity too large: things.example.com "big" is \d+ bytes when stored, limit is 1572864/,
    );
    expect(() => generic.get(ctx, 'big')).toThrow(/not found/);
    generic.create(ctx, { apiVersion: 'example.com/v1', kind: 'Thing', metadata: { name: 'small' }, spec: { a: 1 } });
    const current = generic.get(ctx, 'small');
    expect(refusal(() => generic.update(ctx, 'small', { ...current, spec: { big } }))).toMatch(/^413 /);
    expect(generic.get(ctx, 'small').metadata!.resourceVersion).toBe(current.metadata!.resourceVersion);
    // Just under the limit is fine.
    expect(refusal(() => generic.update(ctx, 'small', { ...current, spec: { big: big.slice(0, 1024 * 1024) } }))).toBe('accepted');
  });
});

describe('GenericStore.delete of a protected namespace', () => {
  it('refuses everyone but the removal of the whole logical cluster, which marks it while something stays in it', () => {
    const generic = new GenericStore(createMemoryStore(), namespaces, { authority: new WriteAuthority() });
    const nsCtx: OpContext = { rt: namespaces, cluster: 'c1', namespace: '' };
    generic.create(nsCtx, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' }, spec: { finalizers: ['kubernetes'] } });
    expect(refusal(() => generic.delete(nsCtx, 'default'))).toBe('403 namespaces "default" is forbidden: this namespace may not be deleted');
    const marked = generic.delete(nsCtx, 'default', { clusterDeletion: true });
    expect([marked.removed, Boolean(marked.object.metadata!.deletionTimestamp), (marked.object.status as { phase?: string }).phase]).toEqual([false, true, 'Terminating']);
  });
});

describe('GenericStore create in a namespace', () => {
  const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: 'b' } });

  it('refuses new content in a namespace being deleted, and only then (a "deletionTimestamp" annotation is not a deletion)', () => {
    const generic = new GenericStore(createMemoryStore(), namespaces, { authority: new WriteAuthority() });
    const nsCtx: OpContext = { rt: namespaces, cluster: 'c1', namespace: '' };
    generic.create(nsCtx, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'lookalike', annotations: { deletionTimestamp: 'x' } } });
    generic.create(nsCtx, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'going', finalizers: ['example.com/hold'] } });
    expect(generic.delete(nsCtx, 'going').removed).toBe(false);
    expect(refusal(() => generic.create({ rt: configMaps, cluster: 'c1', namespace: 'lookalike' }, cm('a')))).toBe('accepted');
    expect(refusal(() => generic.create({ rt: configMaps, cluster: 'c1', namespace: 'going' }, cm('b')))).toBe(
      '403 configmaps is forbidden: unable to create new content in namespace going because it is being terminated',
    );
    expect(refusal(() => generic.create({ rt: configMaps, cluster: 'c1', namespace: 'absent' }, cm('c')))).toMatch(/^404 /);
  });

  it('hands back the bytes it stored: with the revision spliced in they read as the object created, as a GET answers', () => {
    const generic = new GenericStore(createMemoryStore(), namespaces, { authority: new WriteAuthority() });
    generic.create({ rt: namespaces, cluster: 'c1', namespace: '' }, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns' } });
    const ctx: OpContext = { rt: configMaps, cluster: 'c1', namespace: 'ns' };
    const { object, stored } = generic.createStored(ctx, { ...cm('d'), metadata: { name: 'd', labels: { z: '1', a: '2' } } });
    const answer = spliceResourceVersion(stored!, Number(object.metadata!.resourceVersion));
    expect(JSON.parse(answer)).toEqual(object);
    const row = generic.getRaw(ctx, 'd');
    expect(answer).toBe(spliceResourceVersion(row.value, row.revision));
    expect(generic.createStored(ctx, cm('e'), { dryRun: true }).stored).toBeUndefined();
  });
});

describe('GenericStore.update settled (a settler updating the object its create stores)', () => {
  const workspaces = tenancyResourceType('workspaces');
  const ctx: OpContext = { rt: workspaces, cluster: 'root', namespace: '' };
  const comparable = (text: string) =>
    text.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uid>').replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/g, '<time>');
  // What scheduling adds to a Workspace just created (workspace-scheduler.ts): phase, cluster, URL, conditions.
  const scheduled = (ws: KubeObject): KubeObject => ({
    ...ws,
    metadata: {
      ...ws.metadata,
      labels: { ...(ws.metadata?.labels ?? {}), 'tenancy.kcp.io/phase': 'Ready' },
      annotations: { ...(ws.metadata?.annotations ?? {}), 'internal.tenancy.kcp.io/cluster': 'c2x' },
      finalizers: [...new Set([...(ws.metadata?.finalizers ?? []), 'core.kcp.io/logicalcluster'])],
    },
    spec: { ...(ws.spec as object), cluster: 'c2x', URL: 'https://127.0.0.1:6443/clusters/root:w' },
    status: { ...(ws.status as object), phase: 'Ready', conditions: [{ type: 'WorkspaceScheduled', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' }] },
  });
  function createScheduled(input: KubeObject, settled: boolean) {
    const store = createMemoryStore();
    const generic = new GenericStore(store, namespaces, { authority: new WriteAuthority() });
    generic.foldIntoCreatesOf(workspaces, (created, row) => {
      const batch = new WriteBatch();
      generic.update(ctx, created.metadata!.name!, scheduled(created), { batch, withStatus: true, current: { row, object: created }, settled });
      return batch;
    });
    const events: string[] = [];
    store.watch('/', store.currentRevision(), (es) => events.push(...es.map((e) => `${e.type} ${e.revision} ${comparable(e.value)}`)));
    const answer = generic.create(ctx, input, { fieldManager: 'kubectl-create' });
    return { events, answer: comparable(JSON.stringify(answer)), read: comparable(JSON.stringify(generic.get(ctx, 'w'))) };
  }
  const inputs: Record<string, KubeObject> = {
    'a bare Workspace': { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name: 'w' } },
    'one with a type, labels, annotations and a finalizer of its own': {
      apiVersion: 'tenancy.kcp.io/v1alpha1',
      kind: 'Workspace',
      metadata: { name: 'w', labels: { team: 'a', 'tenancy.kcp.io/phase': 'x' }, annotations: { note: 'n' }, finalizers: ['example.com/keep'] },
      spec: { type: { name: 'universal', path: 'root' } },
    },
  };
  for (const [what, input] of Object.entries(inputs)) {
    it(`stores, announces and answers ${what} exactly as the whole update pipeline does`, () => {
      // One frozen clock for both runs: managedFields entries are ordered by time, then by manager, so a run that
      // crossed a second boundary between the create and its update would order them differently.
      vi.useFakeTimers({ toFake: ['Date'] });
      try {
        vi.setSystemTime(new Date('2026-11-29T08:00:00.500Z'));
        const viaPipeline = createScheduled(input, false);
        expect(viaPipeline.events).toHaveLength(2);
        expect(viaPipeline.read).toContain('"generation":2');
        vi.setSystemTime(new Date('2026-11-29T08:00:00.500Z'));
        expect(createScheduled(input, true)).toEqual(viaPipeline);
      } finally {
        vi.useRealTimers();
      }
    });
  }

  it('runs the whole pipeline for any other update', () => {
    const generic = new GenericStore(createMemoryStore(), namespaces, { authority: new WriteAuthority() });
    generic.create(ctx, inputs['a bare Workspace']!);
    const row = generic.getRaw(ctx, 'w');
    const object = generic.get(ctx, 'w');
    const bad = { ...object, spec: { ...(object.spec as object), URL: 7 } } as KubeObject;
    const batch = new WriteBatch();
    expect(refusal(() => generic.update(ctx, 'w', bad, { batch, current: { row, object }, settled: true }))).toMatch(/^422 /);
    expect(batch.size).toBe(0);
  });
});

describe('deletion markers', () => {
  const held = (name: string, finalizers: string[]) => ({ apiVersion: 'example.com/v1', kind: 'Thing', metadata: { name, finalizers }, spec: {} });
  /** Each store kind the server runs on: what a watch of everything sees live and resumed from 0 must agree. */
  const stores = {
    memory: () => createMemoryStore(),
    sqlite: () => openSqliteStore(join(mkdtempSync(join(tmpdir(), 'kcpt-markers-')), 'kcpt.db')),
  };
  for (const [kind, open] of Object.entries(stores)) {
    it(`${kind}: tell the garbage collector (an event) only of objects holding its finalizers, and a resumed watch sees what a live one saw`, () => {
      const store = open();
      const generic = new GenericStore(store, namespaces, { authority: new WriteAuthority(), garbageCollection: true });
      const ctx: OpContext = { rt: thing, cluster: 'c1', namespace: '' };
      const live: string[] = [];
      store.watch('/', 0, (events) => live.push(...events.map((e) => `${e.type} ${e.key} ${e.revision} ${e.value}`)));
      const markerEvents = () => live.filter((e) => e.includes('/kcpt/deleting/')).map((e) => e.split(' ').slice(0, 2).join(' '));
      const markerOf = (name: string) => `/kcpt/deleting/${thing.storagePrefix}/c1/${name}`;
      generic.create(ctx, held('quiet', ['example.com/hold']));
      generic.create(ctx, held('fg', ['example.com/hold']));
      generic.create(ctx, held('later', ['example.com/hold']));
      // Held by another finalizer, deleted in the background: a marker a restart finds, no event.
      generic.delete(ctx, 'quiet', { propagationPolicy: 'Background' });
      generic.delete(ctx, 'later');
      expect(store.get(markerOf('quiet'))).toBeDefined();
      expect(markerEvents()).toEqual([]);
      // In the foreground: the collector must act, so it hears of it.
      generic.delete(ctx, 'fg', { propagationPolicy: 'Foreground' });
      expect(markerEvents()).toEqual([`ADDED ${markerOf('fg')}`]);
      // An object already marked quietly that a DELETE gives a GC finalizer: its marker is rewritten with an event.
      generic.delete(ctx, 'later', { propagationPolicy: 'Orphan' });
      expect(markerEvents()).toEqual([`ADDED ${markerOf('fg')}`, `MODIFIED ${markerOf('later')}`]);
      // Finalizers released: each marker goes as it was written (the rewritten one with an event, the quiet one without).
      for (const name of ['quiet', 'fg', 'later']) {
        const row = store.get(`/registry/${thing.storagePrefix}/c1/${name}`)!;
        generic.releaseFinalizer(ctx, row, decodeStored(row), 'example.com/hold');
      }
      for (const name of ['fg', 'later']) {
        const row = store.get(`/registry/${thing.storagePrefix}/c1/${name}`)!;
        const obj = decodeStored(row);
        generic.releaseFinalizer(ctx, row, obj, obj.metadata!.finalizers![0]!);
      }
      expect(hasKeys(store, '/kcpt/deleting/')).toBe(false);
      expect(hasKeys(store, `/registry/${thing.storagePrefix}/`)).toBe(false);
      expect(markerEvents()).toEqual([`ADDED ${markerOf('fg')}`, `MODIFIED ${markerOf('later')}`, `DELETED ${markerOf('fg')}`, `DELETED ${markerOf('later')}`]);
      const resumed: string[] = [];
      store.watch('/', 0, (events) => resumed.push(...events.map((e) => `${e.type} ${e.key} ${e.revision} ${e.value}`))).cancel();
      expect(resumed).toEqual(live);
      store.close();
    });
  }
});
