import { describe, expect, it } from 'vitest';
import { jsonValueName } from './go-decode.js';
import { goJsonSyntaxError } from './go-json-syntax.js';

const problem = (text: string) => goJsonSyntaxError(Buffer.from(text, 'utf8'));

describe("Go's encoding/json syntax errors", () => {
  it('accepts what json.Unmarshal accepts', () => {
    for (const ok of ['{}', ' [ ] ', 'null', '0', '-0.5e+10', '"\\u00e9\\n"', '{"a":[1,{"b":null}],"c":true}\n', '1E2']) {
      expect(problem(ok), ok).toBeUndefined();
    }
  });

  it('names the first invalid byte and where it was, as scanner.go does', () => {
    expect(problem('notjson')).toBe("invalid character 'o' in literal null (expecting 'u')");
    expect(problem('trx')).toBe("invalid character 'x' in literal true (expecting 'u')");
    expect(problem('{"a":1,}')).toBe("invalid character '}' looking for beginning of object key string");
    expect(problem("{'a':1}")).toBe("invalid character '\\'' looking for beginning of object key string");
    expect(problem('{"a" 1}')).toBe("invalid character '1' after object key");
    expect(problem('{"a":1 "b":2}')).toBe(`invalid character '"' after object key:value pair`);
    expect(problem('[1 2]')).toBe("invalid character '2' after array element");
    expect(problem('{"a":1}x')).toBe("invalid character 'x' after top-level value");
    expect(problem('01')).toBe("invalid character '1' after top-level value");
    expect(problem('-a')).toBe("invalid character 'a' in numeric literal");
    expect(problem('1.a')).toBe("invalid character 'a' after decimal point in numeric literal");
    expect(problem('1ea')).toBe("invalid character 'a' in exponent of numeric literal");
    expect(problem('"a\nb"')).toBe("invalid character '\\n' in string literal");
    expect(problem('"\x01"')).toBe("invalid character '\\x01' in string literal");
    expect(problem('"\\q"')).toBe("invalid character 'q' in string escape code");
    expect(problem('"\\u12g4"')).toBe("invalid character 'g' in \\u hexadecimal character escape");
    expect(problem('[,]')).toBe("invalid character ',' looking for beginning of value");
  });

  it('an input that stops early is "unexpected end of JSON input"', () => {
    for (const short of ['', '  ', '{', '{"a":', '[1,', '"abc', 'tru', '-', '1.', '1e+', '"\\u12']) {
      expect(problem(short), short).toBe('unexpected end of JSON input');
    }
  });

  it("names a decoded value's kind as UnmarshalTypeError does", () => {
    expect([[], null, 1, 'x', true, {}].map((v) => jsonValueName(v))).toEqual(['array', 'null', 'number', 'string', 'bool', 'object']);
  });
});
