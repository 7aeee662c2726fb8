import { describe, expect, it } from 'vitest';
import { goFloat, goSprint, goTypeName } from './go-format.js';
import { compileJSONPath, plainValue } from './kube-jsonpath.js';

/** FindResults of `{path}` with AllowMissingKeys(true), literal floats unwrapped. */
const find = (path: string, data: unknown) => compileJSONPath(`{${path}}`).findResults(data).map((r) => r.map(plainValue));
const first = (path: string, data: unknown) => find(path, data)[0];

const pod = {
  metadata: {
    name: 'p',
    labels: { app: 'web' },
    annotations: { 'example.com/owner': 'team-a', 'a.b/c': 'dotted' },
  },
  spec: { replicas: 3, ratio: 0.5, items: [{ name: 'a' }, { name: 'b' }, { name: 'c' }], nothing: null },
  status: {
    conditions: [
      { type: 'Ready', status: 'True', count: 2 },
      { type: 'Synced', status: 'False', count: 1.5 },
    ],
  },
};

describe('kube JSONPath: fields and escapes (client-go util/jsonpath)', () => {
  it('walks map keys and returns nothing for a missing key (AllowMissingKeys)', () => {
    expect(first('.spec.replicas', pod)).toEqual([3]);
    expect(first('.metadata.labels.app', pod)).toEqual(['web']);
    expect(first('.spec.missing.deeper', pod)).toEqual([]);
  });

  it('skips a null parent instead of failing, but returns a null leaf', () => {
    expect(first('.spec.nothing.x', pod)).toEqual([]);
    expect(first('.spec.nothing', pod)).toEqual([null]);
  });

  it('reads a key containing "/" and an escaped dot', () => {
    // '/' is not a terminator; `\.` keeps the dot inside the field name.
    expect(first('.metadata.annotations.example\\.com/owner', pod)).toEqual(['team-a']);
    expect(first('.metadata.annotations.a\\.b/c', pod)).toEqual(['dotted']);
  });

  it("re-reads ['k'] as .k, so an unescaped dot in brackets still splits the key (kube quirk)", () => {
    expect(first("['metadata']['annotations']['a.b/c']", pod)).toEqual([]);
    expect(first("['metadata']['annotations']['a\\.b/c']", pod)).toEqual(['dotted']);
  });

  it('rejects double-quoted bracket keys like kube does', () => {
    expect(() => compileJSONPath('{.metadata["name"]}')).toThrow('invalid array index "name"');
  });
});

describe('kube JSONPath: arrays', () => {
  it('supports index, negative index, slices, steps, wildcard and unions', () => {
    expect(first('.spec.items[0].name', pod)).toEqual(['a']);
    expect(first('.spec.items[-1].name', pod)).toEqual(['c']);
    expect(first('.spec.items[0:2].name', pod)).toEqual(['a', 'b']);
    expect(first('.spec.items[::2].name', pod)).toEqual(['a', 'c']);
    expect(first('.spec.items[*].name', pod)).toEqual(['a', 'b', 'c']);
    expect(first('.spec.items.*.name', pod)).toEqual(['a', 'b', 'c']);
    expect(first('.spec.items[0,2].name', pod)).toEqual(['a', 'c']);
    expect(first("['spec']['replicas','ratio']", pod)).toEqual([3, 0.5]);
  });

  it('treats an out-of-range index as an error, not as a missing key', () => {
    expect(() => find('.spec.items[5].name', pod)).toThrow('array index out of bounds: index 5, length 3');
    expect(() => find('.status.conditions[0]', { status: { conditions: [] } })).toThrow('array index out of bounds');
  });

  it('indexing a map is an error', () => {
    expect(() => find('.spec[0]', pod)).toThrow('map[string]interface {} is not array or slice');
  });

  it('finds every container with recursive descent', () => {
    expect(first('..name', { a: { name: 'x' }, b: [{ name: 'y' }] })).toEqual(['x', 'y']);
    expect(() => compileJSONPath('{....a}')).toThrow('invalid multiple recursive descent');
  });
});

describe('kube JSONPath: filters (text/template comparisons)', () => {
  it('selects by string equality, the usual printer-column condition lookup', () => {
    expect(first('.status.conditions[?(@.type=="Ready")].status', pod)).toEqual(['True']);
    expect(first(".status.conditions[?(@.type=='Synced')].status", pod)).toEqual(['False']);
    expect(first('.status.conditions[?(@.type!="Ready")].type', pod)).toEqual(['Synced']);
  });

  it('compares numbers of the same Go kind and supports exists filters', () => {
    expect(first('.spec.items[?(@.name>"a")].name', pod)).toEqual(['b', 'c']);
    expect(first('.status.conditions[?(@.count>=2)].type', { status: { conditions: [{ type: 'A', count: 2 }, { type: 'B', count: 1 }] } })).toEqual(['A']);
    expect(first('.items[?(@.x)].n', { items: [{ n: 1, x: 0 }, { n: 2 }] })).toEqual([1]);
  });

  it('skips items without the compared key', () => {
    expect(first('.items[?(@.k=="v")].n', { items: [{ n: 1 }, { n: 2, k: 'v' }] })).toEqual([2]);
  });

  it('fails on int64 vs float64 or string vs number, as Go templates refuse to coerce', () => {
    // count 1.5 is a float64 in Go while the literal 2 is an int.
    expect(() => find('.status.conditions[?(@.count==2)].type', pod)).toThrow('incompatible types for comparison');
    expect(() => find('.status.conditions[?(@.type==1)].type', pod)).toThrow('incompatible types for comparison');
    expect(first('.items[?(@.v==2.0)].n', { items: [{ n: 1, v: 2.5 }, { n: 2, v: 3.5 }] })).toEqual([]);
    expect(() => find('.items[?(@.v==2.0)].n', { items: [{ n: 1, v: 2 }] })).toThrow('incompatible types for comparison');
  });

  it('fails when filtering a null or a map', () => {
    expect(() => find('.spec.nothing[?(@.a=="b")]', pod)).toThrow('<nil> is not array or slice and cannot be filtered');
    expect(first('.spec.absent[?(@.a=="b")]', pod)).toEqual([]);
  });
});

describe('kube JSONPath: syntax errors are parse errors', () => {
  it.each([
    ['{.spec', 'unclosed action'],
    ['{.spec[0}', 'unterminated array'],
    ['{.spec[?(@.a=="b"}', 'unterminated filter'],
    ['{.spec #}', "unrecognized character in action: U+0023 '#'"],
    ['{.spec[x]}', 'invalid array index x'],
  ])('%s → %s', (template, message) => {
    expect(() => compileJSONPath(template)).toThrow(message);
  });

  it('takes anything up to a terminator as a field name', () => {
    expect(first('.spec.#', { spec: { '#': 1 } })).toEqual([1]);
  });

  it('reports an unknown identifier at evaluation time', () => {
    expect(() => find('.spec foo', pod)).toThrow('unrecognized identifier foo');
  });

  it('returns one result list per template node', () => {
    expect(compileJSONPath('{.spec.replicas}-{.metadata.name}').findResults(pod)).toEqual([[3], ['-'], ['p']]);
  });
});

describe('Go fmt rendering of decoded JSON', () => {
  it('formats floats like strconv %g shortest (exponent from 1e6 or below 1e-4)', () => {
    expect(goFloat(0.5)).toBe('0.5');
    expect(goFloat(123456.5)).toBe('123456.5');
    expect(goFloat(1234567.5)).toBe('1.2345675e+06');
    expect(goFloat(0.00001)).toBe('1e-05');
    expect(goFloat(0.0001)).toBe('0.0001');
    expect(goFloat(1e21)).toBe('1e+21');
  });

  it('prints maps with sorted keys, slices space-separated, nil as <nil>', () => {
    expect(goSprint({ b: 'x', a: 1, c: [true, null] })).toBe('map[a:1 b:x c:[true <nil>]]');
    expect(goSprint([])).toBe('[]');
    expect(goSprint({})).toBe('map[]');
    expect(goSprint(2.5)).toBe('2.5');
  });

  it('names Go types as %T does for unstructured content', () => {
    expect([1, 1.5, 's', true, null, [], {}].map(goTypeName)).toEqual([
      'int64', 'float64', 'string', 'bool', '<nil>', '[]interface {}', 'map[string]interface {}',
    ]);
  });
});
