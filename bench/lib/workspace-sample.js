// One real workspace of a fresh kcpt, recorded for the bare workspace server (bench/lib/bare-workspaces.js), which
// writes the same rows for every workspace posted to it: the POST's answer, the Ready Workspace and its
// LogicalCluster as served, and every row the workspace's commit wrote (objects and log events, stored values as
// kcpt's codec left them, revisions relative to the commit's first).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { client, startKcpt } from './kcpt.js';
import { waitFor, WS_API } from './workspace-driver.js';
import { removeDir, tempDir } from './util.js';

/** The sample's workspace name: as long as the bench's names (f123, t1999), and no hex or base-36 run of kcpt's. */
export const SAMPLE_NAME = 'q1000';
const LC_API = '/apis/core.kcp.io/v1alpha1/logicalclusters';
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/**
 * Starts a throwaway kcpt, creates one workspace in root, and writes what it recorded to `file` (JSON). With
 * `rootDir`, the kcpt runs there and the directory is kept (its `root/` holds the serving certificate a bare server
 * can use); otherwise in a temp dir removed afterwards.
 */
export async function recordWorkspaceSample(file, { rootDir } = {}) {
  const dir = rootDir ?? tempDir('kcpt-bench-wssample-');
  try {
    const s = await startKcpt({ rootDir: dir, timeoutMs: 120_000 });
    let answer;
    let ready;
    let logicalCluster;
    try {
      const c = client(s.url, { token: s.token });
      const body = { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name: SAMPLE_NAME } };
      answer = await c.json('POST', `/clusters/root${WS_API}`, body);
      ready = await waitFor(async () => {
        const ws = await c.json('GET', `/clusters/root${WS_API}/${SAMPLE_NAME}`);
        return ws.status?.phase === 'Ready' && ws;
      }, { what: 'the sample workspace to be Ready' });
      logicalCluster = await c.json('GET', `/clusters/root:${SAMPLE_NAME}${LC_API}/cluster`);
      c.close();
    } finally {
      await s.stop();
    }
    const cluster = ready.spec.cluster;
    const first = Number(answer.metadata.resourceVersion);
    const db = new Database(path.join(dir, 'root', 'kcpt.db'), { readonly: true });
    const wsKey = `/registry/tenancy.kcp.io/workspaces/root/${SAMPLE_NAME}`;
    const ours = (key) => key === wsKey || key.includes(`/${cluster}/`);
    let objects;
    let events;
    try {
      objects = db.prepare('SELECT key, revision, create_revision AS createRevision, value FROM objects WHERE revision >= ?').all(first).filter((r) => ours(r.key));
      events = db
        .prepare('SELECT revision, key, type, value, prev_value AS prevValue, prev_revision AS prevRevision, create_revision AS createRevision FROM events WHERE revision >= ? ORDER BY revision')
        .all(first)
        .filter((r) => ours(r.key));
    } finally {
      db.close();
    }
    // Revisions relative to the commit's first; an earlier revision (prev_revision 0) stays 0.
    const rel = (r) => (r >= first ? r - first : -1);
    const sample = {
      name: SAMPLE_NAME,
      cluster,
      wsKey,
      // The uids the workspace's objects got (the owner's uid in the annotation is the user's, the same every time).
      uids: [...new Set([answer.metadata.uid, ...objects.flatMap((o) => o.value.match(UUID) ?? [])])].filter((u) => !answer.metadata.annotations?.['experimental.tenancy.kcp.io/owner']?.includes(u)),
      answer,
      ready,
      logicalCluster,
      objects: objects.map((o) => ({ key: o.key, revision: rel(o.revision), createRevision: rel(o.createRevision), value: o.value })),
      events: events.map((e) => ({ ...e, revision: rel(e.revision), prevRevision: rel(e.prevRevision), createRevision: rel(e.createRevision) })),
    };
    if (sample.events.length !== sample.events.at(-1).revision + 1) throw new Error('the sample workspace was not written in one commit of consecutive revisions');
    writeFileSync(file, JSON.stringify(sample));
    return sample;
  } finally {
    if (!rootDir) removeDir(dir);
  }
}
