/**
 * The JSONPath template grammar of k8s.io/client-go/util/jsonpath (parser.go), which kube uses for CRD printer
 * columns and selectable fields. kube's dialect differs from other JSONPath libraries in ways users hit:
 * `['a.b']` is re-read as `.a.b` (the dots split it), `\.` escapes a dot inside a field name, double-quoted
 * bracket keys are invalid, filters are `[?(@.x op value)]` with a fixed operator regex, and `*` / `[*]` are
 * wildcards. Parsing must fail exactly where kube's does, because a column whose path kube cannot parse is
 * dropped, together with every column after it.
 */

export type JPNode =
  | JPList
  | { kind: 'text'; text: string }
  | { kind: 'field'; name: string }
  | { kind: 'array'; params: [JPParam, JPParam, JPParam] }
  | { kind: 'filter'; left: JPList; right: JPList; op: string }
  | { kind: 'int'; value: number }
  | { kind: 'float'; value: number }
  | { kind: 'bool'; value: boolean }
  | { kind: 'wildcard' }
  | { kind: 'recursive' }
  | { kind: 'union'; lists: JPList[] }
  | { kind: 'identifier'; name: string };

export interface JPList {
  kind: 'list';
  nodes: JPNode[];
}

export interface JPParam {
  known: boolean;
  value: number;
  /** `[n]` is stored as the slice `[n:n+1]`; the end is "derived" and gets special handling for negative n. */
  derived: boolean;
}

const EOF = '';
const DICT_KEY = /^'([^']*)'$/;
const SLICE = /^(-?\d*)(:-?\d*)?(:-?\d*)?$/;
const FILTER = /^([^!<>=]+)([!<>=]+)(.+?)$/;

const isDigit = (r: string) => r !== EOF && /^\p{Nd}$/u.test(r);
const isAlphaNumeric = (r: string) => r === '_' || (r !== EOF && /^[\p{L}\p{Nd}]$/u.test(r));
const isTerminator = (r: string) =>
  r === EOF || r === ' ' || r === '\t' || r === '\r' || r === '\n' || '.,[]$@{}'.includes(r);

/** Go's %#U rendering of a rune, used in the "unrecognized character" error. */
function goRune(r: string): string {
  const cp = r.codePointAt(0) ?? 0;
  return `U+${cp.toString(16).toUpperCase().padStart(4, '0')} '${r}'`;
}

class Parser {
  readonly root: JPList = { kind: 'list', nodes: [] };
  private readonly input: string[];
  private pos = 0;
  private start = 0;
  private width = 0;

  constructor(text: string) {
    // Code points, like Go's rune decoding; every delimiter is ASCII, so indexes behave like Go's byte offsets.
    this.input = Array.from(text);
  }

  parse(): JPList {
    this.parseText(this.root);
    return this.root;
  }

  private rest(): string {
    return this.input.slice(this.pos).join('');
  }
  private consumeText(): string {
    const value = this.input.slice(this.start, this.pos).join('');
    this.start = this.pos;
    return value;
  }
  private next(): string {
    if (this.pos >= this.input.length) {
      this.width = 0;
      return EOF;
    }
    this.width = 1;
    return this.input[this.pos++] ?? EOF;
  }
  private peek(): string {
    const r = this.next();
    this.backup();
    return r;
  }
  private backup(): void {
    this.pos -= this.width;
  }
  private escapedAt(pos: number): boolean {
    return this.input[pos] === '\\';
  }

  private parseText(cur: JPList): void {
    for (;;) {
      if (this.rest().startsWith('{')) {
        if (this.pos > this.start) cur.nodes.push({ kind: 'text', text: this.consumeText() });
        this.pos += 1;
        this.consumeText();
        const action: JPList = { kind: 'list', nodes: [] };
        cur.nodes.push(action);
        return this.parseInsideAction(action);
      }
      if (this.next() === EOF) break;
    }
    if (this.pos > this.start) cur.nodes.push({ kind: 'text', text: this.consumeText() });
  }

  private parseInsideAction(cur: JPList): void {
    // An iterative loop where Go recurses once per token: long paths must not grow the stack.
    for (;;) {
      const rest = this.rest();
      if (rest.startsWith('}')) {
        this.pos += 1;
        this.consumeText();
        return this.parseText(this.root);
      }
      if (rest.startsWith('[?(')) {
        this.parseFilter(cur);
        continue;
      }
      if (rest.startsWith('..')) {
        this.parseRecursive(cur);
        continue;
      }
      const r = this.next();
      if (r === EOF || r === '\r' || r === '\n') throw new Error('unclosed action');
      if (r === ' ' || r === '@' || r === '$') this.consumeText();
      else if (r === '[') this.parseArray(cur);
      else if (r === '"' || r === "'") this.parseQuote(cur, r);
      else if (r === '.') this.parseField(cur);
      else if (r === '+' || r === '-' || isDigit(r)) {
        this.backup();
        this.parseNumber(cur);
      } else if (isAlphaNumeric(r)) {
        this.backup();
        this.parseIdentifier(cur);
      } else throw new Error(`unrecognized character in action: ${goRune(r)}`);
    }
  }

  private parseIdentifier(cur: JPList): void {
    while (!isTerminator(this.next()));
    this.backup();
    const value = this.consumeText();
    if (value === 'true' || value === 'false') cur.nodes.push({ kind: 'bool', value: value === 'true' });
    else cur.nodes.push({ kind: 'identifier', name: value });
  }

  private parseRecursive(cur: JPList): void {
    if (cur.nodes[cur.nodes.length - 1]?.kind === 'recursive') throw new Error('invalid multiple recursive descent');
    this.pos += 2;
    this.consumeText();
    cur.nodes.push({ kind: 'recursive' });
    if (isAlphaNumeric(this.peek())) this.parseField(cur);
  }

  private parseNumber(cur: JPList): void {
    const first = this.peek();
    if (first === '+' || first === '-') this.next();
    for (;;) {
      const r = this.next();
      if (r !== '.' && !isDigit(r)) {
        this.backup();
        break;
      }
    }
    const value = this.consumeText();
    // strconv.Atoi first (an int64), then strconv.ParseFloat; the text holds only a sign, digits and dots.
    if (/^[+-]?[0-9]+$/.test(value) && Math.abs(Number(value)) < 2 ** 63) {
      cur.nodes.push({ kind: 'int', value: Number(value) });
    } else if (/^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)$/.test(value)) {
      cur.nodes.push({ kind: 'float', value: Number(value) });
    } else throw new Error(`cannot parse number ${value}`);
  }

  private parseArray(cur: JPList): void {
    for (;;) {
      const r = this.next();
      if (r === EOF || r === '\n') throw new Error('unterminated array');
      if (r === ']') break;
    }
    let text = this.consumeText().slice(1, -1);
    if (text === '*') text = ':';

    const parts = text.split(',');
    if (parts.length > 1) {
      cur.nodes.push({ kind: 'union', lists: parts.map((p) => parseAction(`[${p.replace(/^ +| +$/g, '')}]`)) });
      return;
    }
    const key = DICT_KEY.exec(text);
    if (key) {
      // kube re-parses `['k']` as `.k`, so dots inside the quotes still split the key.
      cur.nodes.push(...parseAction(`.${key[1]}`).nodes);
      return;
    }
    const m = SLICE.exec(text);
    if (!m) throw new Error(`invalid array index ${text}`);
    const raw = [m[1] ?? '', m[2] ?? '', m[3] ?? ''];
    const params: JPParam[] = [];
    for (let i = 0; i < 3; i++) {
      let v = raw[i] ?? '';
      if (v !== '') {
        if (i > 0) v = v.slice(1);
        if (i > 0 && v === '') params.push({ known: false, value: 0, derived: false });
        else {
          if (!/^[+-]?[0-9]+$/.test(v)) throw new Error(`array index ${v} is not a number`);
          params.push({ known: true, value: Number(v), derived: false });
        }
      } else if (i === 1) {
        params.push({ known: true, value: (params[0]?.value ?? 0) + 1, derived: true });
      } else params.push({ known: false, value: 0, derived: false });
    }
    cur.nodes.push({ kind: 'array', params: params as [JPParam, JPParam, JPParam] });
  }

  private parseFilter(cur: JPList): void {
    this.pos += 3;
    this.consumeText();
    let begin = false;
    let end = false;
    let pair = '';
    for (;;) {
      const r = this.next();
      if (r === EOF || r === '\n') throw new Error('unterminated filter');
      if (r === '"' || r === "'") {
        if (!begin) {
          begin = true;
          pair = r;
          continue;
        }
        if (!this.escapedAt(this.pos - 2) && r === pair) end = true;
      } else if (r === ')' && begin === end) break;
    }
    if (this.next() !== ']') throw new Error('unclosed array expect ]');
    const text = this.consumeText().slice(0, -2);
    const m = FILTER.exec(text);
    if (!m) {
      cur.nodes.push({ kind: 'filter', left: parseAction(text), right: { kind: 'list', nodes: [] }, op: 'exists' });
    } else {
      cur.nodes.push({ kind: 'filter', left: parseAction(m[1] ?? ''), right: parseAction(m[3] ?? ''), op: m[2] ?? '' });
    }
  }

  private parseQuote(cur: JPList, quote: string): void {
    for (;;) {
      const r = this.next();
      if (r === EOF || r === '\n') throw new Error('unterminated quoted string');
      if (r === quote && !this.escapedAt(this.pos - 2)) break;
    }
    const value = this.consumeText();
    cur.nodes.push({ kind: 'text', text: unquoteExtend(value) });
  }

  private parseField(cur: JPList): void {
    this.consumeText();
    for (;;) {
      const r = this.next();
      if (r === '\\') this.next();
      else if (isTerminator(r)) {
        this.backup();
        break;
      }
    }
    const value = this.consumeText();
    if (value === '*') cur.nodes.push({ kind: 'wildcard' });
    else cur.nodes.push({ kind: 'field', name: value.replace(/\\/g, '') });
  }
}

/** Parse `{…}`-delimited text like kube's Parse; throws with kube's error text. */
export function parseTemplate(text: string): JPList {
  return new Parser(text).parse();
}

/** The list inside one action, for filter operands, union members and dict keys. */
function parseAction(text: string): JPList {
  const root = parseTemplate(`{${text}}`);
  const first = root.nodes[0];
  return first && first.kind === 'list' ? first : { kind: 'list', nodes: [] };
}

const SIMPLE_ESCAPES: Record<string, string> = {
  a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\',
};

/** strconv.Unquote extended to single quotes (jsonpath's UnquoteExtend). */
function unquoteExtend(s: string): string {
  const quote = s[0];
  if (s.length < 2 || (quote !== '"' && quote !== "'") || s[s.length - 1] !== quote) throw new Error(`unquote string ${s} error invalid syntax`);
  const body = Array.from(s.slice(1, -1));
  let out = '';
  const fail = () => new Error(`unquote string ${s} error invalid syntax`);
  for (let i = 0; i < body.length; i++) {
    const c = body[i] ?? '';
    if (c === quote) throw fail();
    if (c !== '\\') {
      out += c;
      continue;
    }
    const e = body[++i];
    if (e === undefined) throw fail();
    if (e in SIMPLE_ESCAPES) out += SIMPLE_ESCAPES[e];
    else if (e === "'" || e === '"') {
      if (e !== quote) throw fail();
      out += e;
    } else if (e === 'x' || e === 'u' || e === 'U') {
      const n = e === 'x' ? 2 : e === 'u' ? 4 : 8;
      const hex = body.slice(i + 1, i + 1 + n).join('');
      if (!new RegExp(`^[0-9a-fA-F]{${n}}$`).test(hex)) throw fail();
      const cp = parseInt(hex, 16);
      if (cp > 0x10ffff) throw fail();
      out += String.fromCodePoint(cp);
      i += n;
    } else if (/[0-7]/.test(e)) {
      const oct = body.slice(i, i + 3).join('');
      if (!/^[0-7]{3}$/.test(oct) || parseInt(oct, 8) > 255) throw fail();
      out += String.fromCharCode(parseInt(oct, 8));
      i += 2;
    } else throw fail();
  }
  return out;
}
