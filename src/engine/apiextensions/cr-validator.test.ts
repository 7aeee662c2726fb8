import { describe, expect, it } from 'vitest';
import { compileCRSchema } from './cr-validator.js';
import { ChangeDetector } from '../machinery/canonical-json.js';
import type { JSONSchemaProps } from './types.js';

const render = (errs: { field: string; detail: string }[]) => errs.map((e) => `${e.field}: ${e.detail}`);

const schema: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      required: ['x'],
      properties: {
        x: { type: 'string' },
        replicas: { type: 'integer', minimum: 1, maximum: 10 },
        mode: { type: 'string', enum: ['a', 'b'] },
        name: { type: 'string', maxLength: 5, minLength: 1, pattern: '^[a-z]+$' },
        port: { 'x-kubernetes-int-or-string': true },
        tags: { type: 'array', items: { type: 'string' }, maxItems: 3, 'x-kubernetes-list-type': 'set' },
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, port: { type: 'integer' } } },
        },
        template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
        opt: { type: 'string', nullable: true },
        labels: { type: 'object', additionalProperties: { type: 'string' }, 'x-kubernetes-map-type': 'atomic' },
        ratio: { type: 'number', minimum: 0, exclusiveMinimum: true },
        checked: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self != "x"' }] },
      },
    },
  },
};

const cr = (spec: Record<string, unknown>) => ({ apiVersion: 'example.com/v1', kind: 'Foo', metadata: { name: 'a' }, spec });

describe('compileCRSchema', () => {
  const v = compileCRSchema(schema);

  it('accepts a valid object and caches by identity', () => {
    expect(v.validate(cr({ x: 'y', replicas: 3, mode: 'a', port: 80, opt: null, labels: { a: 'b' } }))).toEqual([]);
    expect(v.validate(cr({ x: 'y', port: 'http' }))).toEqual([]);
    expect(compileCRSchema(schema)).toBe(v);
  });

  it('reports type errors as kube does', () => {
    const errs = v.validate(cr({ x: 'y', replicas: 'string' }));
    expect(render(errs)).toEqual(['spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"']);
    expect(errs[0].type).toBe('FieldValueTypeInvalid');
  });

  it('reports required, enum, min/max, length and pattern', () => {
    expect(render(v.validate(cr({})))).toEqual(['spec.x: Required value']);
    expect(render(v.validate(cr({ x: 'y', mode: 'c' })))).toEqual(['spec.mode: Unsupported value: "c": supported values: "a", "b"']);
    expect(render(v.validate(cr({ x: 'y', replicas: 0 })))).toEqual([
      'spec.replicas: Invalid value: 0: spec.replicas in body should be greater than or equal to 1',
    ]);
    expect(render(v.validate(cr({ x: 'y', replicas: 11 })))).toEqual([
      'spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10',
    ]);
    expect(render(v.validate(cr({ x: 'y', name: 'abcdef' })))).toEqual(['spec.name: Too long: may not be more than 5 bytes']);
    expect(render(v.validate(cr({ x: 'y', name: 'AB' })))).toEqual([
      "spec.name: Invalid value: \"AB\": spec.name in body should match '^[a-z]+$'",
    ]);
    expect(render(v.validate(cr({ x: 'y', name: '' })))).toContain(
      'spec.name: Invalid value: "": spec.name in body should be at least 1 chars long',
    );
    expect(render(v.validate(cr({ x: 'y', ratio: 0 })))).toEqual([
      'spec.ratio: Invalid value: 0: spec.ratio in body should be greater than 0',
    ]);
  });

  it('maxItems gives Too many', () => {
    const errs = v.validate(cr({ x: 'y', tags: ['a', 'b', 'c', 'd'] }));
    expect(render(errs)).toEqual(['spec.tags: Too many: 4: must have at most 3 items']);
    expect(errs[0].type).toBe('FieldValueTooMany');
  });

  it('int-or-string accepts integer or string only', () => {
    expect(render(v.validate(cr({ x: 'y', port: true })))).toEqual([
      'spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"',
    ]);
    expect(v.validate(cr({ x: 'y', port: 1.5 }))).toHaveLength(1);
  });

  it('list-type set and map report duplicates', () => {
    expect(render(v.validate(cr({ x: 'y', tags: ['a', 'b', 'a'] })))).toEqual(['spec.tags[2]: Duplicate value: "a"']);
    expect(
      render(v.validate(cr({ x: 'y', ports: [{ name: 'a', port: 1 }, { name: 'b' }, { name: 'a', port: 2 }] }))),
    ).toEqual(['spec.ports[2]: Duplicate value: map[string]interface {}{"name":"a"}']);
    expect(render(v.validate(cr({ x: 'y', ports: [{ port: 1 }] })))).toEqual(['spec.ports[0].name: Required value']);
  });

  it('embedded resources need apiVersion and kind', () => {
    expect(render(v.validate(cr({ x: 'y', template: { kind: 'Pod' } })))).toEqual([
      'spec.template.apiVersion: Required value: must not be empty',
    ]);
    expect(v.validate(cr({ x: 'y', template: { apiVersion: 'v1', kind: 'Pod', anything: 1 } }))).toEqual([]);
  });

  it('nullable and non-nullable nulls', () => {
    expect(v.validate(cr({ x: 'y', opt: null }))).toEqual([]);
    expect(render(v.validate(cr({ x: null })))).toEqual(['spec.x: Invalid value: "null": spec.x in body must be of type string: "null"']);
  });

  it('stays usable when compiled many times (ajv cache entries are dropped)', () => {
    for (let i = 0; i < 50; i++) {
      const s = compileCRSchema({ type: 'object', properties: { n: { type: 'integer', maximum: i } } });
      expect(s.validate({ n: i })).toEqual([]);
      expect(s.validate({ n: i + 1 })).toHaveLength(1);
    }
  });

  it('reports errors at the root without a path prefix', () => {
    const s = compileCRSchema({ type: 'object', required: ['spec'], properties: { spec: { type: 'object' } } });
    expect(render(s.validate({}))).toEqual(['spec: Required value']);
    expect(render(s.validate({ spec: 3 }))).toEqual(['spec: Invalid value: "integer": spec in body must be of type object: "integer"']);
  });

  it('oneOf/anyOf/not give kube wording', () => {
    const s = compileCRSchema({
      type: 'object',
      properties: { spec: { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } }, oneOf: [{ required: ['a'] }, { required: ['b'] }] } },
    });
    expect(render(s.validate({ spec: { a: 'x', b: 'y' } }))).toEqual([
      'spec: Invalid value: {"a":"x","b":"y"}: spec in body must validate one and only one schema (oneOf)',
    ]);
    expect(render(s.validate({ spec: {} }))).toContain('spec.a: Required value');
  });

  it('nullable typed and int-or-string fields', () => {
    const s = compileCRSchema({
      type: 'object',
      properties: { n: { type: 'integer', nullable: true }, p: { 'x-kubernetes-int-or-string': true, nullable: true }, q: { 'x-kubernetes-int-or-string': true } },
    });
    expect(s.validate({ n: null, p: null })).toEqual([]);
    expect(render(s.validate({ n: 'x' }))).toEqual(['n: Invalid value: "string": n in body must be of type integer: "string"']);
    expect(s.validate({ q: null })).toHaveLength(1);
  });

  it('does not mutate the input', () => {
    const obj = cr({ x: 'y', replicas: 'no', tags: ['a', 'a'] });
    const before = JSON.stringify(obj);
    v.validate(obj);
    expect(JSON.stringify(obj)).toBe(before);
  });

  it('compiles schemas with defaults, descriptions and formats', () => {
    const s = compileCRSchema({
      type: 'object',
      description: 'x',
      properties: { spec: { type: 'object', properties: { a: { type: 'string', format: 'int-or-whatever', default: 'q' } } } },
    });
    expect(s.validate({ spec: { a: 'x' } })).toEqual([]);
    expect(s.validate({ spec: { a: 1 } })).toHaveLength(1);
  });
});

// A tenant writes both the pattern and the string: JavaScript's backtracking RegExp took 19 s for this one at 31 a's
// (and doubles with each more), holding every tenant's requests. Go's regexp, and so kube, decides it in linear time.
describe('pattern', () => {
  it('is matched in linear time, anywhere in the string, as Go matches it', () => {
    const v = compileCRSchema({ type: 'object', properties: { s: { type: 'string', pattern: '^(a+)+$' }, t: { type: 'string', pattern: 'b+' } } });
    expect(render(v.validate({ s: `${'a'.repeat(5000)}!` }))).toEqual([`s: Invalid value: "${'a'.repeat(5000)}!": s in body should match '^(a+)+$'`]);
    expect(v.validate({ s: 'aaa', t: 'abbc' })).toEqual([]);
    expect(render(v.validate({ t: 'ac' }))).toEqual([`t: Invalid value: "ac": t in body should match 'b+'`]);
  });

  it('that is not RE2 (a CRD stored before patterns were checked as Go checks them) matches nothing', () => {
    const v = compileCRSchema({ type: 'object', properties: { s: { type: 'string', pattern: '^(?=a)a$' } } });
    expect(render(v.validate({ s: 'a' }))).toEqual([`s: Invalid value: "a": s in body should match '^(?=a)a$'`]);
  });
});

describe('string formats, as kube-openapi checks them', () => {
  const formats = compileCRSchema({
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          when: { type: 'string', format: 'date-time' },
          day: { type: 'string', format: 'date' },
          every: { type: 'string', format: 'duration' },
          blob: { type: 'string', format: 'byte' },
          id: { type: 'string', format: 'uuid' },
          addr: { type: 'string', format: 'ipv4' },
          count: { type: 'integer', format: 'int32' },
          site: { type: 'string', format: 'hostname-of-my-own' },
          maybe: { type: 'string', format: 'date-time', nullable: true },
        },
      },
    },
  });

  it('accepts what strfmt accepts', () => {
    const ok = {
      when: '2026-11-29T19:00:00Z', day: '2024-02-29', every: '5 minutes', blob: 'aGk=', id: 'b1f0c2a4-1234-4abc-8def-0123456789ab',
      addr: '010.1.2.3', count: 99999999999, site: 'anything', maybe: null,
    };
    expect(render(formats.validate(cr(ok)))).toEqual([]);
    for (const when of ['2026-11-29T19:00:00.123456+01:00', '2026-11-29t19:00:00z']) expect(render(formats.validate(cr({ when })))).toEqual([]);
  });

  it('refuses the rest with the format as the type, and the value quoted as Go does', () => {
    const refused = render(formats.validate(cr({ when: 'yesterday', day: '2023-02-29', every: 'soon', blob: '!!', id: 'nope', addr: '1.2.3.256' })));
    expect(refused).toEqual([
      'spec.when: Invalid value: "yesterday": spec.when in body must be of type date-time: "yesterday"',
      'spec.day: Invalid value: "2023-02-29": spec.day in body must be of type date: "2023-02-29"',
      'spec.every: Invalid value: "soon": spec.every in body must be of type duration: "soon"',
      'spec.blob: Invalid value: "!!": spec.blob in body must be of type byte: "!!"',
      'spec.id: Invalid value: "nope": spec.id in body must be of type uuid: "nope"',
      'spec.addr: Invalid value: "1.2.3.256": spec.addr in body must be of type ipv4: "1.2.3.256"',
    ]);
    // An empty string is no timestamp either (a Go client could not decode it into metav1.Time).
    expect(render(formats.validate(cr({ when: '' })))).toEqual(['spec.when: Invalid value: "": spec.when in body must be of type date-time: ""']);
    expect(render(formats.validate(cr({ when: '2026-11-29T24:00:00Z' })))).toHaveLength(1);
  });
});

describe('ratcheting on update', () => {
  const v = compileCRSchema({
    type: 'object',
    properties: { spec: { type: 'object', properties: { when: { type: 'string', format: 'date-time' }, size: { type: 'integer', maximum: 3 } } } },
  });
  const old = cr({ when: 'yesterday', size: 5 });

  it('drops errors on values the update left as they were, and keeps those on values it changed', () => {
    const unchanged = cr({ when: 'yesterday', size: 5, extra: 'x' });
    expect(render(v.validate(unchanged, old))).toEqual([]);
    const changed = cr({ when: 'tomorrow', size: 5 });
    expect(render(v.validate(changed, old))).toEqual([
      'spec.when: Invalid value: "tomorrow": spec.when in body must be of type date-time: "tomorrow"',
    ]);
    // Under a list, only when the whole list is unchanged.
    const listed = compileCRSchema({
      type: 'object',
      properties: { status: { type: 'object', properties: { conditions: { type: 'array', items: { type: 'object', properties: { at: { type: 'string', format: 'date-time' } } } } } } },
    });
    const before = { ...cr({}), status: { conditions: [{ at: 'x' }] } };
    const same = { ...cr({ size: 1 }), status: { conditions: [{ at: 'x' }] } };
    expect(render(listed.validate(same, before))).toEqual([]);
    const grown = { ...cr({}), status: { conditions: [{ at: 'x' }, { at: '2026-01-01T00:00:00Z' }] } };
    expect(render(listed.validate(grown, before))).toEqual([
      'status.conditions[0].at: Invalid value: "x": status.conditions[0].at in body must be of type date-time: "x"',
    ]);
    // A create has nothing to ratchet against.
    expect(render(v.validate(unchanged, undefined))).toHaveLength(2);
  });

  const ports = compileCRSchema({
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        required: ['name'],
        properties: {
          name: { type: 'string' },
          ports: {
            type: 'array',
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['port', 'protocol'],
            items: { type: 'object', required: ['port', 'protocol'], properties: { port: { type: 'integer' }, protocol: { type: 'string' }, host: { type: 'string', format: 'hostname' } } },
          },
          tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string', maxLength: 3 } },
          hosts: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
        },
      },
    },
  });
  const port = (n: number, host: string) => ({ port: n, protocol: 'TCP', host });

  it('matches the items of a map list by their keys, wherever they moved, as kube correlates them', () => {
    const before = cr({ name: 'a', ports: [port(80, 'bad_host'), port(443, 'ok.example')] });
    // The bad item moved and another item changed: its error is dropped; a changed bad item keeps its error.
    const moved = cr({ name: 'a', ports: [port(443, 'other.example'), port(80, 'bad_host'), port(8080, 'x.example')] });
    expect(render(ports.validate(moved, before))).toEqual([]);
    const changed = cr({ name: 'a', ports: [port(80, 'worse_host'), port(443, 'ok.example')] });
    expect(render(ports.validate(changed, before))).toEqual(['spec.ports[0].host: Invalid value: "worse_host": spec.ports[0].host in body must be of type hostname: "worse_host"']);
    // A new item with a bad value is checked.
    const added = cr({ name: 'a', ports: [port(80, 'bad_host'), port(443, 'ok.example'), port(81, 'new_bad')] });
    expect(render(ports.validate(added, before))).toEqual(['spec.ports[2].host: Invalid value: "new_bad": spec.ports[2].host in body must be of type hostname: "new_bad"']);
  });

  it('does not match the items of a set (kube correlates them only with the whole list)', () => {
    const before = cr({ name: 'a', tags: ['long-tag', 'b'] });
    expect(render(ports.validate(cr({ name: 'a', tags: ['long-tag', 'b'] }), before))).toEqual([]);
    expect(render(ports.validate(cr({ name: 'a', tags: ['long-tag', 'c'] }), before))).toEqual([
      'spec.tags[0]: Too long: may not be more than 3 bytes',
    ]);
  });

  it("drops a missing required field when its parent is unchanged: the parent's schema reported it", () => {
    const before = { ...cr({}), metadata: { name: 'w', labels: { a: 'b' } } };
    expect(render(ports.validate({ ...before, metadata: { name: 'w', labels: { a: 'c' } } }, before))).toEqual([]);
    expect(render(ports.validate(cr({ tags: ['a'] }), before))).toEqual(['spec.name: Required value']);
  });

  it("costs O(n) for n errors under one list, whoever wrote the object (a tenant's update must not hold the loop)", () => {
    // 50,000 errors under an atomic list and under a map list, the lists unchanged: every error is ratcheted away.
    // Each error used to walk and compare its whole list again (20,000 items: 123 s of the event loop).
    const wide = compileCRSchema({
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            atomic: { type: 'array', items: { type: 'string', maxLength: 1 } },
            keyed: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['k'], items: { type: 'object', required: ['k'], properties: { k: { type: 'string' }, v: { type: 'string', maxLength: 1 } } } },
          },
        },
      },
    });
    const n = 50_000;
    const make = () => cr({ atomic: Array.from({ length: n }, (_, i) => `ab${i}`), keyed: Array.from({ length: n }, (_, i) => ({ k: `k${i}`, v: 'ab' })) });
    expect(wide.validate(make(), undefined)).toHaveLength(2 * n);
    expect(render(wide.validate(make(), make()))).toEqual([]);
  });

  it('bounds the comparisons of errors at every level of a deep object together', () => {
    // A required field missing at each of 60 nested objects (old and new alike), a long list at the bottom that
    // the update changed: each error compared its level's whole value with the old one, depth × the list's length
    // (50 levels over a 2 MB list: 7.1 s of the event loop).
    const depth = 60;
    let s: JSONSchemaProps = { type: 'object', required: ['r'], properties: { r: { type: 'string' }, p: { type: 'array', items: { type: 'integer' } } } };
    for (let i = 0; i < depth; i++) s = { type: 'object', required: ['r'], properties: { r: { type: 'string' }, n: s } };
    const deep = compileCRSchema({ type: 'object', properties: { spec: s } });
    const n = 20_000;
    let reads = 0;
    const counted = (last: number) =>
      new Proxy(
        Array.from({ length: n }, (_, i) => (i === n - 1 ? last : 1)),
        {
          get(target, key, receiver) {
            reads++;
            return Reflect.get(target, key, receiver);
          },
        },
      );
    const chain = (list: number[]) => {
      let o: Record<string, unknown> = { p: list };
      for (let i = 0; i < depth; i++) o = { n: o };
      return cr(o);
    };
    const old = chain(counted(2));
    const obj = chain(counted(1));
    reads = 0;
    // The request's comparisons, with a budget of 100,000 values (2^22 in a request).
    expect(deep.validate(obj, old, new ChangeDetector(100_000))).toHaveLength(depth + 1);
    // Before: each error compared its level's whole value (2,480,368).
    expect(reads).toBeLessThanOrEqual(3 * 100_000 + 4 * n);
  });

  it('keeps duplicate list items only when the old object had none (the strategy checks list invariants apart)', () => {
    const dup = ['a', 'a'];
    const before = cr({ name: 'a', hosts: dup });
    expect(render(ports.validate(cr({ name: 'b', hosts: dup }), before))).toEqual([]);
    expect(render(ports.validate(cr({ name: 'b', hosts: ['x', 'x'] }), before))).toEqual([]);
    const clean = cr({ name: 'a', hosts: ['a'] });
    expect(render(ports.validate(cr({ name: 'a', hosts: dup }), clean))).toEqual(['spec.hosts[1]: Duplicate value: "a"']);
  });
});
