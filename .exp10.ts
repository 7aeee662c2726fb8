const src = '/work/wt/perf-list';
const { checkUnknownFields } = await import(`${src}/src/engine/endpoints/resource-handler.ts`);
const { decodeObjectBody } = await import(`${src}/src/engine/endpoints/body.ts`);
const { configMaps } = await import(`${src}/src/engine/builtin/core/resources.ts`);
const { nestingTooDeep } = await import(`${src}/src/engine/machinery/nesting-depth.ts`);
const { renderObject, renderOptions } = await import(`${src}/src/engine/endpoints/render.ts`);
const { writeFieldManager, parseDryRun, parseFieldValidation } = await import(`${src}/src/engine/endpoints/query.ts`);
const mk = (i: number) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}`, namespace: 'bench', labels: { app: 'kcpt-bench', tier: 'backend' } }, data: { 'config.yaml': 'x'.repeat(560) } });
const body = Buffer.from(JSON.stringify(mk(1)));
const q = new URLSearchParams('');
const text = JSON.stringify({ ...mk(1), metadata: { ...mk(1).metadata, resourceVersion: '5', uid: 'x', managedFields: [] } });
const opts = renderOptions(configMaps, { accept: 'application/json', query: q });
const v: Record<string, () => unknown> = {
  'checkUnknownFields': () => checkUnknownFields(configMaps, mk(1), 'Warn', 'body'),
  'nestingTooDeep': () => nestingTooDeep(mk(1)),
  'query parse': () => [writeFieldManager(q, 'kubectl/v1.32', 'CreateOptions'), parseDryRun(q), parseFieldValidation(q)],
  'renderObject text': () => renderObject(configMaps, text, opts),
  'renderOptions': () => renderOptions(configMaps, { accept: 'application/json', query: q }),
  'mk only': () => mk(1),
};
const res: Record<string, number[]> = {};
for (const k in v) { res[k] = []; for (let i = 0; i < 20000; i++) v[k](); }
for (let r = 0; r < 9; r++) for (const k in v) { const c = process.cpuUsage(); for (let i = 0; i < 20000; i++) v[k](); const d = process.cpuUsage(c); res[k].push((d.user + d.system) / 20000); }
for (const k in res) { const s = res[k].sort((a,b)=>a-b); console.log(k.padEnd(24), 'median', s[4].toFixed(2), 'min', s[0].toFixed(2)); }
