import { describe, expect, it } from 'vitest';
import { jsonDuplicateKeys } from './json-duplicate-keys.js';

const dups = (text: string) => jsonDuplicateKeys(text, JSON.parse(text));

describe('jsonDuplicateKeys', () => {
  it('names each repeated field by Go’s path, in the order of the text (Go’s answers, k8s.io/api v0.31.6)', () => {
    expect(dups('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","name":"b"},"data":{"k":"1","k":"2"}}')?.paths).toEqual(['metadata.name', 'data.k']);
    expect(dups('{"metadata":{"name":"a","ownerReferences":[{"name":"o","name":"p"}]}}')?.paths).toEqual(['metadata.ownerReferences[0].name']);
    expect(dups('{"apiVersion":"v1","kind":"ConfigMap","kind":"ConfigMap"}')?.paths).toEqual(['kind']);
  });

  it('merges a repeated object into the first, deeply, as Go decodes into the struct or map it holds; lists and scalars are replaced', () => {
    const found = dups('{"metadata":{"name":"a","labels":{"x":"1"}},"data":{"k":"1"},"metadata":{"labels":{"y":"2"}},"data":{"j":"2"},"list":[1],"list":[2]}')!;
    expect(found.paths).toEqual(['metadata', 'data', 'list']);
    expect(found.merged).toEqual({ metadata: { name: 'a', labels: { x: '1', y: '2' } }, data: { k: '1', j: '2' }, list: [2] });
  });

  it('tells a body without repeats by counting, whatever its strings hold', () => {
    expect(dups('{"a": {"b": 1}, "c": [{"d": "x\\": y"}], "e": "{\\"f\\": 1, \\"f\\": 2}", "g\\\\": 1}')).toBeUndefined();
    expect(dups('{"__proto__": {"a": 1}, "__proto__": {"b": 2}}')?.merged).toEqual(JSON.parse('{"__proto__": {"a": 1, "b": 2}}'));
  });

  it('holds at most 2^21 characters of paths however deep the keys sit, naming later repeats by their key', () => {
    // 1,000 levels over 3,000 keys: 6 million characters of paths if each were built and kept.
    const inner = `{${Array.from({ length: 3000 }, (_, i) => `"k${i}":1`).join(',')},"k0":2,"n":{"x":"a","x":"b"}}`;
    const text = '{"a":'.repeat(999) + inner + '}'.repeat(999);
    const found = dups(text)!;
    expect(found.paths).toEqual(['….k0', '….x']);
    expect([...found.offsets.keys()].reduce((sum, path) => sum + path.length, 0)).toBeLessThanOrEqual(1 << 21);
    expect((found.merged as Record<string, unknown>).a).toBeDefined();
    // Keys with escapes still read as JSON.parse reads them.
    expect(dups('{"a\\u0041":1,"a\\u0041":2,"\\"q":3}')?.paths).toEqual(['aA']);
    expect(dups('{"a\u0041":1,"aA":2}')?.paths).toEqual(['aA']);
  });
});
