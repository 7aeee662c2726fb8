/**
 * Go's encoding/json syntax check (scanner.go's checkValid), for the places where kube reports json.Unmarshal's own
 * error text: the first invalid byte as `invalid character 'x' <where>`, or `unexpected end of JSON input`.
 * V8's JSON.parse messages differ and quote the surrounding input, which must not reach a client where kube
 * redacts the value (a Secret's docker config).
 */

const enum Ctx {
  ObjectKey,
  ObjectValue,
  Array,
}

const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isHex = (c: number) => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);

/** scanner.go's quoteChar: the byte as a Go character literal (`'x'`, `'\n'`, `'\''`, `'"'`). */
function quoteChar(c: number): string {
  if (c === 0x27) return "'\\''";
  if (c === 0x22) return `'"'`;
  const escapes: Record<number, string> = { 0x07: '\\a', 0x08: '\\b', 0x0c: '\\f', 0x0a: '\\n', 0x0d: '\\r', 0x09: '\\t', 0x0b: '\\v', 0x5c: '\\\\' };
  if (escapes[c]) return `'${escapes[c]}'`;
  if (c < 0x20 || c === 0x7f) return `'\\x${c.toString(16).padStart(2, '0')}'`;
  // Go's string(byte) is the rune U+00XX; strconv.Quote escapes the unprintable ones among them.
  if (c >= 0x80 && c < 0xa0) return `'\\u00${c.toString(16).padStart(2, '0')}'`;
  if (c === 0xa0 || c === 0xad) return `'\\u00${c.toString(16)}'`;
  return `'${String.fromCharCode(c)}'`;
}

class SyntaxProblem extends Error {}

function invalid(c: number, where: string): never {
  throw new SyntaxProblem(`invalid character ${quoteChar(c)} ${where}`);
}

/** The problem json.Unmarshal reports for `bytes`, or undefined when they are valid JSON. */
export function goJsonSyntaxError(bytes: Uint8Array): string | undefined {
  let i = 0;
  const n = bytes.length;
  const stack: Ctx[] = [];
  const end = (): never => {
    throw new SyntaxProblem('unexpected end of JSON input');
  };
  const skipSpace = () => {
    while (i < n && WHITESPACE.has(bytes[i]!)) i++;
  };
  const literal = (word: string) => {
    for (let k = 1; k < word.length; k++) {
      if (i >= n) end();
      const c = bytes[i]!;
      if (c !== word.charCodeAt(k)) invalid(c, `in literal ${word} (expecting '${word[k]}')`);
      i++;
    }
  };
  const digits = () => {
    while (i < n && isDigit(bytes[i]!)) i++;
  };
  const number = () => {
    if (bytes[i] === 0x2d) {
      i++;
      if (i >= n) end();
      if (!isDigit(bytes[i]!)) invalid(bytes[i]!, 'in numeric literal');
    }
    if (bytes[i] === 0x30) i++;
    else digits();
    if (i < n && bytes[i] === 0x2e) {
      i++;
      if (i >= n) end();
      if (!isDigit(bytes[i]!)) invalid(bytes[i]!, 'after decimal point in numeric literal');
      digits();
    }
    if (i < n && (bytes[i] === 0x65 || bytes[i] === 0x45)) {
      i++;
      if (i < n && (bytes[i] === 0x2b || bytes[i] === 0x2d)) i++;
      if (i >= n) end();
      if (!isDigit(bytes[i]!)) invalid(bytes[i]!, 'in exponent of numeric literal');
      digits();
    }
  };
  const string = () => {
    i++; // the opening quote
    for (;;) {
      if (i >= n) end();
      const c = bytes[i++]!;
      if (c === 0x22) return;
      if (c < 0x20) invalid(c, 'in string literal');
      if (c !== 0x5c) continue;
      if (i >= n) end();
      const e = bytes[i++]!;
      if (e === 0x75) {
        for (let k = 0; k < 4; k++) {
          if (i >= n) end();
          if (!isHex(bytes[i]!)) invalid(bytes[i]!, 'in \\u hexadecimal character escape');
          i++;
        }
      } else if (!'bfnrt\\/"'.includes(String.fromCharCode(e))) {
        invalid(e, 'in string escape code');
      }
    }
  };
  /** A value starts at i (whitespace skipped); containers push their context and return. */
  const beginValue = (): boolean => {
    skipSpace();
    if (i >= n) end();
    const c = bytes[i]!;
    switch (c) {
      case 0x7b:
        i++;
        skipSpace();
        if (i >= n) end();
        if (bytes[i] === 0x7d) {
          i++;
          return false;
        }
        if (bytes[i] !== 0x22) invalid(bytes[i]!, 'looking for beginning of object key string');
        string();
        stack.push(Ctx.ObjectKey);
        return true;
      case 0x5b:
        i++;
        skipSpace();
        if (i >= n) end();
        if (bytes[i] === 0x5d) {
          i++;
          return false;
        }
        stack.push(Ctx.Array);
        return true;
      case 0x22:
        string();
        return false;
      case 0x74:
        i++;
        literal('true');
        return false;
      case 0x66:
        i++;
        literal('false');
        return false;
      case 0x6e:
        i++;
        literal('null');
        return false;
      default:
        if (c === 0x2d || isDigit(c)) {
          number();
          return false;
        }
        return invalid(c, 'looking for beginning of value');
    }
  };
  try {
    let opened = beginValue();
    for (;;) {
      if (opened) {
        // A container just opened: an array's first element, or an object's first value after its key.
        const top = stack[stack.length - 1]!;
        if (top === Ctx.ObjectKey) {
          skipSpace();
          if (i >= n) end();
          if (bytes[i] !== 0x3a) invalid(bytes[i]!, 'after object key');
          i++;
          stack[stack.length - 1] = Ctx.ObjectValue;
        }
        opened = beginValue();
        continue;
      }
      // A value ended: what may follow it depends on where it was.
      skipSpace();
      const top = stack[stack.length - 1];
      if (top === undefined) {
        if (i < n) invalid(bytes[i]!, 'after top-level value');
        return undefined;
      }
      if (i >= n) end();
      const c = bytes[i]!;
      if (top === Ctx.ObjectValue) {
        if (c === 0x7d) {
          i++;
          stack.pop();
          continue;
        }
        if (c !== 0x2c) invalid(c, 'after object key:value pair');
        i++;
        skipSpace();
        if (i >= n) end();
        if (bytes[i] !== 0x22) invalid(bytes[i]!, 'looking for beginning of object key string');
        string();
        stack[stack.length - 1] = Ctx.ObjectKey;
        opened = true;
        continue;
      }
      if (c === 0x5d) {
        i++;
        stack.pop();
        continue;
      }
      if (c !== 0x2c) invalid(c, 'after array element');
      i++;
      opened = beginValue();
    }
  } catch (err) {
    if (err instanceof SyntaxProblem) return err.message;
    throw err;
  }
}
