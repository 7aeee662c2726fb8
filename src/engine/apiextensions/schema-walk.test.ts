import { describe, expect, it, vi } from 'vitest';
import { ajvCRValidator as oracleValidator } from '../../../test/helpers/ajv-cr-oracle.js';
import { rng } from '../../../test/helpers/seeded-random.js';
import { compileCRSchema } from './cr-validator.js';
import { prepareSchema } from './schema-walk.js';
import { isPlainObject, type JSONSchemaProps } from './types.js';

// ---------------------------------------------------------------------------------------------------------------
// Random structural schemas (kube's JSONSchemaProps vocabulary) and values near them.

type R = () => number;
const pick = <T>(r: R, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
const chance = (r: R, p: number) => r() < p;
// Keys kube allows and JSON pointers must escape; no names an object inherits (ajv reads `data.constructor`).
const NAMES = ['a', 'b', 'c', 'name', 'port', 'x.y', 'p/q', 't~u', 'ü', 'spec'];
const PATTERNS = ['^[a-z]+$', 'b+', '^.{2}$', '😀', '^[0-9]*$'];
const SCALARS = [null, true, false, 0, 1, -3, 2.5, 4, 1e21, '', 'a', 'ab', 'abc', 'bb', '12', '😀', '😀😀x', 'ZZ'];

function randomValue(r: R, depth = 0): unknown {
  const k = r();
  if (depth > 2 || k < 0.6) return pick(r, SCALARS);
  if (k < 0.8) return Array.from({ length: Math.floor(r() * 4) }, () => randomValue(r, depth + 1));
  const o: Record<string, unknown> = {};
  for (let i = Math.floor(r() * 4); i > 0; i--) o[pick(r, NAMES)] = randomValue(r, depth + 1);
  return o;
}

/** Value validations only, as structural schemas allow under allOf/anyOf/oneOf/not; a type now and then for order. */
function junctorSchema(r: R, depth: number): JSONSchemaProps {
  const s: JSONSchemaProps = {};
  const n = 1 + Math.floor(r() * 2);
  for (let i = 0; i < n; i++) {
    switch (Math.floor(r() * 10)) {
      case 0: s.required = [pick(r, NAMES)]; break;
      case 1: s.minimum = pick(r, [0, 2, 3.5]); break;
      case 2: s.maxLength = pick(r, [0, 1, 2]); break;
      case 3: s.pattern = pick(r, PATTERNS); break;
      case 4: s.enum = [pick(r, SCALARS), pick(r, SCALARS)]; break;
      case 5: s.properties = { [pick(r, NAMES)]: { maxLength: 1 } }; break;
      case 6: s.type = pick(r, ['string', 'integer', 'object']); break;
      case 7: s.maxItems = 1; s.items = { minimum: 1 }; break;
      case 8: if (depth < 3) s.anyOf = [junctorSchema(r, depth + 1), junctorSchema(r, depth + 1)]; break;
      default: s.minProperties = 2; break;
    }
  }
  return s;
}

function genSchema(r: R, depth: number, root = false): JSONSchemaProps {
  const kind = root ? 'object' : depth > 3 ? pick(r, ['string', 'integer', 'boolean']) : pick(r, ['string', 'integer', 'number', 'boolean', 'object', 'array', 'int-or-string', 'preserve']);
  let s: JSONSchemaProps;
  switch (kind) {
    case 'int-or-string':
      s = { 'x-kubernetes-int-or-string': true };
      break;
    case 'preserve':
      s = { 'x-kubernetes-preserve-unknown-fields': true };
      break;
    default:
      s = { type: kind };
  }
  if (!root && chance(r, 0.2)) s.nullable = true;
  if (chance(r, 0.15)) s.enum = Array.from({ length: 1 + Math.floor(r() * 3) }, () => (chance(r, 0.8) ? pick(r, SCALARS) : randomValue(r, 1)));
  if (kind === 'string') {
    if (chance(r, 0.3)) s.maxLength = pick(r, [0, 1, 2, 3]);
    if (chance(r, 0.3)) s.minLength = pick(r, [1, 2, 3]);
    if (chance(r, 0.3)) s.pattern = pick(r, PATTERNS);
    if (chance(r, 0.2)) s.format = pick(r, ['date-time', 'uuid', 'ipv4', 'byte', 'int32', 'password']);
  }
  if (kind === 'integer' || kind === 'number') {
    if (chance(r, 0.3)) s.minimum = pick(r, [0, 1, 2.5, -3]);
    if (chance(r, 0.3)) s.maximum = pick(r, [0, 1, 4, 10]);
    if (chance(r, 0.3)) s.exclusiveMinimum = true;
    if (chance(r, 0.3)) s.exclusiveMaximum = true;
    if (chance(r, 0.2)) s.multipleOf = pick(r, [2, 0.5, 3]);
  }
  if (kind === 'array') {
    const lt = pick(r, [undefined, 'atomic', 'set', 'map'] as const);
    if (lt === 'map') {
      s.items = { type: 'object', required: chance(r, 0.5) ? ['name'] : undefined, properties: { name: { type: 'string' }, port: { type: 'integer' } } };
      s['x-kubernetes-list-map-keys'] = chance(r, 0.5) ? ['name'] : ['name', 'port'];
    } else s.items = lt === 'set' ? { type: pick(r, ['string', 'integer']) } : genSchema(r, depth + 1);
    if (lt) s['x-kubernetes-list-type'] = lt;
    if (chance(r, 0.3)) s.maxItems = pick(r, [0, 1, 2]);
    if (chance(r, 0.3)) s.minItems = pick(r, [1, 2]);
    if (chance(r, 0.1)) s.uniqueItems = true;
  }
  if (kind === 'object') {
    if (chance(r, 0.1) && !root) {
      s['x-kubernetes-embedded-resource'] = true;
      s['x-kubernetes-preserve-unknown-fields'] = true;
    }
    const names = NAMES.filter(() => chance(r, 0.35));
    if (names.length > 0 && chance(r, 0.8)) s.properties = Object.fromEntries(names.map((n) => [n, genSchema(r, depth + 1)]));
    if (chance(r, 0.3)) s.required = NAMES.filter(() => chance(r, 0.2));
    const ap = r();
    if (ap < 0.15) s.additionalProperties = false;
    else if (ap < 0.25) s.additionalProperties = true;
    else if (ap < 0.4 && !s.properties) s.additionalProperties = genSchema(r, depth + 1);
    // Refused at CRD creation, but a CRD stored before that may hold it, and a default's schema is checked first.
    if (chance(r, 0.05)) s.patternProperties = { [pick(r, PATTERNS)]: genSchema(r, depth + 1) };
    if (chance(r, 0.1)) s.minProperties = 1;
    if (chance(r, 0.1)) s.maxProperties = 2;
  }
  for (const j of ['allOf', 'anyOf', 'oneOf'] as const) {
    if (chance(r, 0.08)) s[j] = Array.from({ length: 1 + Math.floor(r() * 3) }, () => junctorSchema(r, 0));
  }
  if (chance(r, 0.05)) s.not = junctorSchema(r, 0);
  return s;
}

/** A value shaped by the schema, with a wrong turn now and then. */
function genValue(r: R, s: JSONSchemaProps | undefined, depth = 0): unknown {
  if (!s || chance(r, 0.12) || depth > 6) return randomValue(r, 1);
  if (s.nullable && chance(r, 0.1)) return null;
  if (s.enum && chance(r, 0.5)) return pick(r, s.enum);
  if (s['x-kubernetes-int-or-string']) return pick(r, [1, 'a', 2.5, null, '']);
  switch (s.type) {
    case 'string': return pick(r, ['', 'a', 'ab', 'abc', 'abcd', 'bb', '😀', '😀😀', '12', 'Zb', '2026-11-29T19:00:00Z', '10.0.0.1', 'YWJj', '0f8fad5b-d9cb-469f-a165-70867728950e']);
    case 'integer': return pick(r, [-3, 0, 1, 2, 3, 4, 6, 10, 11]);
    case 'number': return pick(r, [-3, 0, 0.5, 1, 2.5, 4, 10, 10.5]);
    case 'boolean': return chance(r, 0.5);
    case 'array': {
      const items = Array.from({ length: Math.floor(r() * 4) }, () => genValue(r, s.items, depth + 1));
      if (items.length > 0 && chance(r, 0.3)) items.push(structuredClone(items[0]));
      return items;
    }
    case 'object': {
      const o: Record<string, unknown> = {};
      for (const [k, sub] of Object.entries(s.properties ?? {})) if (chance(r, 0.7)) o[k] = genValue(r, sub, depth + 1);
      if (isPlainObject(s.additionalProperties) || chance(r, 0.2)) o[pick(r, NAMES)] = genValue(r, isPlainObject(s.additionalProperties) ? (s.additionalProperties as JSONSchemaProps) : undefined, depth + 1);
      if (s['x-kubernetes-embedded-resource'] && chance(r, 0.7)) Object.assign(o, { apiVersion: pick(r, ['v1', '', 3]), kind: 'Pod' });
      return o;
    }
    default:
      return randomValue(r, 1);
  }
}

// Compiling each schema with ajv is most of the test's time: many values per schema (SCHEMA_WALK_SEEDS=12000 for a
// longer run).
const SEEDS = Number(process.env.SCHEMA_WALK_SEEDS ?? 100);
const VALUES = 36;

describe('schema walker against the ajv compilation it replaces', () => {
  it('gives the same field errors, in the same order, for random structural schemas and values', () => {
    let cases = 0;
    let failing = 0;
    for (let seed = 1; seed <= SEEDS; seed++) {
      const r = rng(seed);
      const schema = genSchema(r, 0, true);
      const walked = compileCRSchema(schema);
      const compiled = oracleValidator(schema);
      for (let i = 0; i < VALUES; i++) {
        const value = genValue(r, schema);
        const want = compiled(value);
        const got = walked.validate(value);
        if (JSON.stringify(got) !== JSON.stringify(want)) {
          const k = got.findIndex((e, j) => JSON.stringify(e) !== JSON.stringify(want[j]));
          const at = k < 0 ? want.length : k;
          expect.fail(`seed ${seed} value ${i}, error ${at}: got ${JSON.stringify(got.slice(at, at + 2))}, want ${JSON.stringify(want.slice(at, at + 2))}\nvalue ${JSON.stringify(value)}\nschema ${JSON.stringify(schema)}`);
        }
        cases++;
        if (want.length > 0) failing++;
      }
    }
    // The generator must produce both kinds, or the comparison proves little.
    expect(cases).toBe(SEEDS * VALUES);
    expect(failing).toBeGreaterThan(cases / 4);
    expect(failing).toBeLessThan(cases * 0.9);
  }, Math.max(30_000, SEEDS * 50));
});

// ---------------------------------------------------------------------------------------------------------------
// A tenant's wide CRD: 12,000 string properties (0.8 MB) took ajv 3.5-5.7 s to compile, every tenant waiting.

const WIDE = 12_000;
function wideSchema(width = WIDE): JSONSchemaProps {
  const props: Record<string, JSONSchemaProps> = {};
  for (let i = 0; i < width; i++) props[`field${i}`] = { type: 'string', maxLength: 64, pattern: '^[a-z0-9]*$', description: 'a tenant-written field' };
  return { type: 'object', properties: { spec: { type: 'object', required: ['field7'], properties: props } } };
}

/** Counts every read of an object's properties or keys: what validating it costs, independent of the clock. */
function counted<T extends object>(o: T): { proxy: T; reads: () => number } {
  let n = 0;
  const proxy = new Proxy(o, {
    get: (t, k, rcv) => (n++, Reflect.get(t, k, rcv)),
    has: (t, k) => (n++, Reflect.has(t, k)),
    ownKeys: (t) => (n++, Reflect.ownKeys(t)),
    getOwnPropertyDescriptor: (t, k) => (n++, Reflect.getOwnPropertyDescriptor(t, k)),
  });
  return { proxy, reads: () => n };
}

describe('a 12,000-property schema', () => {
  it('is prepared in one pass over its nodes and validated without generating code', () => {
    const schema = wideSchema();
    const FunctionCtor = globalThis.Function;
    const generated = vi.fn();
    // ajv builds each validator with `new Function(...)`: any code generation passes through this spy.
    globalThis.Function = new Proxy(FunctionCtor, { construct: (t, a) => (generated(), Reflect.construct(t, a)), apply: (t, th, a) => (generated(), Reflect.apply(t, th, a)) });
    try {
      const prepared = prepareSchema(schema);
      expect(prepared.nodes).toBe(WIDE + 2);
      const v = compileCRSchema(schema);
      expect(v.validate({ spec: { field7: 'ok', field11999: 'fine' } })).toEqual([]);
      // In the schema's order of properties, not the object's.
      expect(v.validate({ spec: { field7: 'NO', field3: 'X'.repeat(65) } }).map((e) => `${e.field}: ${e.detail}`)).toEqual([
        'spec.field3: Too long: may not be more than 64 bytes',
        `spec.field3: Invalid value: "${'X'.repeat(65)}": spec.field3 in body should match '^[a-z0-9]*$'`,
        `spec.field7: Invalid value: "NO": spec.field7 in body should match '^[a-z0-9]*$'`,
      ]);
      expect(v.validate({ spec: {} }).map((e) => `${e.field}: ${e.detail}`)).toEqual(['spec.field7: Required value']);
      expect(generated).not.toHaveBeenCalled();
      // The spy sees code generation when there is some: the oracle's compilation of a small schema.
      oracleValidator({ type: 'object', properties: { a: { type: 'string' } } });
      expect(generated).toHaveBeenCalled();
    } finally {
      globalThis.Function = FunctionCtor;
    }
  });

  it('costs a small object reads in proportion to the object, not the schema', () => {
    const schema = wideSchema();
    const spec = counted({ field7: 'a', field42: 'b', field11999: 'c' });
    expect(compileCRSchema(schema).validate({ spec: spec.proxy })).toEqual([]);
    expect(spec.reads()).toBeLessThan(20);
    // Generated code probes every declared property of the object (the cost the walker avoids); a 400-property
    // schema shows it (ajv would take seconds over the 12,000).
    const viaAjv = counted({ field7: 'a', field42: 'b', field399: 'c' });
    expect(oracleValidator(wideSchema(400))({ spec: viaAjv.proxy })).toEqual([]);
    expect(viaAjv.reads()).toBeGreaterThan(400);
  });
});
