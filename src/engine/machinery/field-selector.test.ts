import { describe, expect, it } from 'vitest';
import type { KubeObject } from './object-types.js';
import {
  compileFieldSelector,
  escapeFieldValue,
  fieldSelectorToString,
  parseFieldSelector,
} from './field-selector.js';
import { StatusError } from './status.js';

function failure(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(StatusError);
    expect((err as StatusError).code).toBe(400);
    return err as StatusError;
  }
  throw new Error('expected a failure');
}

const pod = (name: string, ns: string, phase?: string): KubeObject => ({
  metadata: { name, namespace: ns },
  status: phase ? { phase } : {},
});

describe('parseFieldSelector', () => {
  it('parses =, == and != terms, sorted like kube', () => {
    expect(parseFieldSelector('metadata.name=a,status.phase!=Running,spec.nodeName==n1').requirements).toEqual([
      { field: 'metadata.name', operator: '=', value: 'a' },
      { field: 'spec.nodeName', operator: '==', value: 'n1' },
      { field: 'status.phase', operator: '!=', value: 'Running' },
    ]);
  });

  it('skips empty terms and accepts empty values', () => {
    expect(parseFieldSelector('').requirements).toEqual([]);
    expect(parseFieldSelector(',a=b,').requirements).toEqual([{ field: 'a', operator: '=', value: 'b' }]);
    expect(parseFieldSelector('a=').requirements).toEqual([{ field: 'a', operator: '=', value: '' }]);
  });

  it('unescapes \\, \\= and \\\\ in values', () => {
    expect(parseFieldSelector('a=x\\,y\\=z\\\\w').requirements).toEqual([{ field: 'a', operator: '=', value: 'x,y=z\\w' }]);
    expect(escapeFieldValue('x,y=z\\w')).toBe('x\\,y\\=z\\\\w');
    const sel = parseFieldSelector('b!=1,a=x\\,y');
    expect(fieldSelectorToString(sel)).toBe('a=x\\,y,b!=1');
  });

  it('reports kube errors', () => {
    expect(failure(() => parseFieldSelector('a=b,nonsense')).message).toBe(
      "invalid selector: 'a=b,nonsense'; can't understand 'nonsense'",
    );
    expect(failure(() => parseFieldSelector('a=b=c')).message).toBe(
      'invalid field selector: unescaped character in value: 61',
    );
    expect(failure(() => parseFieldSelector('a=b\\x')).message).toBe(
      'invalid field selector: invalid escape sequence: \\x',
    );
    expect(failure(() => parseFieldSelector('a=b\\')).message).toBe('invalid field selector: invalid escape sequence: \\');
  });
});

describe('compileFieldSelector', () => {
  const phase = { 'status.phase': (o: KubeObject) => (o.status as { phase?: string }).phase };

  it('always supports metadata.name and metadata.namespace', () => {
    const sel = compileFieldSelector(parseFieldSelector('metadata.name=p1,metadata.namespace=default'));
    expect(sel.matches(pod('p1', 'default'))).toBe(true);
    expect(sel.matches(pod('p2', 'default'))).toBe(false);
    expect(sel.requiresExactMatch('metadata.name')).toBe('p1');
    expect(sel.requiresExactMatch('status.phase')).toBeUndefined();
  });

  it('uses per-kind extractors, missing fields reading as empty', () => {
    const sel = compileFieldSelector(parseFieldSelector('status.phase!=Running'), phase);
    expect(sel.matches(pod('a', 'd', 'Pending'))).toBe(true);
    expect(sel.matches(pod('a', 'd', 'Running'))).toBe(false);
    expect(sel.matches(pod('a', 'd'))).toBe(true);
    expect(compileFieldSelector(parseFieldSelector('status.phase='), phase).matches(pod('a', 'd'))).toBe(true);
  });

  it('is empty for an empty selector', () => {
    const sel = compileFieldSelector(parseFieldSelector(''));
    expect(sel.empty).toBe(true);
    expect(sel.matches(pod('x', 'y'))).toBe(true);
  });

  it('rejects unsupported labels', () => {
    expect(failure(() => compileFieldSelector(parseFieldSelector('spec.foo=bar'), phase)).message).toBe(
      'field label not supported: spec.foo',
    );
    expect(
      failure(() => compileFieldSelector(parseFieldSelector('foo=bar'), {}, { message: 'default-conversion' })).message,
    ).toBe('"foo" is not a known field selector: only "metadata.name", "metadata.namespace"');
    expect(failure(() => compileFieldSelector(parseFieldSelector('toString=x'))).message).toBe(
      'field label not supported: toString',
    );
  });
});

describe('work budget', () => {
  it('refuses more than 100 requirements with a 400', () => {
    const many = Array.from({ length: 101 }, (_, i) => `metadata.name!=n${i}`).join(',');
    const err = failure(() => parseFieldSelector(many));
    expect(err.code).toBe(400);
    expect(err.message).toBe('field selector has 101 requirements: at most 100 are allowed');
    expect(parseFieldSelector(many.split(',').slice(1).join(',')).requirements).toHaveLength(100);
  });
});
