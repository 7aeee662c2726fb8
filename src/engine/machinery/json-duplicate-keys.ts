/**
 * Repeated keys in a JSON body. JSON.parse keeps the last value silently; kube's decoder (sigs.k8s.io/json) reports
 * each repeat as a strict-decoding problem, `duplicate field "metadata.name"` (an error with fieldValidation=Strict,
 * a warning with Warn), and a built-in's Go structs and maps take both values: a repeated object is merged into
 * the first (`"data":{"a":"1"},"data":{"b":"2"}` is data with a and b), anything else replaced. A custom resource's
 * unstructured decode keeps the last, as JSON.parse does.
 *
 * Most bodies repeat nothing, and telling costs a search for `":` in the text and a count of the parsed value's
 * keys (about what JSON.parse takes for a 1 KB body, docs/benchmarks.md); only a body that repeats a key is
 * parsed again here.
 */

/**
 * Characters of field paths the parser may hold and hash: a path is as long as its object is deep, so a body nesting
 * 1,000 levels over 100,000 keys made 200 million characters of paths (4.7 s of one request). Past it a repeat is
 * named by its key alone (`….name`), and fields further on are not placed in the text (their findings go last).
 */
const PATH_CHARS = 1 << 21;

/** A key's end with whitespace before its colon (`"a" : 1`): rare, looked for apart from the plain `":`. */
const SPACED_KEY_END = /"\s+:/g;

export interface DuplicateKeys {
  /** Go's paths of the repeated fields (`data.k`, `metadata.ownerReferences[0].name`), in the order of the text. */
  paths: string[];
  /** Where in the text each repeat is (by index in `paths`), and where each path first appears: what puts other findings in the text's order. */
  repeatedAt: number[];
  offsets: Map<string, number>;
  /** The value as a Go struct decodes it: repeated objects merged. */
  merged: unknown;
}

/** The repeats of `text` (valid JSON, which JSON.parse made `parsed`), or undefined when no key repeats. */
export function jsonDuplicateKeys(text: string, parsed: unknown): DuplicateKeys | undefined {
  if (keyEnds(text) === keyCount(parsed)) return undefined;
  const parser = new Parser(text);
  const merged = parser.value('');
  return parser.paths.length ? { paths: parser.paths, repeatedAt: parser.repeatedAt, offsets: parser.offsets, merged } : undefined;
}

/** The keys in the text: the colons after an unescaped closing quote (a quote inside a string is always escaped). */
function keyEnds(text: string): number {
  let count = 0;
  for (let at = text.indexOf('":'); at !== -1; at = text.indexOf('":', at + 2)) if (unescaped(text, at)) count++;
  SPACED_KEY_END.lastIndex = 0;
  for (let m = SPACED_KEY_END.exec(text); m; m = SPACED_KEY_END.exec(text)) if (unescaped(text, m.index)) count++;
  return count;
}

/** Whether the quote at `at` ends a string: an even number of backslashes before it. */
function unescaped(text: string, at: number): boolean {
  let backslashes = 0;
  for (let j = at - 1; j >= 0 && text.charCodeAt(j) === 0x5c; j--) backslashes++;
  return backslashes % 2 === 0;
}

/** The keys of every object in a parsed value, counted without recursion. */
function keyCount(value: unknown): number {
  let count = 0;
  const stack = [value];
  while (stack.length) {
    const node = stack.pop();
    if (node === null || typeof node !== 'object') continue;
    if (Array.isArray(node)) {
      for (const item of node) if (item !== null && typeof item === 'object') stack.push(item);
      continue;
    }
    for (const key in node) {
      if (!Object.hasOwn(node, key)) continue;
      count++;
      const child = (node as Record<string, unknown>)[key];
      if (child !== null && typeof child === 'object') stack.push(child);
    }
  }
  return count;
}

/** A JSON parser for text JSON.parse has accepted already, recording repeated keys and merging repeated objects. */
class Parser {
  readonly paths: string[] = [];
  readonly repeatedAt: number[] = [];
  readonly offsets = new Map<string, number>();
  private i = 0;
  /** Path characters held so far (PATH_CHARS). */
  private spent = 0;
  constructor(private readonly text: string) {}

  value(path: string): unknown {
    this.space();
    const c = this.text[this.i];
    if (c === '{') return this.object(path);
    if (c === '[') return this.array(path);
    if (c === '"') return this.string();
    const start = this.i;
    while (this.i < this.text.length && !',]} \t\n\r'.includes(this.text[this.i]!)) this.i++;
    const literal = this.text.slice(start, this.i);
    // JSON.parse accepted the text: a literal is true, false, null or a JSON number, which Number reads as JSON.parse.
    return literal === 'true' ? true : literal === 'false' ? false : literal === 'null' ? null : Number(literal);
  }

  private object(path: string): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    this.i++;
    this.space();
    if (this.text[this.i] === '}') {
      this.i++;
      return out;
    }
    for (;;) {
      this.space();
      const at = this.i;
      const key = this.string();
      this.space();
      this.i++; // colon
      const child = path ? `${path}.${key}` : key;
      const repeated = Object.hasOwn(out, key);
      // A path's length is known without building its text; only paths within the budget are built (hashed, joined).
      const held = this.spent + child.length <= PATH_CHARS;
      if (held) this.spent += child.length;
      if (repeated) {
        this.paths.push(held ? child : `….${key}`);
        this.repeatedAt.push(at);
      } else if (held) {
        this.offsets.set(child, at);
      }
      const value = this.value(child);
      const before = out[key];
      if (repeated && isObject(before) && isObject(value)) mergeInto(before, value);
      else setOwn(out, key, value);
      this.space();
      if (this.text[this.i++] === '}') return out;
    }
  }

  private array(path: string): unknown[] {
    const out: unknown[] = [];
    this.i++;
    this.space();
    if (this.text[this.i] === ']') {
      this.i++;
      return out;
    }
    for (;;) {
      out.push(this.value(`${path}[${out.length}]`));
      this.space();
      if (this.text[this.i++] === ']') return out;
    }
  }

  private string(): string {
    const start = this.i++;
    let escaped = false;
    while (this.text.charCodeAt(this.i) !== 0x22) {
      if (this.text.charCodeAt(this.i) === 0x5c) {
        escaped = true;
        this.i += 2;
      } else this.i++;
    }
    this.i++;
    return escaped ? (JSON.parse(this.text.slice(start, this.i)) as string) : this.text.slice(start + 1, this.i - 1);
  }

  private space(): void {
    for (;;) {
      const c = this.text.charCodeAt(this.i);
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return;
      this.i++;
    }
  }
}

/** Go's decode of an object into a struct or map that holds one already: object fields merge, the rest replace. */
function mergeInto(target: Record<string, unknown>, source: Record<string, unknown>): void {
  for (const key of Object.keys(source)) {
    const before = target[key];
    const value = source[key];
    if (Object.hasOwn(target, key) && isObject(before) && isObject(value)) mergeInto(before, value);
    else setOwn(target, key, value);
  }
}

/** An own property even for `__proto__`, as JSON.parse makes it. */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
