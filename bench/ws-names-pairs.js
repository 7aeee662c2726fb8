#!/usr/bin/env node
// What the shape of logical cluster names costs the SQLite store (value codec, rows, events, WAL, checkpoints) per
// workspace: two stores of this checkout side by side, each fed a workspace's commit (the Workspace created and
// scheduled, its LogicalCluster, two Namespaces, two ServiceAccounts, the admin binding, the access-subjects row),
// one named by this checkout's `newClusterName`, the other by kcp's all-random names, in alternating blocks so both
// see the same moments of a shared box's load. Run it through tsx (it imports the TypeScript source):
//
//   npx tsx bench/ws-names-pairs.js [--prefill 10000] [--pairs 20] [--block 250] [--aa: all-random names on both sides]
//
// Prints one line per pair (CPU µs per workspace, each side), each side's slowest commit and commits over 5 ms (a
// WAL checkpoint stalls the commit that crosses its limit), and the median ratio current/random.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { openSqliteStore } from '../src/engine/storage/sqlite-store.ts';
import { newClusterName } from '../src/engine/machinery/kcp-names.ts';
import { workspaceStorageReferences } from '../src/engine/tenancy/storage-references.ts';
import { removeDir, tempDir } from './lib/util.js';

const { values } = parseArgs({ options: { prefill: { type: 'string' }, pairs: { type: 'string' }, block: { type: 'string' }, aa: { type: 'boolean' } } });
const prefill = Number(values.prefill ?? 10000);
const pairs = Number(values.pairs ?? 20);
const block = Number(values.block ?? 250);

/** kcp's names: 16 base-36 characters, all random. */
const randomName = () => BigInt(`0x${randomBytes(14).toString('hex')}`).toString(36).slice(0, 16).padEnd(16, '0');

const now = '2026-11-29T08:00:00Z';
const workspace = (name, cluster) =>
  JSON.stringify({
    apiVersion: 'tenancy.kcp.io/v1alpha1',
    kind: 'Workspace',
    metadata: { name, uid: crypto.randomUUID(), resourceVersion: '', generation: 2, creationTimestamp: now, annotations: { 'kcp.io/cluster': 'root', 'internal.tenancy.kcp.io/cluster': cluster }, labels: { 'tenancy.kcp.io/phase': 'Ready' }, finalizers: ['core.kcp.io/logicalcluster'] },
    spec: { type: { name: 'universal', path: 'root' }, cluster, URL: `https://127.0.0.1:6443/clusters/root:${name}` },
    status: { phase: 'Ready', conditions: [{ type: 'WorkspaceScheduled', status: 'True', lastTransitionTime: now }, { type: 'WorkspaceInitialized', status: 'True', lastTransitionTime: now }] },
  });
const logicalCluster = (name, cluster) =>
  JSON.stringify({
    apiVersion: 'core.kcp.io/v1alpha1',
    kind: 'LogicalCluster',
    metadata: { name: 'cluster', uid: crypto.randomUUID(), creationTimestamp: now, annotations: { 'kcp.io/cluster': cluster, 'kcp.io/path': `root:${name}`, 'tenancy.kcp.io/workspace-type': 'root:universal' }, finalizers: ['core.kcp.io/logicalcluster-deletion'] },
    spec: { directlyDeletable: false, owner: { apiVersion: 'tenancy.kcp.io/v1alpha1', resource: 'workspaces', name, cluster: 'root', uid: crypto.randomUUID() } },
    status: { phase: 'Ready', URL: `https://127.0.0.1:6443/clusters/${cluster}`, conditions: [{ type: 'WorkspaceInitialized', status: 'True', lastTransitionTime: now }] },
  });
const simple = (apiVersion, kind, name, cluster, namespace, extra = {}) =>
  JSON.stringify({ apiVersion, kind, metadata: { name, ...(namespace ? { namespace } : {}), uid: crypto.randomUUID(), creationTimestamp: now, annotations: { 'kcp.io/cluster': cluster } }, ...extra });

function workspaceOps(i, cluster) {
  const name = `w${i}`;
  const value = workspace(name, cluster);
  return [
    { type: 'create', key: `/registry/tenancy.kcp.io/workspaces/root/${name}`, value, firstValue: value.replace('"Ready"', '"Scheduling"') },
    { type: 'create', key: `/registry/core.kcp.io/logicalclusters/${cluster}/cluster`, value: logicalCluster(name, cluster) },
    { type: 'create', key: `/registry/core/namespaces/${cluster}/default`, value: simple('v1', 'Namespace', 'default', cluster) },
    { type: 'create', key: `/registry/core/serviceaccounts/${cluster}/default/default`, value: simple('v1', 'ServiceAccount', 'default', cluster, 'default') },
    { type: 'create', key: `/registry/core/namespaces/${cluster}/kube-system`, value: simple('v1', 'Namespace', 'kube-system', cluster) },
    { type: 'create', key: `/registry/core/serviceaccounts/${cluster}/kube-system/default`, value: simple('v1', 'ServiceAccount', 'default', cluster, 'kube-system') },
    {
      type: 'create',
      key: `/registry/rbac.authorization.k8s.io/clusterrolebindings/${cluster}/workspace-admin`,
      value: simple('rbac.authorization.k8s.io/v1', 'ClusterRoleBinding', 'workspace-admin', cluster, '', { roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' }, subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'user-1' }] }),
    },
    { type: 'create', key: `/kcpt/access-subjects/u:user-1/${cluster}/workspace-admin`, value: '', unlogged: true },
  ];
}

const dir = tempDir('kcpt-ws-names-');
try {
  const sides = [
    { name: 'current', next: values.aa ? randomName : newClusterName },
    { name: 'random', next: randomName },
  ].map((side) => ({ ...side, store: openSqliteStore(path.join(dir, `${side.name}.db`), { valueReferences: workspaceStorageReferences() }), made: 0, slowest: 0, over5ms: 0 }));
  const write = (side, n, timed = false) => {
    for (let i = 0; i < n; i++) {
      const ops = workspaceOps(side.made++, side.next());
      const start = timed ? performance.now() : 0;
      side.store.commit(ops);
      if (!timed) continue;
      const ms = performance.now() - start;
      side.slowest = Math.max(side.slowest, ms);
      if (ms > 5) side.over5ms++;
    }
  };
  for (const side of sides) write(side, prefill);
  const ratios = [];
  for (let pair = 1; pair <= pairs; pair++) {
    const us = {};
    // Alternate which side goes first, so neither always follows the other's checkpoint.
    for (const side of pair % 2 ? sides : [...sides].reverse()) {
      const before = process.cpuUsage();
      write(side, block, true);
      const used = process.cpuUsage(before);
      us[side.name] = Math.round((used.user + used.system) / block);
    }
    ratios.push(us.current / us.random);
    console.log(JSON.stringify({ pair, ...us, ratio: Number((us.current / us.random).toFixed(3)) }));
  }
  ratios.sort((a, b) => a - b);
  for (const side of sides) console.log(JSON.stringify({ side: side.name, slowestCommitMs: Number(side.slowest.toFixed(1)), commitsOver5ms: side.over5ms, of: pairs * block }));
  console.log(JSON.stringify({ medianRatio: Number(ratios[Math.floor(ratios.length / 2)].toFixed(3)), cheaper: ratios.filter((r) => r < 1).length, of: ratios.length }));
  for (const side of sides) side.store.close();
} finally {
  removeDir(dir);
}
