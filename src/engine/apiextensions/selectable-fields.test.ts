import { describe, expect, it } from 'vitest';
import { compileFieldSelector, parseFieldSelector } from '../machinery/field-selector.js';
import type { KubeObject } from '../registry/types.js';
import { fieldSelectorsFor, validFieldPath, validateSelectableFields } from './selectable-fields.js';
import type { JSONSchemaProps } from './types.js';

const render = (errs: { field: string; detail: string }[]) => errs.map((e) => `${e.field}: ${e.detail}`);

const schema: JSONSchemaProps = {
  type: 'object',
  properties: {
    metadata: { type: 'object', properties: { name: { type: 'string' } } },
    spec: {
      type: 'object',
      properties: {
        color: { type: 'string', enum: ['red', 'blue'] },
        size: { type: 'integer' },
        on: { type: 'boolean' },
        ratio: { type: 'number' },
        when: { type: 'string', format: 'date-time' },
        nested: { type: 'object', properties: { deep: { type: 'string' } } },
        tags: { type: 'array', items: { type: 'string' } },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        port: { 'x-kubernetes-int-or-string': true },
        a: { type: 'string' }, b: { type: 'string' }, c: { type: 'string' }, d: { type: 'string' },
        e: { type: 'string' }, f: { type: 'string' }, g: { type: 'string' },
      },
    },
  },
};

const widget = (spec: Record<string, unknown>): KubeObject => ({ metadata: { name: 'w', namespace: 'ns' }, spec });

describe('fieldSelectorsFor (customResourceStrategy.selectableFields)', () => {
  const fields = fieldSelectorsFor([{ jsonPath: '.spec.color' }, { jsonPath: '.spec.size' }, { jsonPath: '.spec.on' }, { jsonPath: '.spec.nested.deep' }]);

  it('labels are the jsonPath without its leading dot', () => {
    expect(Object.keys(fields)).toEqual(['spec.color', 'spec.size', 'spec.on', 'spec.nested.deep']);
  });

  it("values are fmt.Sprint of the field; absent and null read as ''", () => {
    const obj = widget({ color: 'red', size: 3, on: false, nested: null });
    expect(Object.values(fields).map((f) => f(obj))).toEqual(['red', '3', 'false', '']);
    expect(fields['spec.color']?.(widget({}))).toBe('');
  });

  it('plugs into the field-selector compiler: =, != and matching absent fields with empty values', () => {
    const objs = [widget({ color: 'red', size: 1 }), widget({ color: 'blue', size: 2 }), widget({ size: 3 })];
    const select = (s: string) =>
      objs.filter((o) => compileFieldSelector(parseFieldSelector(s), fields).matches(o)).map((o) => (o.spec as { size: number }).size);
    expect(select('spec.color=red')).toEqual([1]);
    expect(select('spec.color!=red')).toEqual([2, 3]);
    expect(select('spec.color=')).toEqual([3]);
    expect(select('spec.size=2,spec.color=blue')).toEqual([2]);
    expect(() => select('spec.ratio=1')).toThrow('field label not supported: spec.ratio');
  });

  it('no selectable fields means no extra labels', () => {
    expect(fieldSelectorsFor(undefined)).toEqual({});
  });
});

describe('validFieldPath (cel.ValidFieldPath without array notation)', () => {
  it('returns the field path and the schema it names', () => {
    expect(validFieldPath('.spec.color', schema)).toEqual({ path: ['spec', 'color'], schema: schema.properties?.spec?.properties?.color });
    expect(validFieldPath('.spec.labels.app', schema)).toMatchObject({ path: ['spec', 'labels', '[app]'], schema: { type: 'string' } });
  });

  it("fails with kube's reasons", () => {
    expect(validFieldPath('spec.color', schema)).toEqual({ error: 'expected [ or . but got: spec' });
    expect(validFieldPath(".spec['color']", schema)).toEqual({ error: 'array notation is not allowed' });
    expect(validFieldPath('.spec.', schema)).toEqual({ error: 'unexpected end of JSON path' });
    expect(validFieldPath('.spec.nope', schema)).toEqual({ error: 'does not refer to a valid field' });
    expect(validFieldPath('.spec.color.x', schema)).toEqual({ error: 'does not refer to a valid field' });
  });
});

describe('validateSelectableFields (ValidateCustomResourceSelectableFields)', () => {
  const P = 'spec.versions[0].selectableFields';
  const check = (paths: string[]) => render(validateSelectableFields(paths.map((jsonPath) => ({ jsonPath })), schema, P));

  it('accepts string (enums and formats included), integer and boolean fields', () => {
    expect(check(['.spec.color', '.spec.size', '.spec.on', '.spec.when', '.spec.nested.deep', '.spec.labels.app'])).toEqual([]);
  });

  it('rejects other types, metadata and bad paths', () => {
    const typeMsg = 'must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.';
    expect(check(['.spec.ratio', '.spec.tags', '.spec.nested', '.spec.port', '.metadata.name', '.spec.missing', 'spec.color'])).toEqual([
      `${P}[0].jsonPath: Invalid value: ".spec.ratio": ${typeMsg}`,
      `${P}[1].jsonPath: Invalid value: ".spec.tags": ${typeMsg}`,
      `${P}[2].jsonPath: Invalid value: ".spec.nested": ${typeMsg}`,
      `${P}[3].jsonPath: Invalid value: ".spec.port": ${typeMsg}`,
      `${P}[4].jsonPath: Invalid value: ".metadata.name": must not point to fields in metadata`,
      `${P}[5].jsonPath: Invalid value: ".spec.missing": is an invalid path: does not refer to a valid field`,
      `${P}[6].jsonPath: Invalid value: "spec.color": is an invalid path: expected [ or . but got: spec`,
    ]);
  });

  it('requires a jsonPath and rejects duplicates', () => {
    expect(render(validateSelectableFields([{ jsonPath: '.spec.color' }, {}, { jsonPath: '.spec.color' }], schema, P))).toEqual([
      `${P}[1].jsonPath: Required value`,
      `${P}[2].jsonPath: Duplicate value: ".spec.color"`,
    ]);
  });

  it('allows at most 8 distinct fields', () => {
    const eight = ['.spec.color', '.spec.size', '.spec.on', '.spec.a', '.spec.b', '.spec.c', '.spec.d', '.spec.e'];
    expect(check(eight)).toEqual([]);
    expect(check([...eight, '.spec.f'])).toEqual([`${P}: Too many: 9: must have at most 8 items`]);
    // Duplicates count once.
    expect(check([...eight, '.spec.e'])).toEqual([`${P}[8].jsonPath: Duplicate value: ".spec.e"`]);
  });
});
