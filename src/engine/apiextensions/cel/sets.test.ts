import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { JSONSchemaProps } from '../types.js';
import { compileSchemaRules, type RuleNode } from './compile.js';
import { estimateCost, PER_CALL_LIMIT, type Ast } from './cost.js';
import { validateRules } from './validate.js';

/**
 * kube's answers: each row's rule sat on `spec` (of `properties`) in kube's own CRD CEL validator
 * (k8s.io/apiextensions-apiserver v0.37.0 with its base environment: cel-go v0.29.2 ext.Sets), which gave the field
 * errors for `obj` (`kube`, as `field: message`; the rule's message is "false"), the rule's static MaxCost
 * (`estimate`), or the compilation error (`kubeCompileError`).
 */
interface Row {
  name: string;
  rule: string;
  obj: Record<string, unknown>;
  kube?: string[];
  estimate?: number;
  kubeCompileError?: string;
}
const DATA: { properties: Record<string, JSONSchemaProps>; rows: Row[] } = JSON.parse(readFileSync(new URL('./testdata/kube-sets.json', import.meta.url), 'utf8'));

const schemaOf = (rule: string): JSONSchemaProps => ({
  type: 'object',
  properties: { spec: { type: 'object', properties: DATA.properties, 'x-kubernetes-validations': [{ rule, message: 'false' }] } },
});

/** Kube, as kcpt, refuses these at CRD write (estimated past the per-call limit): their estimate is compared alone. */
const refusedForCost = (r: Row) => (r.estimate ?? 0) > PER_CALL_LIMIT;

function specRule(compiled: ReturnType<typeof compileSchemaRules>) {
  const spec = compiled.root!.properties!.get('spec') as RuleNode;
  return { ast: spec.rules[0].program.ast as Ast, node: spec.node };
}

describe('cel-go ext sets in CRD rules (kube answers)', () => {
  it.each(DATA.rows.filter((r) => r.kubeCompileError === undefined && !refusedForCost(r)).map((r) => [r.name, r] as const))('%s', (_name, row) => {
    const compiled = compileSchemaRules(schemaOf(row.rule));
    expect(compiled.errors).toEqual([]);
    const errs = validateRules(compiled, { spec: row.obj }, undefined).map((e) => `${e.field}: ${e.detail.replace(/^Invalid value: "[a-z]+": /, '')}`);
    expect(errs).toEqual(row.kube);
    const { ast, node } = specRule(compiled);
    expect(estimateCost(ast, node, (n) => n.maxSize)).toBe(row.estimate);
  });

  it.each(DATA.rows.filter((r) => r.kubeCompileError !== undefined).map((r) => [r.name, r] as const))('refused at CRD write: %s', (_name, row) => {
    const compiled = compileSchemaRules(schemaOf(row.rule));
    expect(compiled.errors.map((e) => e.detail)).toEqual([expect.stringMatching(/compilation failed: ERROR: <input>:1:\d+: /)]);
    expect(compiled.errors[0].detail).not.toMatch(/kcpt/);
  });

  it.each(DATA.rows.filter(refusedForCost).map((r) => [r.name, r] as const))('refused at CRD write for its cost, estimated as kube: %s', (_name, row) => {
    const compiled = compileSchemaRules(schemaOf(row.rule));
    expect(compiled.errors.map((e) => e.detail)).toContainEqual(expect.stringMatching(/^Forbidden: estimated rule cost exceeds budget by factor of more than 100x/));
    const { ast, node } = specRule(compiled);
    expect(estimateCost(ast, node, (n) => n.maxSize)).toBe(row.estimate);
  });

  it('charges each pair of deep elements at run time by the values they hold (so a request cannot compare more than it pays for)', () => {
    const s: JSONSchemaProps = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: { ll: { type: 'array', maxItems: 2, items: { type: 'array', maxItems: 200_000, items: { type: 'integer' } } } },
          'x-kubernetes-validations': [{ rule: 'sets.equivalent(self.ll, self.ll)', message: 'false' }],
        },
      },
    };
    const compiled = compileSchemaRules(s);
    expect(compiled.errors).toEqual([]);
    const big = Array.from({ length: 150_000 }, (_, i) => i);
    // 2 x 2 pairs, twice, of lists of 150,000 values each: past the per-call limit of 1,000,000 (kube's estimate
    // charges 1 a pair: 9 here).
    expect(validateRules(compiled, { spec: { ll: [big, big] } }, undefined).map((e) => e.detail)).toEqual([
      expect.stringMatching(/call cost exceeds limit for rule/),
    ]);
    expect(validateRules(compiled, { spec: { ll: [[1, 2], [3]] } }, undefined)).toEqual([]);
  });
});
