import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Optional } from '@marcbachmann/cel-js';
import { baseEnvironment } from './library.js';
import { CelCIDR, CelIP, CelQuantity, CelSemver } from './typed-libraries.js';
import { goAddrString, goPrefixString } from '../../machinery/go-net-parse.js';
import { estimateCost, type Ast } from './cost.js';
import type { CelNode } from './decl-types.js';
import type { JSONSchemaProps } from '../types.js';
import { compileSchemaRules } from './compile.js';

/**
 * kube's own answers: each expression was evaluated by cel-go v0.29.2 with k8s.io/apiserver v0.37.0's quantity, ip,
 * cidr, semver (version 1), format and ext.Strings(2) libraries (Go 1.26; a throwaway program, not in the repo),
 * which recorded the value or error, the runtime cost and the static estimate. `kubeHangs`: kube did not answer in
 * 5 s (it materialises 10^(2^31) or loops 2^31 times); kcpt must answer at once.
 */
interface Row {
  expr: string;
  value?: unknown;
  error?: string;
  compileError?: string;
  kubeHangs?: boolean;
  cost?: number;
  estimate?: number;
}
const TABLE: Row[] = JSON.parse(readFileSync(new URL('./testdata/kube-typed-libraries.json', import.meta.url), 'utf8'));

function semverString(v: CelSemver): string {
  const { major, minor, patch, pre, build } = v.v;
  return `${major}.${minor}.${patch}${pre.length ? `-${pre.join('.')}` : ''}${build.length ? `+${build.join('.')}` : ''}`;
}

/** The oracle's rendering of a value (Go's fmt %v for doubles is compared as a number). */
function show(v: unknown): unknown {
  if (typeof v === 'bigint') return `int:${v}`;
  if (typeof v === 'number') return v;
  if (v instanceof CelIP) return `IP:${goAddrString(v.addr)}`;
  if (v instanceof CelCIDR) return `CIDR:${goPrefixString(v.prefix)}`;
  if (v instanceof CelSemver) return `Semver:${semverString(v)}`;
  if (v instanceof CelQuantity) return 'Quantity';
  if (v instanceof Optional) return v.hasValue() ? show(v.value()) : null;
  return v;
}

function goDouble(s: string): number {
  const t = s.slice('double:'.length);
  return t === '+Inf' ? Infinity : t === '-Inf' ? -Infinity : Number(t);
}

/** Where kube's wording moved after the version kcpt's shared validators follow (apimachinery 0.31: "a qualified name"). */
const VERSION_WORDING = new Set(['format.qualifiedName().validate("a/b/c")']);

const NO_SELF: CelNode = { kind: 'dyn', schema: {}, type: 'dyn', maxSize: 0, bounded: true, minSerializedSize: 1 };

describe("kube's typed CEL libraries (quantity, ip, cidr, semver, format, strings.quote) against kube's own answers", () => {
  const env = baseEnvironment();
  const run = (expr: string) => {
    const program = env.parse(expr) as unknown as ((ctx: object) => unknown) & { ast: Ast; check(): { valid: boolean } };
    return { program, checked: program.check() };
  };

  it('compiles, evaluates and fails exactly as kube does', () => {
    const differences: string[] = [];
    let compared = 0;
    for (const row of TABLE) {
      const { program, checked } = run(row.expr);
      if (row.compileError !== undefined) {
        if (checked.valid) differences.push(`${row.expr}: kube refuses it at compile time (${row.compileError}); kcpt compiled it`);
        continue;
      }
      if (!checked.valid) {
        differences.push(`${row.expr}: kcpt refused it at compile time`);
        continue;
      }
      let got: { value: unknown } | { error: string };
      try {
        got = { value: show(program({})) };
      } catch (err) {
        got = { error: (err as Error).message };
      }
      if (row.kubeHangs || VERSION_WORDING.has(row.expr)) continue;
      compared++;
      const want = row.error !== undefined ? { error: row.error } : { value: typeof row.value === 'string' && row.value.startsWith('double:') ? goDouble(row.value) : row.value };
      if (typeof row.value === 'string' && row.value.startsWith('Quantity:')) (want as { value: unknown }).value = 'Quantity';
      if (!Object.is(JSON.stringify(got), JSON.stringify(want)) && !('value' in got && 'value' in want && Object.is(got.value, want.value))) {
        differences.push(`${row.expr}: kube ${JSON.stringify(want)}, kcpt ${JSON.stringify(got)}`);
      }
    }
    expect(differences).toEqual([]);
    expect(compared).toBeGreaterThan(300);
  });

  it('answers at once where kube computes for ever (huge exponents)', () => {
    const hangs = TABLE.filter((r) => r.kubeHangs);
    expect(hangs.length).toBeGreaterThanOrEqual(4);
    const outcome = (expr: string) => {
      try {
        return run(expr).program({});
      } catch (err) {
        return (err as Error).message;
      }
    };
    // Exact comparisons never materialise 10^(2^31); a parse that would (Go's int32 exponent wraps to -2^31,
    // then rounds to nano) is refused past kcpt's bound; Go's 2^31-step loop for 0 × 10^(2e9) is a product.
    expect(hangs.map((r) => [r.expr, outcome(r.expr)])).toEqual([
      ['quantity("1e2147483647").compareTo(quantity("1"))', 1n],
      ['quantity("1e-2147483648").compareTo(quantity("0"))', expect.stringMatching(/more than 100 digits beyond those written/)],
      ['quantity("1e-2147483648").compareTo(quantity("1n"))', expect.stringMatching(/more than 100 digits beyond those written/)],
      ['quantity("0e2000000000").asInteger()', 0n],
    ]);
  });

  it('charges at least what kube charges, for every expression', () => {
    const under: string[] = [];
    // Comprehensions are left out: cel-go charges per-iteration overheads the shared estimator does not (see NOTES).
    for (const row of TABLE) {
      if (row.cost === undefined || row.kubeHangs || row.expr.includes('].all(')) continue;
      const { program } = run(row.expr);
      const ours = estimateCost(program.ast, NO_SELF, () => 0);
      if (ours < row.cost) under.push(`${row.expr}: kube ${row.cost}, kcpt ${ours}`);
    }
    expect(under).toEqual([]);
  });

  it("estimates as kube estimates: equal on most rows, never below outside comprehensions (so kcpt refuses what kube refuses)", () => {
    let equal = 0;
    const under: string[] = [];
    for (const row of TABLE) {
      if (row.estimate === undefined || row.kubeHangs) continue;
      const { program, checked } = run(row.expr);
      if (!checked.valid) continue;
      const ours = estimateCost(program.ast, NO_SELF, () => 0);
      if (ours === row.estimate) equal++;
      else if (ours < row.estimate && !row.expr.includes('].all(')) under.push(`${row.expr}: kube ${row.estimate}, kcpt ${ours}`);
    }
    expect(under).toEqual([]);
    // The rest are above: strings.quote (1 per character here), validate() of a format not named in the rule, and
    // a negative int literal (cel-js: a negation).
    expect(equal).toBeGreaterThanOrEqual(350);
  });

  it("refuses `!=` between typed values at CRD write, as kube does (cel-go prices it at ~1.8e18); `!(a == b)` is fine", () => {
    const schema = (rule: string): JSONSchemaProps => ({
      type: 'object',
      properties: { spec: { type: 'object', properties: { a: { type: 'string', maxLength: 10 } }, 'x-kubernetes-validations': [{ rule }] } },
    });
    expect(compileSchemaRules(schema("quantity(self.a) != quantity('1')")).errors.map((e) => `${e.field}: ${e.detail}`)).toEqual([
      expect.stringMatching(/^openAPIV3Schema\.properties\[spec\]\.x-kubernetes-validations\[0\]\.rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x/),
      expect.stringMatching(/contributed to estimated rule cost total exceeding cost limit/),
      expect.stringMatching(/^openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x/),
    ]);
    expect(compileSchemaRules(schema("!(quantity(self.a) == quantity('1'))")).errors).toEqual([]);
  });

  it("format's %s refuses the typed values with cel-go's words (cel-go: when it checks a constant format)", () => {
    const words = 'error during formatting: string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given';
    for (const [value, type] of [['quantity("1")', 'kubernetes.Quantity'], ['[ip("::1")]', 'net.IP'], ['cidr("1.2.3.0/24")', 'net.CIDR'], ['semver("1.2.3")', 'kubernetes.Semver'], ['format.dns1123Label()', 'kubernetes.NamedFormat']]) {
      expect(() => run(`"%s".format([${value}])`).program({})).toThrow(`${words} ${type}`);
    }
  });

  it('bounds the work a hostile quantity can ask for', () => {
    // kube would build a number of 2^31 digits here; kcpt refuses past its bound, at once.
    expect(() => run('quantity("1111111111111111111e2000000000").isInteger()').program({})).toThrow(/more than 100 digits beyond those written/);
    expect(() => run('quantity("1e2000000").add(quantity("1.5Ki")).isInteger()').program({})).toThrow(/quantity out of kcpt's range: computing it exactly needs more than 200 digits$/);
    // Within the bounds, exact: 10^90 + 1n has 100 digits.
    expect(run('quantity("1e90").add(quantity("1n")).compareTo(quantity("1e90"))').program({})).toBe(1n);
    // Exact up to 100 digits; past that kcpt computes nothing (each operation costs 1 whatever the size), but
    // isQuantity still answers as kube: it only reads the syntax.
    const digits = '9'.repeat(95);
    expect(run(`quantity("${digits}").compareTo(quantity("${digits}0000m"))`).program({})).toBe(-1n);
    const long = '9'.repeat(200_000);
    expect(run(`isQuantity("${long}Ki")`).program({})).toBe(true);
    expect(run(`isQuantity("${long}Ki!")`).program({})).toBe(false);
    expect(() => run(`quantity("${long}")`).program({})).toThrow(/more than 100 digits/);
  });
});
