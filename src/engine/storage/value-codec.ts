/**
 * Stored values compressed against reference texts, so that objects every workspace has (its Workspace,
 * LogicalCluster, `default` Namespace, admin binding) cost the bytes that differ from one workspace to the next, not
 * the kilobyte of boilerplate around them. A reference is plain text registered for a key prefix (the server passes
 * samples of the JSON it writes there); a value under that prefix is stored as literal runs plus copies of reference
 * substrings. Decoding is a few slice-and-join steps, and values under other prefixes are stored as they are, so
 * reads of everything else pay one character test.
 *
 * Stored forms:
 *   anything not starting with \x01         the value itself
 *   \x01 <ESCAPE> value                      the value itself (it started with \x01)
 *   \x01 <reference id char> body            body = literal characters and copies; a copy is \x02 followed by four
 *                                            digits (base 95, printable ASCII): two for the offset in the reference,
 *                                            two for the length
 * A value containing \x02 is never encoded. References are persisted by the store and never change once used.
 */
export const ENCODED = '\x01';
const COPY = '\x02';
const ESCAPE = ' ';
/** Reference ids are the printable characters after the escape. */
export const MAX_REFERENCES = 94;
/** Offsets and lengths are two base-95 digits. */
export const MAX_REFERENCE_LENGTH = 95 * 95 - 1;
const GRAM = 6;
/** A copy costs 5 characters, so shorter matches stay literal. */
const MIN_COPY = 7;
/** Candidate positions tried per 6-gram (references repeat some grams a lot). */
const MAX_CANDIDATES = 12;
/** A match at the expected position this long is taken without looking at other candidates. */
const GOOD_ENOUGH = 24;

export interface ValueReference {
  id: number;
  /** Values whose key starts with this are encoded against the text. */
  prefix: string;
  text: string;
  /** New values are encoded against it (default true); false: kept only to decode older values. */
  write?: boolean;
}

interface Indexed extends ValueReference {
  idChar: string;
  /** 6-gram hash → positions in the text (hash collisions are harmless: every candidate is compared). */
  grams: Map<number, number[]>;
}

const digits = (n: number) => String.fromCharCode(32 + Math.floor(n / 95), 32 + (n % 95));
const undigit = (s: string, at: number) => (s.charCodeAt(at) - 32) * 95 + (s.charCodeAt(at + 1) - 32);

export class ValueCodec {
  private readonly byId = new Map<string, Indexed>();
  /** Newest reference per prefix, longest prefix first. */
  private readonly writers: Indexed[] = [];

  constructor(references: readonly ValueReference[]) {
    const newest = new Map<string, Indexed>();
    for (const ref of references) {
      if (ref.id < 0 || ref.id >= MAX_REFERENCES) throw new RangeError(`value reference id ${ref.id} out of range`);
      if (ref.text.length > MAX_REFERENCE_LENGTH) throw new RangeError(`value reference ${ref.id} is longer than ${MAX_REFERENCE_LENGTH}`);
      const grams = ref.write === false ? new Map<number, number[]>() : indexGrams(ref.text);
      const indexed: Indexed = { ...ref, idChar: String.fromCharCode(33 + ref.id), grams };
      this.byId.set(indexed.idChar, indexed);
      if (ref.write === false) continue;
      const known = newest.get(ref.prefix);
      if (!known || known.id < ref.id) newest.set(ref.prefix, indexed);
    }
    this.writers = [...newest.values()].sort((a, b) => b.prefix.length - a.prefix.length);
  }

  get size(): number {
    return this.byId.size;
  }

  encode(key: string, value: string): string {
    const ref = this.writers.length > 0 ? this.writers.find((r) => key.startsWith(r.prefix)) : undefined;
    if (!ref || value.includes(COPY)) return value.charCodeAt(0) === 1 ? `${ENCODED}${ESCAPE}${value}` : value;
    const { text, grams } = ref;
    let out = `${ENCODED}${ref.idChar}`;
    let literalFrom = 0;
    let i = 0;
    // Where the reference most likely continues: just after the last copy, skipping as many characters as the
    // literal since then (a name or uid in place of the sample's).
    let copiedTo = 0;
    const last = value.length - GRAM;
    while (i <= last) {
      const expected = copiedTo + (i - literalFrom);
      let bestAt = expected;
      let bestLength = expected < text.length ? matchLength(value, i, text, expected) : 0;
      // Other places are looked up only where JSON tokens start: copies begin there in practice (after a uid,
      // a name, a timestamp), and skipping the middle of literals makes encoding several times cheaper.
      if (bestLength < GOOD_ENOUGH && isTokenStart(value.charCodeAt(i))) {
        const candidates = grams.get(gramHash(value, i));
        if (candidates) {
          for (const at of candidates) {
            if (at === expected) continue;
            const length = matchLength(value, i, text, at);
            if (length > bestLength) {
              bestLength = length;
              bestAt = at;
            }
          }
        }
      }
      if (bestLength < MIN_COPY) {
        i++;
        continue;
      }
      out += value.slice(literalFrom, i);
      // A copy's length fits two digits; a longer match becomes several copies.
      for (let left = bestLength, at = bestAt; left > 0; ) {
        const n = Math.min(left, MAX_REFERENCE_LENGTH);
        out += COPY + digits(at) + digits(n);
        at += n;
        left -= n;
      }
      i += bestLength;
      literalFrom = i;
      copiedTo = bestAt + bestLength;
    }
    out += value.slice(literalFrom);
    // Not worth it (or nothing matched): keep the value readable as it is.
    return out.length < value.length ? out : value.charCodeAt(0) === 1 ? `${ENCODED}${ESCAPE}${value}` : value;
  }

  decode(stored: string): string {
    if (stored.charCodeAt(0) !== 1) return stored;
    const idChar = stored[1]!;
    if (idChar === ESCAPE) return stored.slice(2);
    const ref = this.byId.get(idChar);
    if (!ref) throw new Error(`stored value refers to unknown value reference ${idChar.charCodeAt(0) - 33}`);
    const text = ref.text;
    let out = '';
    let from = 2;
    for (let at = stored.indexOf(COPY, from); at !== -1; at = stored.indexOf(COPY, from)) {
      const offset = undigit(stored, at + 1);
      const length = undigit(stored, at + 3);
      out += stored.slice(from, at) + text.slice(offset, offset + length);
      from = at + 5;
    }
    return out + stored.slice(from);
  }
}

/**
 * How many characters of `value` from `i` equal `text` from `at`. A plain function of its arguments: as a closure
 * over the encoder's loop variable it ran several times slower (every character re-read `i` from the closure).
 */
function matchLength(value: string, i: number, text: string, at: number): number {
  const max = Math.min(value.length - i, text.length - at);
  let length = 0;
  while (length < max && value.charCodeAt(i + length) === text.charCodeAt(at + length)) length++;
  return length;
}

/** `"` `,` `:` `{` `}` `[` `]` */
function isTokenStart(c: number): boolean {
  return c === 34 || c === 44 || c === 58 || c === 123 || c === 125 || c === 91 || c === 93;
}

/** A hash of the 6 characters at `at` (an integer: much cheaper as a Map key than a sliced string). */
function gramHash(s: string, at: number): number {
  let h = 0;
  for (let k = 0; k < GRAM; k++) h = (Math.imul(h, 31) + s.charCodeAt(at + k)) | 0;
  return h;
}

/** Every position of every 6-gram of the text (capped per gram). */
function indexGrams(text: string): Map<number, number[]> {
  const grams = new Map<number, number[]>();
  for (let i = 0; i + GRAM <= text.length; i++) {
    const gram = gramHash(text, i);
    const list = grams.get(gram);
    if (!list) grams.set(gram, [i]);
    else if (list.length < MAX_CANDIDATES) list.push(i);
  }
  return grams;
}

/** A text the store should compress the values under `prefix` against. */
export interface WantedReference {
  prefix: string;
  text: string;
}

/** What the store needs from its database to keep references: read them all, add one. */
export interface ReferenceTable {
  all(): ValueReference[];
  insert(prefix: string, text: string): number;
}

/**
 * The codec for a store: every reference ever recorded (old values keep decoding), plus the wanted ones not
 * recorded yet. Once all ids are used, new wanted texts are ignored and values stay plain.
 */
export function openValueCodec(table: ReferenceTable, wanted: readonly WantedReference[]): ValueCodec {
  const known = table.all();
  for (const w of wanted) {
    // Copies never split a surrogate pair as long as the reference has none (SQLite would mangle half a pair).
    if (w.text.length > MAX_REFERENCE_LENGTH || /[\uD800-\uDFFF]/.test(w.text)) continue;
    if (known.some((r) => r.prefix === w.prefix && r.text === w.text)) continue;
    if (known.length >= MAX_REFERENCES) break;
    known.push({ id: table.insert(w.prefix, w.text), prefix: w.prefix, text: w.text });
  }
  // Only the wanted texts are written with; an older text of the same prefix is kept for reading.
  const writing = new Set(wanted.map((w) => `${w.prefix}\n${w.text}`));
  return new ValueCodec(known.map((r) => ({ ...r, write: writing.has(`${r.prefix}\n${r.text}`) })));
}
