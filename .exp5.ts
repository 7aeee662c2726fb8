import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
const src = process.argv[2] ?? '/work/wt/perf-list';
const { GenericStore } = await import(`${src}/src/engine/registry/generic-store.ts`);
const { configMaps, namespaces } = await import(`${src}/src/engine/builtin/core/resources.ts`);
const { openSqliteStore } = await import(`${src}/src/engine/storage/sqlite-store.ts`);
const { WriteAuthority } = await import(`${src}/src/engine/admission/write-authority.ts`);
const { listObjects } = await import(`${src}/src/engine/registry/list.ts`);
const { renderList } = await import(`${src}/src/engine/endpoints/render.ts`);
const tmp = mkdtempSync(path.join(os.tmpdir(), 'kcpt-lp-'));
const store = openSqliteStore(path.join(tmp, 'kcpt.db'));
const generic = new GenericStore(store, namespaces, { authority: new WriteAuthority() });
generic.create({ rt: namespaces, cluster: 'root', namespace: '' }, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench-list' } });
const ctx = { rt: configMaps, cluster: 'root', namespace: 'bench-list' };
for (let i = 0; i < 1000; i++) generic.create(ctx, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `list-${String(i).padStart(5,'0')}`, namespace: 'bench-list', labels: { app: 'kcpt-bench', tier: 'backend' } }, data: { 'config.yaml': 'x'.repeat(560) } });
const pred = { matchesEverything: true, matches: () => true };
const render = { format: { format: 'json', mediaType: 'application/json', pretty: false }, query: new URLSearchParams() };
const prefix = '/registry/core/configmaps/root/bench-list/';
const page = await listObjects(store, configMaps, 'root', 'bench-list', pred, {});
const variants: Record<string, () => unknown> = {
  'store.list': () => store.list(prefix),
  'listObjects': () => listObjects(store, configMaps, 'root', 'bench-list', pred, {}),
  'renderList': () => renderList(configMaps, page, render),
};
const res: Record<string, number[]> = {};
for (const k in variants) { res[k] = []; for (let i = 0; i < 30; i++) await variants[k](); }
for (let r = 0; r < 11; r++) for (const k in variants) { const c = process.cpuUsage(); for (let i = 0; i < 30; i++) await variants[k](); const d = process.cpuUsage(c); res[k].push((d.user + d.system) / 30); }
for (const k in res) { const v = res[k].sort((a,b)=>a-b); console.log(k.padEnd(20), 'median', v[5].toFixed(0), 'min', v[0].toFixed(0)); }
