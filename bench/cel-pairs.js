#!/usr/bin/env node
// What x-kubernetes-validations cost a custom resource write, in process: validating an ordinary custom resource
// (the schema walk, src/engine/apiextensions/cr-validator.ts) against the same schema carrying six typical
// kubebuilder XValidation rules (the walk, then src/engine/apiextensions/cel/validate.ts: converting the object to
// CEL values, bounding each rule's cost from the object's sizes, evaluating). `plain` and `rules` alternate (plain
// first in odd rounds, rules first in even ones) --rounds times; prints CPU µs per validation (the process's
// user+sys over --n validations) for every round, then each side's median and range. Also: compiling the rules
// (what a CRD write adds), µs per fresh schema. Run it through tsx (it imports the TypeScript source):
//
//   npx tsx bench/cel-pairs.js [--rounds 8] [--n 20000]
import { parseArgs } from 'node:util';
import { compileCRSchema } from '../src/engine/apiextensions/cr-validator.ts';
import { compileSchemaRules } from '../src/engine/apiextensions/cel/compile.ts';
import { validateRules } from '../src/engine/apiextensions/cel/validate.ts';
import { median, range } from './lib/util.js';
import { appObject as obj, appSchema as schema } from './lib/cel-fixtures.js';

const { values } = parseArgs({ options: { rounds: { type: 'string' }, n: { type: 'string' } } });
const rounds = Number(values.rounds ?? 8);
const n = Number(values.n ?? 20_000);

const cpuUs = (f) => {
  const t = process.cpuUsage();
  f();
  const d = process.cpuUsage(t);
  return d.user + d.system;
};

const plainSchema = schema(false);
const rulesSchema = schema(true);
const plainWalk = compileCRSchema(plainSchema);
const rulesWalk = compileCRSchema(rulesSchema);
const rules = compileSchemaRules(rulesSchema);
if (rules.errors.length > 0) throw new Error(JSON.stringify(rules.errors));
const sides = {
  plain: () => {
    for (let i = 0; i < n; i++) if (plainWalk.validate(obj).length) throw new Error('invalid');
  },
  rules: () => {
    for (let i = 0; i < n; i++) if (rulesWalk.validate(obj).length || validateRules(rules, obj, undefined).length) throw new Error('invalid');
  },
};
sides.plain();
sides.rules();
const results = { plain: [], rules: [] };
for (let r = 0; r < rounds; r++) {
  const order = r % 2 === 0 ? ['plain', 'rules'] : ['rules', 'plain'];
  const row = {};
  for (const side of order) row[side] = cpuUs(sides[side]) / n;
  results.plain.push(row.plain);
  results.rules.push(row.rules);
  console.log(`round ${r + 1}: plain ${row.plain.toFixed(2)} µs, rules ${row.rules.toFixed(2)} µs`);
}
for (const side of ['plain', 'rules']) {
  const [lo, hi] = range(results[side]);
  console.log(`${side}: median ${median(results[side]).toFixed(2)} µs per validation (${lo.toFixed(2)}–${hi.toFixed(2)})`);
}
const compileUs = [];
for (let r = 0; r < 20; r++) compileUs.push(cpuUs(() => compileSchemaRules(schema(true))));
console.log(`compile the six rules (a CRD write): median ${median(compileUs).toFixed(0)} µs (${range(compileUs).map((x) => x.toFixed(0)).join('–')})`);
