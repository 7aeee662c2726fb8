#!/usr/bin/env node
// How long one event-loop turn spends reading a YAML request body, in process: the way kcpt read it until
// 2026-11-29 (`old`: the yaml library's lexer for the depth pre-check, then its composer; for an apply under Strict
// or Warn a second composition for duplicate keys) against src/engine/machinery/request-yaml.ts (`new`: js-yaml in
// one pass with its depth and alias bounds). Both sides also run the decoded-depth walk every body gets. The sides
// alternate (old, new, then new, old, …) --rounds times; prints each side's median and range of CPU ms (the
// process's user+sys, which a shared box's load disturbs less than wall time; wall ms with --wall) per shape, and
// `bare`: js-yaml's own load with its core schema and nothing else (what the schema and the bounds add to it).
// Run it through tsx (it imports the TypeScript source):
//
//   npx tsx bench/yaml-body-pairs.js [--rounds 4] [--only block,flow-seqs,...] [--mb 2] [--no-old: new and bare only]
import { parseArgs } from 'node:util';
import { CORE_SCHEMA, load } from 'js-yaml';
import { Lexer, Parser, parse, parseDocument } from 'yaml';
import { nestingTooDeep } from '../src/engine/machinery/nesting-depth.ts';
import { readRequestYaml } from '../src/engine/machinery/request-yaml.ts';
import { median } from './lib/util.js';
import { blockConfigMap, fillTo, flowMaps } from './lib/yaml-bodies.js';

const { values } = parseArgs({ options: { rounds: { type: 'string' }, only: { type: 'string' }, mb: { type: 'string' }, 'no-old': { type: 'boolean' }, wall: { type: 'boolean' } } });
const rounds = Number(values.rounds ?? 4);
const bytes = Number(values.mb ?? 2) * 1024 * 1024;

const shapes = {
  // A ConfigMap as a person writes one: block style, ~100-byte values.
  block: () => blockConfigMap(bytes),
  // A custom resource's list of rows as flow sequences.
  'flow-seqs': () => fillTo(bytes, 'apiVersion: example.com/v1\nkind: Table\nmetadata: {name: big}\nspec:\n  rows: [', (i) => `[${i}, ${i + 1}, ${i + 2}, abc, def, 1.5, true]`, ', ', ']\n'),
  // Many small flow maps.
  'flow-maps': () => flowMaps(bytes),
  // A block list of small maps (env-like).
  'block-maps': () => fillTo(bytes, 'apiVersion: example.com/v1\nkind: Things\nmetadata:\n  name: big\nspec:\n  env:\n', (i) => `  - name: VAR_${i}\n    value: "${i}"`, '\n', '\n'),
  // What is refused: 999 levels, a 3 MB wall of brackets, a billion laughs.
  'deep-999': () => `${'- '.repeat(999)}x`,
  'brackets-3mb': () => '['.repeat(3 * 1024 * 1024 - 1),
  laughs: () => {
    const lines = ['a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]'];
    for (let i = 1; i < 10; i++) lines.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(10).fill(`*${String.fromCharCode(96 + i)}`).join(', ')}]`);
    return lines.join('\n');
  },
};

/** The yaml library's CST walk that guarded the composer (nesting-depth.ts's yamlTooDeep until 2026-11-29). */
function oldTooDeep(text, max = 500) {
  const parser = new Parser();
  for (const lexeme of new Lexer().lex(text)) {
    for (const _ of parser.next(lexeme));
    if (parser.stack.length > max + 2) return true;
  }
  return false;
}

const sides = {
  /** A create's body, as body.ts read it. */
  'old create': (text) => {
    if (oldTooDeep(text)) return 'refused';
    return nestingTooDeep(parse(text, { maxAliasCount: 100, uniqueKeys: false })) ? 'refused' : 'ok';
  },
  'new create': (text) => nestingTooDeep(readRequestYaml(text, { duplicateKeys: 'last-wins' })) ? 'refused' : 'ok',
  /** An apply under Strict or Warn, as apply-handler.ts read it: two compositions, the second for duplicate keys. */
  'old apply': (text) => {
    if (oldTooDeep(text)) return 'refused';
    const doc = parseDocument(text, { uniqueKeys: false });
    if (doc.errors.length > 0) return 'refused';
    parseDocument(text);
    return nestingTooDeep(doc.toJS({ maxAliasCount: 100 })) ? 'refused' : 'ok';
  },
  'bare create': (text) => {
    load(text, { schema: CORE_SCHEMA, json: true, maxDepth: 1e9 });
    return 'ok';
  },
  'new apply': (text) => nestingTooDeep(readRequestYaml(text, { duplicateKeys: 'refuse' })) ? 'refused' : 'ok',
};

function time(side, text) {
  const start = performance.now();
  const cpu = process.cpuUsage();
  let outcome;
  try {
    outcome = sides[side](text);
  } catch (err) {
    outcome = `refused (${String(err.message).split('\n')[0].slice(0, 60)})`;
  }
  const used = process.cpuUsage(cpu);
  return { ms: values.wall ? performance.now() - start : (used.user + used.system) / 1000, outcome };
}

const only = values.only ? values.only.split(',') : Object.keys(shapes);
const fmt = (xs) => `${median(xs).toFixed(0).padStart(6)} ms (${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)})`;
for (const name of only) {
  const text = shapes[name]();
  const kinds = name === 'block' || name === 'flow-maps' ? ['create', 'apply'] : ['create'];
  for (const kind of kinds) {
    const ms = { old: [], new: [], bare: [] };
    const outcomes = {};
    const bare = kind === 'create' && !['deep-999', 'brackets-3mb', 'laughs'].includes(name);
    for (let r = 0; r < rounds; r++) {
      const pair = values['no-old'] ? ['new'] : r % 2 === 0 ? ['old', 'new'] : ['new', 'old'];
      for (const side of bare ? (r % 2 === 0 ? [...pair, 'bare'] : ['bare', ...pair]) : pair) {
        const t = time(`${side} ${kind}`, text);
        ms[side].push(t.ms);
        outcomes[side] = t.outcome;
      }
    }
    const old = values['no-old'] ? '' : `old ${fmt(ms.old)}   `;
    const ratio = values['no-old'] ? '' : `${(median(ms.old) / median(ms.new)).toFixed(1)}x   `;
    console.log(
      `${`${name} ${kind}`.padEnd(20)} ${(text.length / 1024).toFixed(0).padStart(5)} KiB   ${old}new ${fmt(ms.new)}   ${ratio}` +
        `${bare ? `bare js-yaml ${fmt(ms.bare)}   ` : ''}[${values['no-old'] ? '' : `${outcomes.old} / `}${outcomes.new}]`,
    );
  }
}
