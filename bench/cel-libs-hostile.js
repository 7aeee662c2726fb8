#!/usr/bin/env node
// The most work a hostile custom resource can ask of kube's typed CEL libraries in one write: for each library, a
// CRD rule the CRD-write estimate accepts, run on the object that makes it do the most work within the request size
// and the runtime cost budget (src/engine/apiextensions/cel/validate.ts refuses what exceeds them before running).
// Prints CPU ms of one validation (the process's user+sys), the median and range over --rounds, and the errors it
// gave. Run it through tsx (it imports the TypeScript source):
//
//   npx tsx bench/cel-libs-hostile.js [--rounds 5]
import { parseArgs } from 'node:util';
import { compileSchemaRules } from '../src/engine/apiextensions/cel/compile.ts';
import { validateRules } from '../src/engine/apiextensions/cel/validate.ts';
import { median, range } from './lib/util.js';

const { values } = parseArgs({ options: { rounds: { type: 'string' } } });
const rounds = Number(values.rounds ?? 5);

const MB = 1024 * 1024;
const spec = (properties, rules) => ({
  type: 'object',
  properties: { spec: { type: 'object', properties, 'x-kubernetes-validations': rules.map((rule) => ({ rule })) } },
});
const str = (maxLength) => ({ type: 'string', maxLength });
const list = (maxItems, items) => ({ type: 'array', maxItems, items });
const repeat = (n, rule) => Array.from({ length: n }, () => rule).join(' && ');

// Each case: ten rules, each just under kube's per-call limit (1e6), together just under the budget (1e7).
const ten = (rule) => Array(10).fill(rule);
const cases = {
  // quote charged 1 per character: each rule quotes 900 KB of characters that all need escaping.
  'strings.quote of 900 KB of escapes, 10 rules': {
    schema: spec({ s: str(900_000) }, ten("strings.quote(self.s) != ''")),
    obj: { spec: { s: '"\n'.repeat(450_000) } },
  },
  'isIP of a 1 MB string 9 times, 10 rules': {
    schema: spec({ s: str(MB), l: list(9, str(1)) }, ten("self.l.all(x, isIP(self.s) || x == 'y')")),
    obj: { spec: { s: '1'.repeat(MB), l: Array(9).fill('x') } },
  },
  'ip() failing on a 1 MB string 9 times, absorbed by ||, 10 rules': {
    schema: spec({ s: str(MB), l: list(9, str(1)) }, ten("self.l.all(x, ip(self.s).family() == 4 || x == 'x')")),
    obj: { spec: { s: '1:'.repeat(MB / 2), l: Array(9).fill('x') } },
  },
  'isQuantity of a 1 MB quantity 9 times, 10 rules': {
    schema: spec({ s: str(MB), l: list(9, str(1)) }, ten("self.l.all(x, isQuantity(self.s) || x == 'y')")),
    obj: { spec: { s: `${'9'.repeat(MB - 2)}Ki`, l: Array(9).fill('x') } },
  },
  'compareTo of a bound 100-digit quantity 150k times, 10 rules': {
    schema: spec({ q: str(100), l: list(150_000, { type: 'integer' }) }, ten('[quantity(self.q)].all(q, self.l.all(x, q.compareTo(q) == 0))')),
    obj: { spec: { q: '7'.repeat(100), l: Array(150_000).fill(1) } },
  },
  'add of 100-digit quantities shifted by 100 digits, 25k times, 10 rules': {
    schema: spec({ q: str(100), l: list(25_000, { type: 'integer' }) }, ten("[quantity(self.q), quantity('1e-9')].all(q, self.l.all(x, sign(q.add(quantity(self.q))) == 1))")),
    obj: { spec: { q: `${'7'.repeat(96)}e91`, l: Array(25_000).fill(1) } },
  },
  'format.uri().validate of a 30 KB string, 10 rules': {
    schema: spec({ s: str(30_000) }, ten('!format.uri().validate(self.s).hasValue()')),
    obj: { spec: { s: `http://x/${'a%'.repeat(14_990)}` } },
  },
  // The same shape of loop with no library call: what cel-js itself spends per unit of budget.
  'baseline: the comparison loop without a quantity, 10 rules': {
    schema: spec({ l: list(100_000, { type: 'integer' }) }, ten('[1].all(q, self.l.all(x, q + q == q + q))')),
    obj: { spec: { l: Array(100_000).fill(1) } },
  },
};

const cpuMs = (f) => {
  const t = process.cpuUsage();
  const r = f();
  const d = process.cpuUsage(t);
  return [(d.user + d.system) / 1000, r];
};

for (const [name, c] of Object.entries(cases)) {
  const rules = compileSchemaRules(c.schema);
  if (rules.errors.length > 0) {
    console.log(`${name}: refused at CRD write: ${rules.errors[0].detail.split('\n')[0].slice(0, 200)}`);
    continue;
  }
  const times = [];
  let errs = [];
  for (let i = 0; i < rounds; i++) {
    const [ms, r] = cpuMs(() => validateRules(rules, c.obj, undefined));
    times.push(ms);
    errs = r;
  }
  const shown = errs.length === 0 ? 'no errors' : `${errs.length} errors, first: ${errs[0].field}: ${errs[0].detail.slice(0, 100)}`;
  console.log(`${name}: ${median(times).toFixed(1)} ms (range ${range(times)}) — ${shown}`);
}
