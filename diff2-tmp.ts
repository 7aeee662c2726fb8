import { parse, parseAllDocuments } from 'yaml';
import { readFileSync } from 'node:fs';
import { execSync } from 'node:child_process';
import { readRequestYaml } from './src/engine/machinery/request-yaml.ts';
const files = execSync("find . node_modules -name '*.yaml' -o -name '*.yml' | grep -v '/.git/' | head -3000", { encoding: 'utf8' }).split('\n').filter(Boolean);
let n = 0, bad = 0, docs = 0;
for (const f of files) {
  let text: string; try { text = readFileSync(f, 'utf8'); } catch { continue; }
  const parts = text.split(/^---\s*$/m);
  for (const t of parts) {
    if (!t.trim()) continue;
    let x: string, y: string;
    try { x = JSON.stringify(parse(t, { uniqueKeys: false, maxAliasCount: -1 })); } catch (e) { x = 'ERR'; }
    try { y = JSON.stringify(readRequestYaml(t, { duplicateKeys: 'last-wins' })); } catch (e) { y = 'ERR ' + (e as Error).message; }
    n++;
    if (x !== y) { bad++; if (bad < 15) console.log(f, '\n  ', x?.slice(0, 300), '\n  ', y?.slice(0, 300)); }
  }
}
console.log(files.length, 'files', n, 'docs', bad, 'differ');
