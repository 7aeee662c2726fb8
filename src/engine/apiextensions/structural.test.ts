import { describe, expect, it } from 'vitest';
import { validateCRDSpec, type CRDLike } from './crd-validation.js';
import { validateStructuralSchema } from './structural.js';

const P = 'spec.versions[0].schema.openAPIV3Schema';
const render = (errs: { field: string; detail: string }[]) => errs.map((e) => `${e.field}: ${e.detail}`);
const check = (schema: unknown) => render(validateStructuralSchema(schema, P));

describe('validateStructuralSchema', () => {
  it('accepts a typical structural schema', () => {
    expect(
      check({
        type: 'object',
        properties: {
          metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 20 } } },
          spec: {
            type: 'object',
            properties: {
              port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
              free: { 'x-kubernetes-preserve-unknown-fields': true },
              labels: { type: 'object', additionalProperties: { type: 'string' } },
              tmpl: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
              a: { type: 'string' },
              b: { type: 'string' },
              ports: {
                type: 'array',
                'x-kubernetes-list-type': 'map',
                'x-kubernetes-list-map-keys': ['name'],
                items: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
              },
            },
            oneOf: [{ required: ['a'] }, { required: ['b'] }],
            not: { properties: { a: { pattern: '^x$' } } },
          },
        },
      }),
    ).toEqual([]);
  });

  it('requires a type everywhere, with level-specific messages', () => {
    expect(check({ properties: { spec: { properties: { a: {} } }, list: { type: 'array', items: {} } } })).toEqual([
      // kube sorts structural errors by their text
      `${P}.properties[list].items.type: Required value: must not be empty for specified array items`,
      `${P}.properties[spec].properties[a].type: Required value: must not be empty for specified object fields`,
      `${P}.properties[spec].type: Required value: must not be empty for specified object fields`,
      `${P}.type: Required value: must not be empty at the root`,
    ]);
    expect(check({ type: 'string' })).toEqual([`${P}.type: Invalid value: "string": must be object at the root`]);
    expect(check({ type: 'object', properties: { a: { type: 'array' } } })).toEqual([
      `${P}.properties[a].items: Required value: must be specified`,
    ]);
    expect(check({ type: 'object', properties: { a: { type: 'strnig' } } })[0]).toContain('Unsupported value: "strnig"');
  });

  it('forbids additionalProperties at the root and together with properties', () => {
    const m = { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: { type: 'string' } };
    expect(check({ type: 'object', properties: { m } })).toEqual([
      `${P}.properties[m].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive`,
    ]);
    expect(check({ type: 'object', additionalProperties: { type: 'string' } })).toEqual([
      `${P}.additionalProperties: Forbidden: must not be used at the root`,
    ]);
    expect(check({ type: 'object', properties: { m: { type: 'object', additionalProperties: false } } })).toEqual([]);
  });

  it('int-or-string excludes preserve-unknown-fields and embedded resources', () => {
    expect(check({ type: 'object', properties: { p: { 'x-kubernetes-int-or-string': true, 'x-kubernetes-preserve-unknown-fields': true } } })).toEqual([
      `${P}.properties[p].x-kubernetes-preserve-unknown-fields: Invalid value: true: must be false if x-kubernetes-int-or-string is true`,
    ]);
  });

  it('forbids keywords kube does not support', () => {
    expect(check({ type: 'object', properties: { l: { type: 'array', items: { type: 'string' }, uniqueItems: true }, r: { $ref: '#/x', type: 'string' }, z: { type: 'null' } } })).toEqual([
      `${P}.properties[l].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic`,
      `${P}.properties[r].$ref: Forbidden: $ref is not supported`,
      `${P}.properties[z].type: Forbidden: type cannot be set to null, use nullable as an alternative`,
    ]);
    expect(check({ type: 'object', properties: { p: { type: 'object', 'x-kubernetes-preserve-unknown-fields': false } } })).toEqual([
      `${P}.properties[p].x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined`,
    ]);
  });

  it('restricts root metadata to name and generateName', () => {
    expect(check({ type: 'object', properties: { metadata: { type: 'object', properties: { labels: { type: 'object' } } } } })).toEqual([
      `${P}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`,
    ]);
    expect(check({ type: 'object', properties: { kind: { type: 'integer' } } })).toEqual([
      `${P}.properties[kind].type: Invalid value: "integer": must be string`,
    ]);
  });

  it('forbids structural keywords under logical junctors', () => {
    expect(
      check({
        type: 'object',
        properties: { a: { type: 'string' } },
        allOf: [{ type: 'object', default: {}, description: 'd', nullable: true, properties: { a: { minLength: 1 }, b: { maxLength: 1 } } }],
        not: { 'x-kubernetes-preserve-unknown-fields': true, properties: { metadata: { required: ['name'] } } },
      }),
    ).toEqual([
      `${P}.allOf[0].default: Forbidden: must be undefined to be structural`,
      `${P}.allOf[0].description: Forbidden: must be empty to be structural`,
      `${P}.allOf[0].nullable: Forbidden: must be false to be structural`,
      `${P}.allOf[0].properties[b].type: Required value: must not be empty for specified object fields`,
      `${P}.allOf[0].type: Forbidden: must be empty to be structural`,
      `${P}.not.properties[metadata].type: Required value: must not be empty for specified object fields`,
      `${P}.not.properties[metadata]: Forbidden: must not be specified in a nested context`,
      `${P}.not.x-kubernetes-preserve-unknown-fields: Forbidden: must be false to be structural`,
    ]);
  });

  it('checks list types and map keys', () => {
    const errs = check({
      type: 'object',
      properties: {
        a: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-map-keys': ['x'] },
        b: { type: 'array', items: { type: 'object', properties: { k: { type: 'object' }, o: { type: 'string' } } }, 'x-kubernetes-list-type': 'map' },
        c: { type: 'array', items: { type: 'object', properties: { k: { type: 'string' } } }, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['k', 'z'] },
        d: { type: 'string', 'x-kubernetes-list-type': 'set' },
        e: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'bag' },
        f: { type: 'array', items: { type: 'object' }, 'x-kubernetes-list-type': 'set' },
      },
    });
    expect(errs).toEqual([
      `${P}.properties[a].x-kubernetes-list-type: Required value: must be map if x-kubernetes-list-map-keys is non-empty`,
      `${P}.properties[b].x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map`,
      `${P}.properties[c].x-kubernetes-list-map-keys: Invalid value: ["k","z"]: entries must all be names of item properties`,
      `${P}.properties[c].items.properties[k].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property`,
      `${P}.properties[d].type: Invalid value: "string": must be array if x-kubernetes-list-type is specified`,
      `${P}.properties[e].x-kubernetes-list-type: Unsupported value: "bag": supported values: "atomic", "set", "map"`,
      `${P}.properties[f].items.x-kubernetes-map-type: Invalid value: null: must be atomic as item of a list with x-kubernetes-list-type=set`,
    ]);
    expect(
      check({
        type: 'object',
        properties: {
          m: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['k'], items: { type: 'object', required: ['k'], properties: { k: { type: 'object' } } } },
        },
      }),
    ).toEqual([`${P}.properties[m].items.properties[k].type: Invalid value: "object": must be a scalar type if parent array's x-kubernetes-list-type is map`]);
  });

  it('defaults must validate and survive pruning', () => {
    expect(
      check({
        type: 'object',
        properties: {
          replicas: { type: 'integer', default: 'three' },
          obj: { type: 'object', properties: { a: { type: 'string' } }, default: { a: 'x', b: 1 } },
          ok: { type: 'object', properties: { a: { type: 'string', default: 'q' } }, default: { a: 'x' } },
          n: { type: 'string', default: null },
          nn: { type: 'string', nullable: true, default: null },
          min: { type: 'integer', minimum: 2, default: 1 },
        },
      }),
    ).toEqual([
      `${P}.properties[replicas].default: Invalid value: "string": in body must be of type integer: "string"`,
      `${P}.properties[obj].default: Invalid value: {"a":"x","b":1}: must not have unknown fields`,
      `${P}.properties[n].default: Invalid value: "null": in body must be of type string: "null"`,
      `${P}.properties[min].default: Invalid value: 1: in body should be greater than or equal to 2`,
    ]);
    expect(check({ type: 'object', properties: { metadata: { type: 'object', default: {} } } })).toEqual([
      `${P}.properties[metadata].default: Forbidden: must not be set in top-level metadata`,
    ]);
  });

  it('patterns must compile', () => {
    const errs = check({ type: 'object', properties: { a: { type: 'string', pattern: '([a-z' } }, not: { properties: { a: { pattern: '(' } } } });
    expect(errs).toHaveLength(2);
    expect(errs[1]).toMatch(/^spec\.versions\[0\]\.schema\.openAPIV3Schema\.properties\[a\]\.pattern: Invalid value: "\(\[a-z": must be a valid regular expression, but isn't: /);
    expect(errs[0]).toContain('.not.properties[a].pattern: Invalid value: "("');
  });

  // kube compiles a schema's pattern with Go's regexp (RE2): JavaScript-only syntax is refused with Go's message.
  it('patterns must be RE2: lookarounds, backreferences and repeats over 1000 are refused as Go refuses them', () => {
    const go = (pattern: string) => check({ type: 'object', properties: { a: { type: 'string', pattern } } });
    expect(go('^(?=a)a$')).toEqual([`${P}.properties[a].pattern: Invalid value: "^(?=a)a$": must be a valid regular expression, but isn't: error parsing regexp: invalid or unsupported Perl syntax: \`(?=\``]);
    expect(go('^(a)\\1$')[0]).toMatch(/error parsing regexp: invalid escape sequence: `\\1`$/);
    expect(go('^a{1001}$')[0]).toMatch(/error parsing regexp: invalid repeat count: `\{1001\}`$/);
    expect(go('^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)*$')).toEqual([]);
  });

  it('embedded resources must be objects with properties or preserve-unknown-fields', () => {
    expect(check({ type: 'object', properties: { t: { type: 'string', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true } } })).toEqual([
      `${P}.properties[t].type: Invalid value: "string": must be object if x-kubernetes-embedded-resource is true`,
    ]);
    expect(check({ type: 'object', properties: { t: { type: 'object', 'x-kubernetes-embedded-resource': true } } })).toEqual([
      `${P}.properties[t].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields`,
    ]);
  });
});

const goodCRD = (): CRDLike => ({
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList', shortNames: ['wd'] },
    versions: [
      { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } },
      { name: 'v1beta1', served: true, storage: false, schema: { openAPIV3Schema: { type: 'object' } } },
    ],
  },
});

describe('validateCRDSpec', () => {
  it('accepts a good CRD', () => {
    expect(validateCRDSpec(goodCRD())).toEqual([]);
  });

  it('name must be plural.group', () => {
    const c = goodCRD();
    c.metadata!.name = 'widget.example.com';
    expect(render(validateCRDSpec(c))).toEqual([
      'metadata.name: Invalid value: "widget.example.com": must be spec.names.plural+"."+spec.group',
    ]);
  });

  it('group needs a dot and protected groups need approval', () => {
    const c = goodCRD();
    c.spec!.group = 'example';
    c.metadata!.name = 'widgets.example';
    expect(render(validateCRDSpec(c))).toEqual(['spec.group: Invalid value: "example": should be a domain with at least one dot']);
    const k = goodCRD();
    k.spec!.group = 'foo.k8s.io';
    k.metadata!.name = 'widgets.foo.k8s.io';
    expect(render(validateCRDSpec(k))).toEqual([
      'metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111',
    ]);
    k.metadata!.annotations = { 'api-approved.kubernetes.io': 'https://github.com/kubernetes/kubernetes/pull/1' };
    expect(validateCRDSpec(k)).toEqual([]);
  });

  it('scope and names', () => {
    const c = goodCRD();
    c.spec!.scope = 'Global';
    c.spec!.names = { plural: 'widgets', kind: 'Wid_get', listKind: 'Wid_get', singular: 'Widget' };
    expect(render(validateCRDSpec(c))).toEqual([
      'spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"',
      expect.stringContaining('spec.names.singular: Invalid value: "Widget": a DNS-1035 label'),
      expect.stringContaining('spec.names.kind: Invalid value: "Wid_get": may have mixed case, but should otherwise match: a DNS-1035 label'),
      expect.stringContaining('spec.names.listKind: Invalid value: "Wid_get": may have mixed case'),
      'spec.names.listKind: Invalid value: "Wid_get": kind and listKind may not be the same',
    ]);
    const d = goodCRD();
    d.spec!.names = { plural: 'widgets' };
    expect(render(validateCRDSpec(d))).toEqual(['spec.names.singular: Required value', 'spec.names.kind: Required value', 'spec.names.listKind: Required value']);
  });

  it('versions: storage, uniqueness, schema, names', () => {
    const c = goodCRD();
    c.spec!.versions![1].storage = true;
    const errs = validateCRDSpec(c);
    expect(errs).toHaveLength(1);
    expect(errs[0].field).toBe('spec.versions');
    expect(errs[0].detail).toMatch(/must have exactly one version marked as storage version$/);

    const d = goodCRD();
    d.spec!.versions![1].name = 'v1';
    d.spec!.versions![1].schema = undefined;
    const dup = render(validateCRDSpec(d));
    expect(dup[0]).toBe('spec.versions[1].schema.openAPIV3Schema: Required value');
    expect(dup[1]).toMatch(/^spec\.versions: Invalid value: \[\]apiextensions\.CustomResourceDefinitionVersion\{.*\}: must contain unique version names$/);
    expect(dup).toHaveLength(2);

    const e = goodCRD();
    e.spec!.versions = [];
    expect(render(validateCRDSpec(e))).toEqual([
      'spec.versions: Invalid value: []apiextensions.CustomResourceDefinitionVersion{}: must have exactly one version marked as storage version',
    ]);

    const f = goodCRD();
    f.spec!.versions![0].name = 'V1';
    f.spec!.versions![0].schema = { openAPIV3Schema: { type: 'string' } };
    expect(render(validateCRDSpec(f))).toEqual([
      expect.stringContaining('spec.versions[0].name: Invalid value: "V1": a DNS-1035 label'),
      'spec.versions[0].schema.openAPIV3Schema.type: Invalid value: "string": must be object at the root',
    ]);
  });

  it('conversion strategy', () => {
    const c = goodCRD();
    c.spec!.conversion = { strategy: 'Magic' };
    expect(render(validateCRDSpec(c))).toEqual(['spec.conversion.strategy: Unsupported value: "Magic": supported values: "None", "Webhook"']);
    c.spec!.conversion = { strategy: 'Webhook' };
    expect(render(validateCRDSpec(c))).toEqual([
      'spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook',
      'spec.conversion.conversionReviewVersions: Required value',
    ]);
    c.spec!.conversion = { strategy: 'None' };
    expect(validateCRDSpec(c)).toEqual([]);
  });
});
