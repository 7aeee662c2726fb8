// The on-disk state of the restart benchmark: a kcpt root directory holding `workspaces` workspaces and, with
// ConfigMaps added to reach it, `objects` stored API objects. Everything is created through the API of a real kcpt
// (`node bin/run.js start`), so the rows are exactly the ones the server writes (workspace, LogicalCluster, the two
// namespaces with their service accounts, the admin binding, access-subject index rows, object-count counters…).
//
// Shape: root → `orgs` organisation-less workspaces `o<i>` → children `w<j>` (fan-out workspaces/orgs), the way
// tenants usually nest; ConfigMaps `cm-<k>` in each leaf's `default` namespace.
//
// Generation is slow (~500 workspaces/s and ~1,500 objects/s on a quiet 2-core box) so the directory is cached
// under /tmp (never in the repo) and reused while its `state.json` says it is complete; an interrupted generation
// resumes (every POST is idempotent: 409 means already there).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { client, parallel, startKcpt } from './kcpt.js';
import { configMap } from './payload.js';
import { log, sleep } from './util.js';

const WS_API = '/apis/tenancy.kcp.io/v1alpha1/workspaces';
/** Objects every workspace holds right after creation (Workspace, LogicalCluster, namespaces default and
 * kube-system, their default ServiceAccounts, the workspace-admin ClusterRoleBinding); checked after generation. */
export const OBJECTS_PER_WORKSPACE = 7;

export function restartStateDir({ workspaces, objects }) {
  return path.join(os.tmpdir(), `kcpt-restart-state-${workspaces}-${objects}`);
}

/** The layout: org names, leaf paths, and how many ConfigMaps each leaf gets to reach `objects`. */
export function restartStateLayout({ workspaces, objects }) {
  const orgs = Math.max(1, Math.round(Math.sqrt(workspaces) / 3));
  const leavesPerOrg = Math.floor((workspaces - orgs) / orgs);
  const extra = workspaces - orgs - leavesPerOrg * orgs;
  const leaves = [];
  for (let o = 0; o < orgs; o++) {
    const n = leavesPerOrg + (o < extra ? 1 : 0);
    for (let j = 0; j < n; j++) leaves.push(`root:o${o}:w${j}`);
  }
  const configMapsNeeded = Math.max(0, objects - workspaces * OBJECTS_PER_WORKSPACE);
  return {
    orgs: Array.from({ length: orgs }, (_, o) => `o${o}`),
    leaves,
    /** ConfigMaps of leaf i: spread so the total is exactly configMapsNeeded. */
    configMapsOf: (i) => Math.floor(configMapsNeeded / leaves.length) + (i < configMapsNeeded % leaves.length ? 1 : 0),
    configMapsNeeded,
  };
}

async function post(c, pathName, body, { retryOn = [403, 404, 429], attempts = 200 } = {}) {
  for (let attempt = 0; ; attempt++) {
    const res = await c.request('POST', pathName, body);
    if (res.status === 201 || res.status === 409) return;
    // a workspace's path resolves, and its default namespace exists, a moment after it is created
    if (attempt < attempts && retryOn.includes(res.status)) {
      await sleep(Math.min(200, 5 * (attempt + 1)));
      continue;
    }
    throw new Error(`POST ${pathName}: HTTP ${res.status} ${res.body.toString().slice(0, 300)}`);
  }
}

const workspace = (name) => ({ apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name } });

/**
 * Returns the root directory's parent (what startKcpt's rootDir takes) holding the state, generating what is
 * missing (`partial`: a directory whose generation was interrupted is used as it is). `concurrency` requests in flight.
 */
export async function ensureRestartState({ workspaces, objects, concurrency = 16, pad = 200, partial = false }) {
  const dir = restartStateDir({ workspaces, objects });
  const marker = path.join(dir, 'state.json');
  if (existsSync(marker)) {
    const state = JSON.parse(readFileSync(marker, 'utf8'));
    log(`  reusing ${dir} (${state.workspaces} workspaces, ${state.objects} objects, generated ${state.generatedAt})`);
    return dir;
  }
  if (partial && existsSync(path.join(dir, 'root', 'kcpt.db'))) {
    log(`  reusing ${dir} as it is: its generation was interrupted (the counts below are read from the database)`);
    return dir;
  }
  mkdirSync(dir, { recursive: true });
  const layout = restartStateLayout({ workspaces, objects });
  log(`  generating ${workspaces} workspaces (${layout.orgs.length} orgs) + ${layout.configMapsNeeded} ConfigMaps in ${dir} …`);
  const t0 = performance.now();
  const server = await startKcpt({ rootDir: dir, timeoutMs: 120_000 });
  const c = client(server.url, { token: server.token, maxSockets: concurrency });
  try {
    await parallel(layout.orgs, concurrency, (org) => post(c, `/clusters/root${WS_API}`, workspace(org)));
    let done = 0;
    const progress = (what, total) => {
      if (++done % 10_000 === 0) log(`    ${done}/${total} ${what} (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
    };
    await parallel(layout.leaves, concurrency, async (leaf) => {
      const parent = leaf.slice(0, leaf.lastIndexOf(':'));
      await post(c, `/clusters/${parent}${WS_API}`, workspace(leaf.slice(leaf.lastIndexOf(':') + 1)));
      progress('workspaces', layout.leaves.length);
    });
    const tWs = performance.now();
    done = 0;
    const jobs = [];
    layout.leaves.forEach((leaf, i) => {
      for (let k = 0; k < layout.configMapsOf(i); k++) jobs.push([leaf, `cm-${k}`]);
    });
    await parallel(jobs, concurrency, async ([leaf, name]) => {
      await post(c, `/clusters/${leaf}/api/v1/namespaces/default/configmaps`, configMap(name, 'default', pad));
      progress('ConfigMaps', jobs.length);
    });
    const state = {
      workspaces: layout.orgs.length + layout.leaves.length,
      objects: (layout.orgs.length + layout.leaves.length) * OBJECTS_PER_WORKSPACE + jobs.length,
      configMaps: jobs.length,
      leaves: layout.leaves.length,
      orgs: layout.orgs.length,
      workspaceSeconds: Math.round((tWs - t0) / 1000),
      configMapSeconds: Math.round((performance.now() - tWs) / 1000),
      generatedAt: new Date().toISOString(),
    };
    c.close();
    await server.stop();
    writeFileSync(marker, `${JSON.stringify(state, null, 2)}\n`);
    log(`  generated in ${state.workspaceSeconds} + ${state.configMapSeconds} s`);
    return dir;
  } finally {
    c.close();
    await server.stop();
  }
}
