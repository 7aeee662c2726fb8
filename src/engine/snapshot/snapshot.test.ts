import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { builtinResourceTypes } from '../builtin/index.js';
import { StatusError } from '../machinery/status.js';
import { GenericStore } from '../registry/generic-store.js';
import { encodeStored } from '../registry/stored-object.js';
import type { KubeObject } from '../registry/types.js';
import { createMemoryStore } from '../storage/memory-store.js';
import { checkStoreFile, writeStoreFile } from '../storage/sqlite-files.js';
import { SCHEMA_VERSION } from '../storage/sqlite-schema.js';
import { openSqliteStore } from '../storage/sqlite-store.js';
import { CompactedError, type Store } from '../storage/store.js';
import { exportStore, exportSubtree } from './export.js';
import { entryLine, headerLine, parseSnapshot, SnapshotFormatError, type Snapshot } from './format.js';
import { restoreSubtree } from './restore.js';
import { WriteAuthority } from '../admission/write-authority.js';

const directory = mkdtempSync(join(tmpdir(), 'kcpt-snapshot-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
let files = 0;
const tempPath = (name: string) => join(directory, `${files++}-${name}`);

const text = (s: Snapshot) => headerLine(s.header) + s.entries.map(entryLine).join('');

const C1 = 'c1aaaaaaaaaaaaaa';
const C2 = 'c2bbbbbbbbbbbbbb';
const UID = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

function obj(apiVersion: string, kind: string, metadata: Record<string, unknown>, rest: Record<string, unknown> = {}): string {
  return encodeStored({ apiVersion, kind, metadata, ...rest } as KubeObject);
}

/** root → workspace `snap` (cluster C1) → workspace `a` (cluster C2), with a few objects that refer to each other. */
function seedTree(store: Store): void {
  const lc = (cluster: string, path: string, uid: number, owner: string) =>
    obj('core.kcp.io/v1alpha1', 'LogicalCluster', { name: 'cluster', uid: UID(uid), annotations: { 'kcp.io/path': path, 'kcp.io/cluster': cluster, 'internal.tenancy.kcp.io/type': owner === 'a' ? 'root:snap:team' : 'root:organization' } }, {
      spec: { owner: { cluster: owner === 'snap' ? 'root' : C1, name: owner, uid: UID(uid + 100) } },
      status: { phase: 'Ready', URL: `https://old:1/clusters/${path}` },
    });
  const ws = (cluster: string, name: string, child: string, path: string, uid: number) =>
    obj('tenancy.kcp.io/v1alpha1', 'Workspace', { name, uid: UID(uid), annotations: { 'kcp.io/cluster': cluster } }, {
      spec: { cluster: child, URL: `https://old:1/clusters/${path}`, type: name === 'a' ? { name: 'team', path: 'root:snap' } : { name: 'organization', path: 'root' } },
      status: { phase: 'Ready' },
    });
  store.commit([
    { type: 'create', key: `/registry/tenancy.kcp.io/workspaces/root/snap`, value: ws('root', 'snap', C1, 'root:snap', 101) },
    { type: 'create', key: `/registry/core.kcp.io/logicalclusters/${C1}/cluster`, value: lc(C1, 'root:snap', 1, 'snap') },
    { type: 'create', key: `/registry/tenancy.kcp.io/workspaces/${C1}/a`, value: ws(C1, 'a', C2, 'root:snap:a', 102) },
    { type: 'create', key: `/registry/core.kcp.io/logicalclusters/${C2}/cluster`, value: lc(C2, 'root:snap:a', 2, 'a') },
    { type: 'create', key: `/registry/core/namespaces/${C2}/default`, value: obj('v1', 'Namespace', { name: 'default', uid: UID(3) }) },
    { type: 'create', key: `/registry/core/configmaps/${C2}/default/owner`, value: obj('v1', 'ConfigMap', { name: 'owner', namespace: 'default', uid: UID(4) }) },
    {
      type: 'create',
      key: `/registry/core/configmaps/${C2}/default/dependent`,
      value: obj('v1', 'ConfigMap', { name: 'dependent', namespace: 'default', uid: UID(5), ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: UID(4) }] }, { data: { note: 'root:snap stays as written here' } }),
    },
    {
      type: 'create',
      key: `/registry/apis.kcp.io/apibindings/${C2}/inside`,
      value: obj('apis.kcp.io/v1alpha2', 'APIBinding', { name: 'inside', uid: UID(6) }, { spec: { reference: { export: { path: 'root:snap', name: 'e' } } }, status: { apiExportClusterName: C1, phase: 'Bound' } }),
    },
    {
      type: 'create',
      key: `/registry/apis.kcp.io/apibindings/${C2}/outside`,
      value: obj('apis.kcp.io/v1alpha2', 'APIBinding', { name: 'outside', uid: UID(7) }, { spec: { reference: { export: { path: 'root:elsewhere', name: 'e' } } } }),
    },
    {
      type: 'create',
      key: `/registry/core/configmaps/${C2}/default/leaving`,
      value: obj('v1', 'ConfigMap', { name: 'leaving', namespace: 'default', uid: UID(9), deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: ['example.com/hold'] }),
    },
    // Bookkeeping rows and other workspaces are not part of the subtree.
    { type: 'create', key: `/kcpt/owners/${C2}/${UID(4)}/x`, value: '{}' },
    { type: 'create', key: `/registry/core/configmaps/root/default/unrelated`, value: obj('v1', 'ConfigMap', { name: 'unrelated', namespace: 'default', uid: UID(8) }) },
  ]);
}

const paths: Record<string, string> = { root: 'root', 'root:snap': C1, 'root:snap:a': C2 };
const resolvePath = (path: string) => paths[path];
const namespaceType = builtinResourceTypes().find((t) => t.group === '' && t.resource === 'namespaces')!;

const parsed = (store: Store, key: string) => JSON.parse(store.get(key)!.value) as Record<string, any>;

describe('snapshot format', () => {
  it('round-trips stored bytes: objects as JSON, bookkeeping rows as strings', () => {
    const store = createMemoryStore();
    seedTree(store);
    const snapshot = exportStore(store);
    const back = parseSnapshot(text(snapshot));
    expect(back.header).toEqual(snapshot.header);
    expect(back.entries).toEqual(snapshot.entries);
    expect(text(snapshot)).toContain('"object":{"apiVersion":"v1","kind":"ConfigMap"');
  });

  it('names the line of every problem', () => {
    const header = headerLine({ kind: 'KcptSnapshot', version: 1, scope: 'store', revision: 3, createdAt: '' });
    const cases: Array<[string, string]> = [
      ['', 'the file is empty'],
      ['{"kind":"Other"}\n', 'line 1: not a kcpt snapshot'],
      ['{"kind":"KcptSnapshot","version":9}\n', 'snapshot version 9 is not supported'],
      [`${header}{"key":"/a","revi`, 'line 2: not JSON'],
      [`${header}{"key":"/a","revision":4,"createRevision":1,"value":""}\n`, 'line 2: revision 4 is after the snapshot'],
      [`${header}{"key":"a","revision":1,"createRevision":1,"value":""}\n`, 'line 2: key must be a string starting with /'],
      ['SQLite format 3\0rest', 'whole-store SQLite snapshot'],
    ];
    for (const [input, message] of cases) {
      expect(() => parseSnapshot(input), JSON.stringify(input)).toThrow(SnapshotFormatError);
      expect(() => parseSnapshot(input)).toThrow(message);
    }
  });
});

describe('whole-store files', () => {
  it('a memory store exported as JSON lines becomes a SQLite store with the same keys, values and revisions', () => {
    const memory = createMemoryStore();
    seedTree(memory);
    memory.commit([{ type: 'update', key: `/registry/core/configmaps/${C2}/default/owner`, value: obj('v1', 'ConfigMap', { name: 'owner', namespace: 'default', uid: UID(4) }, { data: { a: '1' } }) }]);
    memory.commit([{ type: 'delete', key: `/registry/core/configmaps/root/default/unrelated` }]);
    const snapshot = parseSnapshot(text(exportStore(memory)));
    const path = tempPath('from-memory.db');
    expect(writeStoreFile(path, snapshot.entries, snapshot.header.revision)).toEqual({ revision: memory.currentRevision(), objects: memory.count('/') });
    expect(checkStoreFile(path)).toEqual({ revision: memory.currentRevision(), objects: memory.count('/') });

    const sqlite = openSqliteStore(path);
    try {
      expect(sqlite.currentRevision()).toBe(memory.currentRevision());
      expect(sqlite.list('/').items).toEqual(memory.list('/').items);
      // No history came along: older watches relist (410), newer writes continue the revision sequence.
      expect(() => sqlite.watch('/', memory.currentRevision() - 1, () => undefined)).toThrow(CompactedError);
      const [written] = sqlite.commit([{ type: 'create', key: '/registry/core/configmaps/root/default/new', value: '{}' }]);
      expect(written!.revision).toBe(memory.currentRevision() + 1);
    } finally {
      sqlite.close();
    }
  });

  it('the online backup of a SQLite store in use is a consistent store file', async () => {
    const store = openSqliteStore(tempPath('live.db'));
    try {
      for (let i = 0; i < 200; i++) store.commit([{ type: 'create', key: `/registry/core/configmaps/root/default/cm-${i}`, value: `{"i":${i}}` }]);
      const copy = tempPath('copy.db');
      const backup = store.backup!(copy);
      // Writes racing the backup: the copy is the state at some revision, with every write up to it.
      for (let i = 200; i < 260; i++) store.commit([{ type: 'create', key: `/registry/core/configmaps/root/default/cm-${i}`, value: `{"i":${i}}` }]);
      await backup;
      const summary = checkStoreFile(copy);
      expect(summary.revision).toBeGreaterThanOrEqual(200);
      expect(summary.objects).toBe(summary.revision);
    } finally {
      store.close();
    }
  });

  it('refuses files that are not intact kcpt stores, saying why', () => {
    const notSqlite = tempPath('text.db');
    writeFileSync(notSqlite, 'hello, I am not a database, but I am long enough to have a header'.repeat(10));
    expect(() => checkStoreFile(notSqlite)).toThrow(/is not a (readable )?SQLite database/);
    expect(() => checkStoreFile(tempPath('missing.db'))).toThrow('does not exist');
  });

  it('refuses a store written by a newer kcpt before restoring it (its `kcpt start` would refuse it)', () => {
    const path = tempPath('newer.db');
    openSqliteStore(path).close();
    const db = new Database(path);
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    expect(() => checkStoreFile(path)).toThrow(
      `${path} was written by a newer kcpt (schema ${SCHEMA_VERSION + 1}, this build knows ${SCHEMA_VERSION}): restore it with that kcpt or a newer one`,
    );
  });
});

describe('workspace subtrees', () => {
  it('exports the workspace, its descendants and its own Workspace object, nothing else', () => {
    const store = createMemoryStore();
    seedTree(store);
    const { header, entries } = exportSubtree({ store, resolvePath }, 'root:snap');
    expect(header.clusters).toEqual({ [C1]: 'root:snap', [C2]: 'root:snap:a' });
    expect(header.workspace).toEqual({ path: 'root:snap', cluster: C1, parentCluster: 'root' });
    expect(entries.map((e) => e.key).sort()).toEqual(
      [
        '/registry/tenancy.kcp.io/workspaces/root/snap',
        `/registry/core.kcp.io/logicalclusters/${C1}/cluster`,
        `/registry/tenancy.kcp.io/workspaces/${C1}/a`,
        `/registry/core.kcp.io/logicalclusters/${C2}/cluster`,
        `/registry/core/namespaces/${C2}/default`,
        `/registry/core/configmaps/${C2}/default/owner`,
        `/registry/core/configmaps/${C2}/default/dependent`,
        `/registry/core/configmaps/${C2}/default/leaving`,
        `/registry/apis.kcp.io/apibindings/${C2}/inside`,
        `/registry/apis.kcp.io/apibindings/${C2}/outside`,
      ].sort(),
    );
    expect(() => exportSubtree({ store, resolvePath }, 'root:nope')).toThrow('workspaces.tenancy.kcp.io "root:nope" not found');
    expect(() => exportSubtree({ store, resolvePath }, 'root')).toThrow('not a workspace below root');
  });

  it('restores beside the original: new clusters, UIDs, paths and revisions; references rewritten; originals untouched', () => {
    const store = createMemoryStore();
    seedTree(store);
    const body = text(exportSubtree({ store, resolvePath }, 'root:snap'));
    const before = store.list('/').items;
    const revision = store.currentRevision();
    const generic = new GenericStore(store, namespaceType, { authority: new WriteAuthority() });
    const result = restoreSubtree({ store, generic, resolvePath, externalUrl: () => 'https://new:2' }, body, 'root:copy');

    const n1 = result.clusters[C1]!;
    const n2 = result.clusters[C2]!;
    expect([n1, n2]).not.toContain(C1);
    expect([n1, n2]).not.toContain(C2);
    expect(result.objects).toBe(10);
    expect(store.list('/').items.filter((kv) => before.some((b) => b.key === kv.key))).toEqual(before);

    const top = parsed(store, '/registry/tenancy.kcp.io/workspaces/root/copy');
    expect(top.metadata.name).toBe('copy');
    expect(top.metadata.annotations['kcp.io/cluster']).toBe('root');
    expect(top.spec).toEqual({ cluster: n1, URL: 'https://new:2/clusters/root:copy', type: { name: 'organization', path: 'root' } });
    // A workspace type defined inside the subtree is the copy's own.
    expect(parsed(store, `/registry/tenancy.kcp.io/workspaces/${n1}/a`).spec).toEqual({ cluster: n2, URL: 'https://new:2/clusters/root:copy:a', type: { name: 'team', path: 'root:copy' } });
    const lc = parsed(store, `/registry/core.kcp.io/logicalclusters/${n2}/cluster`);
    expect(lc.metadata.annotations).toEqual({ 'kcp.io/path': 'root:copy:a', 'kcp.io/cluster': n2, 'internal.tenancy.kcp.io/type': 'root:copy:team' });
    expect(parsed(store, `/registry/core.kcp.io/logicalclusters/${n1}/cluster`).metadata.annotations['internal.tenancy.kcp.io/type']).toBe('root:organization');
    expect(lc.spec.owner.cluster).toBe(n1);
    expect(parsed(store, `/registry/core.kcp.io/logicalclusters/${n1}/cluster`).spec.owner).toMatchObject({ cluster: 'root', name: 'copy' });

    const owner = parsed(store, `/registry/core/configmaps/${n2}/default/owner`);
    const dependent = parsed(store, `/registry/core/configmaps/${n2}/default/dependent`);
    expect(owner.metadata.uid).not.toBe(UID(4));
    expect(dependent.metadata.ownerReferences[0].uid).toBe(owner.metadata.uid);
    expect(dependent.data.note).toBe('root:snap stays as written here');
    // Still being deleted in the copy: the marker controllers look for came along.
    expect(store.get(`/kcpt/deleting/core/configmaps/${n2}/default/leaving`)).toBeDefined();

    const inside = parsed(store, `/registry/apis.kcp.io/apibindings/${n2}/inside`);
    expect(inside.spec.reference.export.path).toBe('root:copy');
    expect(inside.status.apiExportClusterName).toBe(n1);
    expect(parsed(store, `/registry/apis.kcp.io/apibindings/${n2}/outside`).spec.reference.export.path).toBe('root:elsewhere');

    // Under another parent: the top Workspace and its cluster's owner name that parent.
    const nested = restoreSubtree({ store, generic, resolvePath: (p) => (p === 'root:snap:a' ? C2 : resolvePath(p)) }, body, 'root:snap:a:inner');
    const inner = parsed(store, `/registry/tenancy.kcp.io/workspaces/${C2}/inner`);
    expect(inner.metadata.annotations['kcp.io/cluster']).toBe(C2);
    expect(parsed(store, `/registry/core.kcp.io/logicalclusters/${inner.spec.cluster}/cluster`).spec.owner).toMatchObject({ cluster: C2, name: 'inner' });
    expect(nested.clusters[C1]).toBe(inner.spec.cluster);

    // Every restored row has a revision of this store, after the restore began.
    for (const kv of store.list(`/registry/core/configmaps/${n2}/`).items) expect(kv.revision).toBeGreaterThan(revision);
    expect(() => restoreSubtree({ store, generic, resolvePath }, body, 'root:copy')).toThrow('workspaces.tenancy.kcp.io "root:copy" already exists');
    expect(() => restoreSubtree({ store, generic, resolvePath }, body, 'root:missing:x')).toThrow('workspaces.tenancy.kcp.io "root:missing" not found');
    expect(() => restoreSubtree({ store, generic, resolvePath }, text(exportStore(store)), 'root:y')).toThrow('this is a whole-store snapshot');
  });

  it('stores a restored Workspace as a read returns it: fields its schema lacks dropped, its defaults set', () => {
    const store = createMemoryStore();
    seedTree(store);
    const snapshot = exportSubtree({ store, resolvePath }, 'root:snap');
    // A file from another build (or edited by hand): a field this build's schema does not have, no status.
    const edited = snapshot.entries.map((e) => {
      if (!e.key.startsWith('/registry/tenancy.kcp.io/workspaces/')) return e;
      const ws = JSON.parse(e.value) as Record<string, any>;
      return { ...e, value: encodeStored({ ...ws, spec: { ...ws.spec, retired: 'field' }, status: undefined } as KubeObject) };
    });
    const generic = new GenericStore(store, namespaceType, { authority: new WriteAuthority() });
    const result = restoreSubtree({ store, generic, resolvePath, externalUrl: () => 'https://new:2' }, text({ ...snapshot, entries: edited }), 'root:copy');
    for (const key of ['/registry/tenancy.kcp.io/workspaces/root/copy', `/registry/tenancy.kcp.io/workspaces/${result.clusters[C1]}/a`]) {
      const ws = parsed(store, key);
      expect(ws.spec.retired).toBeUndefined();
      expect(ws.status).toEqual({ phase: 'Scheduling' });
    }
  });

  for (const backend of ['memory', 'sqlite'] as const) {
    it(`a restore that fails half-way leaves nothing behind (${backend})`, () => {
      const source = createMemoryStore();
      seedTree(source);
      const body = text(exportSubtree({ store: source, resolvePath }, 'root:snap'));
      // Another server: the clusters are free there, so they keep their names; one of the keys is in the way.
      const store: Store = backend === 'memory' ? createMemoryStore() : openSqliteStore(tempPath('restore.db'));
      try {
        store.commit([{ type: 'create', key: `/registry/core/configmaps/${C2}/default/dependent`, value: '{"in":"the way"}' }]);
        const keys = store.list('/').items;
        const inTheWay = store.get(`/registry/core/configmaps/${C2}/default/dependent`);
        const generic = new GenericStore(store, namespaceType, { authority: new WriteAuthority() });
        let error: unknown;
        try {
          restoreSubtree({ store, generic, resolvePath: (p) => (p === 'root' ? 'root' : undefined) }, body, 'root:moved');
        } catch (err) {
          error = err;
        }
        expect(error).toBeInstanceOf(StatusError);
        expect((error as StatusError).message).toContain(`restoring /registry/core/configmaps/${C2}/default/dependent failed`);
        expect(store.list('/').items).toEqual(keys);
        // Point reads agree: nothing the failed restore wrote (and read back while writing) is served afterwards.
        for (const kv of source.list('/').items) {
          expect(store.get(kv.key)).toEqual(kv.key === inTheWay!.key ? inTheWay : undefined);
        }
      } finally {
        store.close();
      }
    });
  }
});
