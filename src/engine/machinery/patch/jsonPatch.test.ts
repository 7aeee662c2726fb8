import { describe, expect, it } from 'vitest';
import { StatusError } from '../status.js';
import { KUBE_PATCH_REJECTED, MAX_JSON_PATCH_COPY_BYTES } from './errors.js';
import { applyJsonPatch } from './jsonPatch.js';

const cm = () => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'cm', labels: { app: 'a' }, finalizers: ['a', 'b'], annotations: { 'example.com/x': '1' } },
  data: { a: '1', b: '2' },
});

function failure(ops: unknown, obj: object = cm()): StatusError {
  try {
    applyJsonPatch(obj as Record<string, unknown>, ops);
  } catch (err) {
    expect(err).toBeInstanceOf(StatusError);
    return err as StatusError;
  }
  throw new Error('expected the patch to fail');
}

describe('applyJsonPatch', () => {
  it.each([
    ['add a member', [{ op: 'add', path: '/data/c', value: '3' }], (o: any) => expect(o.data.c).toBe('3')],
    ['add replaces an existing member', [{ op: 'add', path: '/data/a', value: 'x' }], (o: any) => expect(o.data.a).toBe('x')],
    ['append with -', [{ op: 'add', path: '/metadata/finalizers/-', value: 'c' }], (o: any) => expect(o.metadata.finalizers).toEqual(['a', 'b', 'c'])],
    ['insert at index', [{ op: 'add', path: '/metadata/finalizers/1', value: 'x' }], (o: any) => expect(o.metadata.finalizers).toEqual(['a', 'x', 'b'])],
    ['insert at length', [{ op: 'add', path: '/metadata/finalizers/2', value: 'x' }], (o: any) => expect(o.metadata.finalizers).toEqual(['a', 'b', 'x'])],
    ['remove a member', [{ op: 'remove', path: '/data/a' }], (o: any) => expect(o.data).toEqual({ b: '2' })],
    ['remove an element', [{ op: 'remove', path: '/metadata/finalizers/0' }], (o: any) => expect(o.metadata.finalizers).toEqual(['b'])],
    ['replace', [{ op: 'replace', path: '/data/a', value: null }], (o: any) => expect(o.data.a).toBeNull()],
    ['replace of a missing member adds it, like kube', [{ op: 'replace', path: '/data/z', value: 'z' }], (o: any) => expect(o.data.z).toBe('z')],
    ['move', [{ op: 'move', from: '/data/a', path: '/data/moved' }], (o: any) => expect(o.data).toEqual({ b: '2', moved: '1' })],
    ['copy', [{ op: 'copy', from: '/metadata/labels', path: '/spec' }], (o: any) => expect(o.spec).toEqual({ app: 'a' })],
    ['test then change', [{ op: 'test', path: '/data', value: { b: '2', a: '1' } }, { op: 'remove', path: '/data/b' }], (o: any) => expect(o.data).toEqual({ a: '1' })],
    ['escaped slash (annotation keys)', [{ op: 'replace', path: '/metadata/annotations/example.com~1x', value: '2' }], (o: any) => expect(o.metadata.annotations['example.com/x']).toBe('2')],
    ['escaped tilde', [{ op: 'add', path: '/data/a~0b', value: 't' }], (o: any) => expect(o.data['a~b']).toBe('t')],
    ['empty patch', [], (o: any) => expect(o).toEqual(cm())],
    ['replace the whole object', [{ op: 'replace', path: '', value: { kind: 'X' } }], (o: any) => expect(o).toEqual({ kind: 'X' })],
    ['test of a value holding a hasOwnProperty key', [{ op: 'add', path: '/spec', value: { hasOwnProperty: 1 } }, { op: 'test', path: '/spec', value: { hasOwnProperty: 1 } }], (o: any) => expect(o.spec).toEqual({ hasOwnProperty: 1 })],
    ['test of the whole document', [{ op: 'test', path: '', value: cm() }], (o: any) => expect(o).toEqual(cm())],
    ['a key named constructor is data', [{ op: 'add', path: '/data/constructor', value: 'c' }, { op: 'test', path: '/data/constructor', value: 'c' }], (o: any) => expect(o.data.constructor).toBe('c')],
  ])('%s', (_name, ops, check) => {
    check(applyJsonPatch(cm(), ops));
  });

  it('never modifies the object or the patch, and never shares values with the patch', () => {
    const obj = cm();
    const ops = [
      { op: 'add', path: '/spec', value: { list: [1] } },
      { op: 'add', path: '/spec/list/-', value: 2 },
      { op: 'copy', from: '/spec', path: '/copy' },
      { op: 'add', path: '/copy/list/-', value: 3 },
    ];
    const before = structuredClone({ obj, ops });
    const out = applyJsonPatch(obj, ops) as any;
    expect({ obj, ops }).toEqual(before);
    expect(out.spec).toEqual({ list: [1, 2] });
    expect(out.copy).toEqual({ list: [1, 2, 3] });
  });

  describe('malformed patches are 400 BadRequest', () => {
    it.each([
      ['an object instead of an array', { op: 'add', path: '/a', value: 1 }, 'must be a JSON array of operations, got object'],
      ['null', null, 'got null'],
      ['a non-object operation', [1], 'operation 0 is number, not a JSON object'],
      ['an unknown op', [{ op: 'bogus', path: '/a' }], 'operation 0: "op" must be one of add, remove, replace, move, copy, test; got "bogus"'],
      ['a missing op', [{ path: '/a' }], '"op" must be one of add, remove, replace, move, copy, test; it is missing'],
      ['a missing path', [{ op: 'remove' }], '"path" must be a JSON pointer string'],
      ['a path without a leading slash', [{ op: 'add', path: 'data/x', value: 1 }], 'must be empty or start with "/"'],
      ['a bad ~ escape', [{ op: 'add', path: '/data/x~2', value: 1 }], 'has a "~" not followed by 0 or 1'],
      ['add without value', [{ op: 'add', path: '/data/x' }], '"add" needs a "value"'],
      ['move without from', [{ op: 'move', path: '/data/x' }], '"from" must be a JSON pointer string'],
      ['a __proto__ segment', [{ op: 'add', path: '/__proto__/polluted', value: 1 }], 'may not contain "__proto__"'],
      ['a __proto__ source', [{ op: 'copy', from: '/__proto__', path: '/x' }], 'may not contain "__proto__"'],
    ])('%s', (_name, ops, message) => {
      const err = failure(ops);
      expect(err.code).toBe(400);
      expect(err.reason).toBe('BadRequest');
      expect(err.message).toContain('error decoding patch: ');
      expect(err.message).toContain(message);
    });

    it('reports shape errors before applying anything', () => {
      const err = failure([{ op: 'test', path: '/data/a', value: 'wrong' }, { op: 'nope', path: '/x' }]);
      expect(err.code).toBe(400);
    });
  });

  it('caps the number of operations like kube (413)', () => {
    const ops = Array.from({ length: 10_001 }, () => ({ op: 'test', path: '/kind', value: 'ConfigMap' }));
    const err = failure(ops);
    expect(err.code).toBe(413);
    expect(err.reason).toBe('RequestEntityTooLarge');
    expect(err.message).toBe('Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001');
    expect(applyJsonPatch(cm(), ops.slice(1))).toEqual(cm());
  });

  describe('list shifts are charged to the patch list-work budget before they run', () => {
    // A 360 KB patch of 10,000 removals at the head of a 650,000-item list held the event loop 5 s live.
    const longList = (n: number) => ({ ...cm(), spec: { a: new Array(n).fill(0) } });

    it('refuses removals at the head of a long list with a 413, the document untouched', () => {
      const live = longList(650_000);
      const ops = Array.from({ length: 10_000 }, () => ({ op: 'remove', path: '/spec/a/1' }));
      const err = failure(ops, live);
      expect(err.code).toBe(413);
      expect(err.reason).toBe('RequestEntityTooLarge');
      expect(err.message).toMatch(/^Request entity too large: the operations of this JSON patch shift more than 16777216 list items \(operation 25 shifts 649973\); send fewer operations/);
      expect(live.spec.a).toHaveLength(650_000);
    });

    it('charges inserts, copies and both ends of a move', () => {
      const live = longList(2_000_000);
      for (const op of [
        { op: 'add', path: '/spec/a/0', value: 1 },
        { op: 'copy', from: '/kind', path: '/spec/a/0' },
        { op: 'move', from: '/spec/a/0', path: '/spec/a/-' },
        { op: 'move', from: '/spec/a/1999999', path: '/spec/a/0' },
      ]) {
        expect(failure(Array.from({ length: 9 }, () => op), live).code).toBe(413);
      }
    });

    it('charges nothing at the end of a list or outside lists', () => {
      const live = longList(2_000_000);
      const ops = [
        ...Array.from({ length: 3_000 }, () => ({ op: 'add', path: '/spec/a/-', value: 1 })),
        ...Array.from({ length: 3_000 }, (_, i) => ({ op: 'remove', path: `/spec/a/${2_002_999 - i}` })),
        ...Array.from({ length: 3_000 }, (_, i) => ({ op: 'replace', path: `/spec/a/${i}`, value: 2 })),
      ];
      const out = applyJsonPatch(live, ops) as { spec: { a: number[] } };
      expect(out.spec.a).toHaveLength(2_000_000);
      expect(out.spec.a[2_999]).toBe(2);
    });

    it('lets ordinary edits of a list of thousands through', () => {
      const ops = Array.from({ length: 2_000 }, (_, i) => ({ op: 'add', path: '/spec/a/0', value: i }));
      const out = applyJsonPatch(longList(5_000), ops) as { spec: { a: number[] } };
      expect(out.spec.a).toHaveLength(7_000);
      expect(out.spec.a[0]).toBe(1_999);
    });
  });

  describe('patches that do not apply are 422 Invalid with the reason in a cause', () => {
    it.each([
      ['a failing test', [{ op: 'test', path: '/data/a', value: '2' }], 'testing value /data/a failed: test failed'],
      ['a test of a missing member', [{ op: 'test', path: '/data/zz', value: '2' }], 'testing value /data/zz failed: test failed'],
      ['a test against a value holding a hasOwnProperty key', [{ op: 'test', path: '/data', value: { hasOwnProperty: '1', b: '2' } }], 'testing value /data failed: test failed'],
      ['a test of an inherited member', [{ op: 'test', path: '/data/toString', value: {} }], 'testing value /data/toString failed: test failed'],
      ['remove of a missing member', [{ op: 'remove', path: '/data/x' }], "error in remove for path: '/data/x': Unable to remove nonexistent key: x: missing value"],
      ['remove of an inherited member', [{ op: 'remove', path: '/data/toString' }], 'Unable to remove nonexistent key: toString'],
      ['add under a missing parent', [{ op: 'add', path: '/spec/x', value: 1 }], 'add operation does not apply: doc is missing path: "/spec/x": missing value'],
      ['add through an inherited member', [{ op: 'add', path: '/data/constructor/prototype/x', value: 1 }], 'doc is missing path'],
      ['replace under a missing parent', [{ op: 'replace', path: '/nope/x', value: 1 }], 'replace operation does not apply: doc is missing path: /nope/x: missing value'],
      ['add past the end of a list', [{ op: 'add', path: '/metadata/finalizers/5', value: 'x' }], "error in add for path: '/metadata/finalizers/5': Unable to access invalid index: 5: invalid index referenced"],
      ['remove past the end of a list', [{ op: 'remove', path: '/metadata/finalizers/2' }], 'Unable to access invalid index: 2'],
      ['replace past the end of a list', [{ op: 'replace', path: '/metadata/finalizers/-', value: 'x' }], 'Unable to access invalid index: -'],
      ['a list index with a leading zero', [{ op: 'remove', path: '/metadata/finalizers/01' }], 'invalid index'],
      ['a non-numeric list index', [{ op: 'add', path: '/metadata/finalizers/x', value: 1 }], 'invalid index'],
      ['move from a missing member', [{ op: 'move', from: '/nope', path: '/data/x' }], 'move operation does not apply: doc is missing from path: "/nope": missing value'],
      ['copy from a missing member', [{ op: 'copy', from: '/data/q', path: '/data/x' }], 'copy operation does not apply: doc is missing from path'],
      ['move into its own child', [{ op: 'move', from: '/data', path: '/data/x' }], 'cannot be moved into its own child'],
      ['removing the whole document', [{ op: 'remove', path: '' }], 'the patched document is null, not a JSON object'],
      ['replacing the document with a list', [{ op: 'replace', path: '', value: [] }], 'the patched document is array, not a JSON object'],
    ])('%s', (_name, ops, detail) => {
      const err = failure(ops);
      expect(err.code).toBe(422);
      expect(err.reason).toBe('Invalid');
      expect(err.message).toBe(`${KUBE_PATCH_REJECTED}: ${err.details!.causes![0]!.message}`);
      expect(err.details?.causes?.[0]).toMatchObject({ field: 'patch', reason: 'FieldValueInvalid' });
      expect(err.details!.causes![0]!.message).toContain(detail);
      // kubectl prints `The request is invalid: patch: <detail>` for this Status.
      expect(err.toStatus()).toMatchObject({ code: 422, reason: 'Invalid', details: { causes: [{ field: 'patch' }] } });
    });

    it('applies nothing when a later operation fails', () => {
      const obj = cm();
      failure([{ op: 'remove', path: '/data/a' }, { op: 'test', path: '/data/b', value: 'nope' }], obj);
      expect(obj).toEqual(cm());
    });
  });

  it('cannot reach Object.prototype', () => {
    const attempts = [
      [{ op: 'add', path: '/constructor/prototype/polluted', value: 1 }],
      [{ op: 'replace', path: '/constructor/polluted', value: 1 }],
      [{ op: 'add', path: '/metadata/constructor/prototype/polluted', value: 1 }],
      [{ op: 'copy', from: '/constructor', path: '/x' }],
      [{ op: 'add', path: '/__proto__', value: { polluted: 1 } }],
    ];
    for (const ops of attempts) expect(() => applyJsonPatch(cm(), ops)).toThrow(StatusError);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
  });

  describe('copy amplification', () => {
    // One 1 KiB value, then copies of its parent into itself: each doubles the document (2^40 KiB uncapped).
    const doubling = (copies: number) => [
      { op: 'add', path: '/data/big', value: 'x'.repeat(1024) },
      ...Array.from({ length: copies }, (_, i) => ({ op: 'copy', from: '/data', path: `/data/c${i}` })),
    ];

    it('refuses copies adding more than kube\'s 3 MiB with evanphx/json-patch\'s message, before copying', () => {
      const err = failure(doubling(40));
      expect(err.code).toBe(422);
      expect(err.reason).toBe('Invalid');
      const detail = err.details!.causes![0]!.message!;
      const accumulated = Number(/accumulated size increase of copy is (\d+),/.exec(detail)?.[1]);
      expect(detail).toBe(`Unable to complete the copy, the accumulated size increase of copy is ${accumulated}, exceeding the limit ${MAX_JSON_PATCH_COPY_BYTES}`);
      // Stopped at the first copy over the limit: the copies so far doubled a ~1 KiB value, so the total is below
      // twice the limit (and nowhere near the 2^40 KiB the 40 copies would make).
      expect(accumulated).toBeGreaterThan(MAX_JSON_PATCH_COPY_BYTES);
      expect(accumulated).toBeLessThan(2 * MAX_JSON_PATCH_COPY_BYTES);
    });

    it('applies copies within the limit', () => {
      const out = applyJsonPatch(cm(), doubling(8)) as any;
      expect(Object.keys(out.data)).toHaveLength(2 + 1 + 8);
      expect(out.data.c7.c6.big).toBe('x'.repeat(1024));
    });

    it('counts copies of the whole document too', () => {
      const err = failure(doubling(11).concat(Array.from({ length: 30 }, (_, i) => ({ op: 'copy', from: '', path: `/w${i}` }))));
      expect(err.details!.causes![0]!.message).toMatch(/^Unable to complete the copy/);
    });
  });
});

