import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { JSONSchemaProps } from '../types.js';
import { compileSchemaRules } from './compile.js';
import { validateRules } from './validate.js';

/**
 * Each row's `kube`: the field errors kube's own CRD CEL validator (k8s.io/apiextensions-apiserver v0.37.0,
 * cel.NewValidator) gave for the same schema (at spec), object and old object, as `field: message`.
 */
interface Row {
  name: string;
  spec: JSONSchemaProps;
  obj: unknown;
  old?: unknown;
  kube: string[];
}
const TABLE: Row[] = JSON.parse(readFileSync(new URL('./testdata/kube-list-types.json', import.meta.url), 'utf8'));

function errors(row: Row): string[] {
  const compiled = compileSchemaRules({ type: 'object', properties: { spec: row.spec } });
  expect(compiled.errors).toEqual([]);
  const old = row.old === undefined ? undefined : { spec: row.old };
  return validateRules(compiled, { spec: row.obj }, old).map((e) => `${e.field}: ${e.detail.replace(/^Invalid value: "[a-z]+": /, '')}`);
}

describe('x-kubernetes-list-type in CEL == and + (kube answers)', () => {
  it.each(TABLE.map((r) => [r.name, r] as const))('%s', (_name, row) => {
    expect(errors(row)).toEqual(row.kube);
  });

  it('compares a 50,000-item set reversed by index, not pairwise (an immutability rule accepts the reorder)', () => {
    const items = Array.from({ length: 50_000 }, (_, i) => `v${i}`);
    const row: Row = {
      name: 'large',
      spec: { type: 'object', properties: { l: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string', maxLength: 10 }, 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'immutable' }] } } },
      obj: { l: [...items].reverse() },
      old: { l: items },
      kube: [],
    };
    expect(errors(row)).toEqual([]);
    expect(errors({ ...row, obj: { l: [...items.slice(1), 'x'] } })).toEqual(['spec.l: immutable']);
  });
});
