/**
 * The text of the numbers in a JSON body that JSON.parse cannot give back: `1.0`, `1e3`, `15.000`, digits past
 * 2^53. Go's decoder sees the literal, and an int field refuses any that is not an integer literal
 * (`json: cannot unmarshal number 1.0 into Go struct field … of type int32`); JavaScript's number 1 cannot tell `1`
 * from `1.0`. Kept per container and key of the parsed value, so the decode walk asks for the value it holds.
 * Most bodies have no such number and cost one regular-expression test.
 */
export type NumberLiterals = WeakMap<object, Map<string | number, string>>;

/**
 * A number that String(Number(x)) may print differently (with a fraction or an exponent, or 16 digits or more)
 * standing where a value does: after a colon, a comma or a bracket, and before a comma or a closing bracket. Inside
 * a string that is rare (a timestamp's `:00.000000Z` is not one); when it happens it only costs the walk.
 */
const MAYBE_ALTERED = /[:,[]\s*-?(?:\d+\.\d+(?:[eE][-+]?\d+)?|\d+[eE][-+]?\d+|\d{16,})\s*[,}\]]/;

/**
 * The literals of `text` (valid JSON, already parsed into `parsed`) whose number prints differently, or undefined
 * when there are none. Walks the text once beside the parsed value; a repeated key's earlier value is walked beside
 * the value JSON.parse kept, and what does not match it is skipped.
 */
export function jsonNumberLiterals(text: string, parsed: unknown): NumberLiterals | undefined {
  if (!MAYBE_ALTERED.test(text)) return undefined;
  let found: NumberLiterals | undefined;
  let i = 0;
  const skipSpace = () => {
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
      i++;
    }
  };
  const readString = (): string => {
    const start = i;
    i++; // opening quote
    let escaped = false;
    while (i < text.length) {
      const c = text.charCodeAt(i++);
      if (c === 0x5c) {
        escaped = true;
        i++;
      } else if (c === 0x22) {
        break;
      }
    }
    const raw = text.slice(start, i);
    return escaped ? (JSON.parse(raw) as string) : raw.slice(1, -1);
  };
  // An explicit stack of the containers open at this point: JSON.parse's value for each (undefined where the text
  // and the value part ways), the index of an array's current element, an object's current key.
  const stack: Array<{ value: unknown; index: number; key?: string }> = [];
  const record = (container: unknown, at: string | number, literal: string) => {
    if (container === null || typeof container !== 'object') return;
    const held = (container as Record<string | number, unknown>)[at];
    if (typeof held !== 'number' || String(held) === literal) return;
    found ??= new WeakMap();
    let slots = found.get(container);
    if (!slots) found.set(container, (slots = new Map()));
    slots.set(at, literal);
  };
  /** The parsed value at the position the next value takes, and its container and key. */
  const slot = (): { container: unknown; at: string | number | undefined; value: unknown } => {
    const top = stack[stack.length - 1];
    if (!top) return { container: undefined, at: undefined, value: parsed };
    const at = Array.isArray(top.value) ? top.index : top.key;
    const value = at !== undefined && top.value !== null && typeof top.value === 'object' ? (top.value as Record<string | number, unknown>)[at] : undefined;
    return { container: top.value, at, value };
  };
  while (i < text.length) {
    skipSpace();
    if (i >= text.length) break;
    const c = text[i]!;
    const top = stack[stack.length - 1];
    if (c === '{' || c === '[') {
      const { value } = slot();
      const fits = c === '[' ? Array.isArray(value) : value !== null && typeof value === 'object' && !Array.isArray(value);
      stack.push({ value: fits ? value : undefined, index: 0 });
      i++;
    } else if (c === '}' || c === ']') {
      stack.pop();
      i++;
    } else if (c === ',') {
      if (top) top.index++;
      i++;
    } else if (c === '"') {
      const s = readString();
      skipSpace();
      // A string followed by a colon is a key.
      if (text[i] === ':') {
        if (top) top.key = s;
        i++;
      }
    } else if (c === '-' || (c >= '0' && c <= '9')) {
      const start = i;
      i++;
      while (i < text.length && isNumberChar(text.charCodeAt(i))) i++;
      const { container, at } = slot();
      if (at !== undefined) record(container, at, text.slice(start, i));
    } else {
      // true, false, null
      while (i < text.length && text.charCodeAt(i) >= 0x61 && text.charCodeAt(i) <= 0x7a) i++;
    }
  }
  return found;
}

/** A character of a JSON number after its first: digits, `.`, `e`, `E`, `+`, `-`. */
function isNumberChar(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || c === 0x2e || c === 0x65 || c === 0x45 || c === 0x2b || c === 0x2d;
}
