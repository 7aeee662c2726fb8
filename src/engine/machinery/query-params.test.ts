import { describe, expect, it } from 'vitest';
import { goQuote, isWatchQuery, parseGoInt64, queryBool, queryInt64, queryString, requestQuery } from './query-params.js';
import { requestTarget } from '../endpoints/api-router.js';

const q = (s: string) => new URLSearchParams(s);

describe('queryBool: kube reads false only as 0 or false (any case), everything else as true', () => {
  it.each([
    ['watch=true', true],
    ['watch=True', true],
    ['watch=TRUE', true],
    ['watch=1', true],
    ['watch=t', true],
    ['watch=yes', true],
    ['watch=', true],
    ['watch', true],
    ['watch=false', false],
    ['watch=False', false],
    ['watch=fAlSe', false],
    ['watch=0', false],
    ['watch=false&watch=true', false],
    ['watch=true&watch=false', true],
  ])('%s → %s', (query, expected) => {
    expect(queryBool(q(query), 'watch')).toBe(expected);
    expect(isWatchQuery(q(query))).toBe(expected);
  });

  it('is undefined when absent', () => {
    expect(queryBool(q('other=1'), 'watch')).toBeUndefined();
    expect(isWatchQuery(q(''))).toBe(false);
  });
});

describe("queryInt64: Go's strconv.ParseInt(s, 10, 64), errors as a 400 with Go's message", () => {
  it.each([
    ['5', 5],
    ['+5', 5],
    ['-5', -5],
    ['007', 7],
    ['9223372036854775807', 9223372036854775807],
    ['-9223372036854775808', -9223372036854775808],
  ])('%s → %s', (value, expected) => {
    expect(queryInt64(q(`limit=${encodeURIComponent(value)}`), 'limit')).toBe(expected);
  });

  it.each([
    ['', 'strconv.ParseInt: parsing "": invalid syntax'],
    ['abc', 'strconv.ParseInt: parsing "abc": invalid syntax'],
    ['1.5', 'strconv.ParseInt: parsing "1.5": invalid syntax'],
    ['1e3', 'strconv.ParseInt: parsing "1e3": invalid syntax'],
    [' 1', 'strconv.ParseInt: parsing " 1": invalid syntax'],
    ['-', 'strconv.ParseInt: parsing "-": invalid syntax'],
    ['1_000', 'strconv.ParseInt: parsing "1_000": invalid syntax'],
    ['9223372036854775808', 'strconv.ParseInt: parsing "9223372036854775808": value out of range'],
    ['-9223372036854775809', 'strconv.ParseInt: parsing "-9223372036854775809": value out of range'],
    ['18446744073709551615x', 'strconv.ParseInt: parsing "18446744073709551615x": invalid syntax'],
    ['18446744073709551616x', 'strconv.ParseInt: parsing "18446744073709551616x": value out of range'],
  ])('%j is refused', (value, message) => {
    expect(() => parseGoInt64(value)).toThrow(expect.objectContaining({ code: 400, message }));
  });

  it('counts a repeated parameter by its first value and is undefined when absent', () => {
    expect(queryInt64(q('limit=3&limit=x'), 'limit')).toBe(3);
    expect(queryInt64(q(''), 'limit')).toBeUndefined();
    expect(queryString(q('a=x&a=y'), 'a')).toBe('x');
  });
});

describe('requestQuery: the query of a request target', () => {
  it('parses what follows the ? as URLSearchParams do', () => {
    const { pathname, searchParams } = requestTarget('/api/v1/namespaces/a/configmaps?limit=5&limit=9&watch');
    expect(pathname).toBe('/api/v1/namespaces/a/configmaps');
    expect([...searchParams]).toEqual([['limit', '5'], ['limit', '9'], ['watch', '']]);
    searchParams.set('limit', '1');
    expect(searchParams.get('limit')).toBe('1');
  });

  it('gives requests without one an empty query nobody can change for the next request', () => {
    const first = requestTarget('/api/v1/namespaces/a/configmaps/x').searchParams;
    expect([...first]).toEqual([]);
    expect(first.get('resourceVersion')).toBeNull();
    expect(() => first.set('watch', 'true')).toThrow(TypeError);
    expect(() => first.append('watch', 'true')).toThrow(TypeError);
    expect(() => first.delete('watch')).toThrow(TypeError);
    expect(() => first.sort()).toThrow(TypeError);
    const next = requestQuery('');
    expect([...next]).toEqual([]);
    expect(isWatchQuery(next)).toBe(false);
    expect(new URLSearchParams(next).toString()).toBe('');
  });
});

describe('goQuote', () => {
  it('quotes as Go does', () => {
    expect(goQuote('a"b\\c')).toBe('"a\\"b\\\\c"');
    expect(goQuote('\x00\x07\n\x7f')).toBe('"\\x00\\a\\n\\x7f"');
    expect(goQuote('é\u00a0')).toBe('"é\\u00a0"');
  });
});
