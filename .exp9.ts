const src = '/work/wt/perf-list';
const { encodeStored } = await import(`${src}/src/engine/registry/stored-object.ts`);
const { randomUUID } = await import('node:crypto');
const mk = (i: number) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}`, namespace: 'bench', labels: { app: 'kcpt-bench', tier: 'backend' } }, data: { 'config.yaml': 'x'.repeat(560) } });
const body = Buffer.from(JSON.stringify(mk(1)));
const full = { ...mk(1), metadata: { ...mk(1).metadata, uid: randomUUID(), creationTimestamp: '2026-11-29T05:00:08Z', annotations: { 'kcp.io/cluster': 'c1' }, managedFields: [{ manager: 'kubectl', operation: 'Update', apiVersion: 'v1', time: '2026-11-29T05:00:08Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { '.': {}, 'f:config.yaml': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {}, 'f:tier': {} } } } }] } };
const v: Record<string, () => unknown> = {
  'JSON.parse body': () => JSON.parse(body.toString('utf8')),
  'structuredClone': () => structuredClone(mk(1)),
  'mk only': () => mk(1),
  'encodeStored': () => encodeStored(full),
  'JSON.stringify': () => JSON.stringify(full),
  'randomUUID': () => randomUUID(),
  'new Date().toISOString': () => new Date().toISOString(),
};
const res: Record<string, number[]> = {};
for (const k in v) { res[k] = []; for (let i = 0; i < 20000; i++) v[k](); }
for (let r = 0; r < 9; r++) for (const k in v) { const c = process.cpuUsage(); for (let i = 0; i < 20000; i++) v[k](); const d = process.cpuUsage(c); res[k].push((d.user + d.system) / 20000); }
for (const k in res) { const s = res[k].sort((a,b)=>a-b); console.log(k.padEnd(24), 'median', s[4].toFixed(2), 'min', s[0].toFixed(2)); }
