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
  /** encodePieces: each parts array's encoded parts, against the reference they were encoded with. */
  private readonly partBodies = new WeakMap<readonly string[], { ref: Indexed; bodies: EncodedParts | undefined }>();

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
    const ref = this.writerFor(key);
    if (!ref || value.includes(COPY)) return plain(value);
    const out = `${ENCODED}${ref.idChar}${encodeBody(ref, value, 0, false).body}`;
    // Not worth it (or nothing matched): keep the value readable as it is.
    return out.length < value.length ? out : plain(value);
  }

  /**
   * encode() of `value` = parts[0] + fills[0] + parts[1] + … + parts[n], where `parts` is one array the caller hands
   * again and again (an object template's constant text) and only `fills` change (names, uids, times): each part is
   * encoded once per array and kept; a value then costs the encoding of its fills. Decodes to `value` like
   * encode()'s form; a few bytes longer at most (a copy never spans a fill's edge).
   */
  encodePieces(key: string, value: string, parts: readonly string[], fills: readonly string[]): string {
    const ref = this.writerFor(key);
    if (!ref || parts.length !== fills.length + 1) return this.encode(key, value);
    let known = this.partBodies.get(parts);
    if (known === undefined || known.ref !== ref) {
      known = { ref, bodies: encodeParts(ref, parts, fills) };
      this.partBodies.set(parts, known);
    }
    const encoded = known.bodies;
    if (!encoded) return this.encode(key, value);
    const { text } = ref;
    // Small pieces, each joined to the one before when a copy continues a copy (see joinCopies).
    const pieces: string[] = [encoded.bodies[0]!];
    const append = (body: string) => {
      if (body.length === 0) return;
      const last = pieces.length - 1;
      const joined = joinCopies(pieces[last]!, body);
      if (joined.length === pieces[last]!.length + body.length) pieces.push(body);
      else pieces[last] = joined;
    };
    for (let i = 0; i < fills.length; i++) {
      const fill = fills[i]!;
      if (fill.includes(COPY)) return this.encode(key, value);
      // A fill that continues the copy before it (a path's `root:`, a time's century) joins it; one that held text
      // of the reference on the first write (an owner, a group, a URL's host) is searched like a value.
      const before = lastCopyEnd(pieces[pieces.length - 1]!);
      if (encoded.searchFill[i]) append(encodeBody(ref, fill, before ?? encoded.nexts[i]!, true, before !== undefined).body);
      else {
        const n = before === undefined ? 0 : Math.min(matchLength(fill, 0, text, before), MAX_REFERENCE_LENGTH);
        append(n > 0 ? COPY + digits(before!) + digits(n) + fill.slice(n) : fill);
      }
      append(encoded.bodies[i + 1]!);
    }
    const out = `${ENCODED}${ref.idChar}${pieces.join('')}`;
    return out.length < value.length ? out : plain(value);
  }

  private writerFor(key: string): Indexed | undefined {
    return this.writers.length > 0 ? this.writers.find((r) => key.startsWith(r.prefix)) : undefined;
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

/** A value stored as it is (escaped when it starts like an encoded one). */
function plain(value: string): string {
  return value.charCodeAt(0) === 1 ? `${ENCODED}${ESCAPE}${value}` : value;
}

/**
 * A template's parts encoded one by one (undefined: a part holds a copy marker). Each part is looked for where the
 * previous one left off in the reference plus the fill between them (this call's fills: uids, times and cluster
 * names have one length, names nearly so), as encode() does across a literal. Which fills are worth searching is
 * decided here too, from this first call's fills (literal fills and no joins: a LogicalCluster stored 424 B, not 292).
 */
function encodeParts(ref: Indexed, parts: readonly string[], fills: readonly string[]): EncodedParts | undefined {
  if (parts.some((part) => part.includes(COPY))) return undefined;
  const bodies: string[] = [];
  const nexts: number[] = [];
  const searchFill: boolean[] = [];
  let expected = 0;
  for (let k = 0; k < parts.length; k++) {
    const encoded = encodeBody(ref, parts[k]!, expected, k > 0);
    bodies.push(encoded.body);
    nexts.push(encoded.next);
    const fill = fills[k];
    if (fill === undefined) break;
    // Whether this fill had reference text past a continued start (uids, times, cluster names do not).
    const before = lastCopyEnd(encoded.body);
    const fillBody = encodeBody(ref, fill, before ?? encoded.next, true, before !== undefined).body;
    searchFill.push(fillBody.indexOf(COPY, before !== undefined && fillBody.charCodeAt(0) === 2 ? 5 : 0) !== -1);
    expected = encoded.next + fill.length;
  }
  return { bodies, nexts, searchFill };
}

/** A template's parts as encodeParts left them: each part's body and where the reference continues after it. */
interface EncodedParts {
  bodies: string[];
  nexts: number[];
  /** Per fill: encode it (it held reference text on the first write), or take it literally after a continued start. */
  searchFill: boolean[];
}

/**
 * `value` as literal characters and copies of `ref`'s text, starting where the reference is expected to continue
 * (`expectedAt`); `next` is where it would continue after the value. `alone`: the value is a piece of a larger one,
 * so its first position is searched like a token start.
 */
function encodeBody(ref: Indexed, value: string, expectedAt: number, alone: boolean, extending = false): { body: string; next: number } {
  const { text, grams } = ref;
  let out = '';
  let literalFrom = 0;
  let i = 0;
  // Where the reference most likely continues: just after the last copy, skipping as many characters as the
  // literal since then (a name or uid in place of the sample's).
  let copiedTo = expectedAt;
  const last = value.length - GRAM;
  while (i <= last) {
    const expected = copiedTo + (i - literalFrom);
    let bestAt = expected;
    let bestLength = expected < text.length ? matchLength(value, i, text, expected) : 0;
    // Other places are looked up only where JSON tokens start: copies begin there in practice (after a uid,
    // a name, a timestamp), and skipping the middle of literals makes encoding several times cheaper.
    if (bestLength < GOOD_ENOUGH && (isTokenStart(value.charCodeAt(i)) || (alone && i === 0))) {
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
    // `extending`: a copy at the start that continues the one before the value is joined to it, so costs nothing.
    const free = extending && i === 0 && bestAt === expectedAt;
    if (bestLength < (free ? 1 : MIN_COPY)) {
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
  return { body: out + value.slice(literalFrom), next: copiedTo + (value.length - literalFrom) };
}

/** Where in the reference the stored body's last copy ends, if it ends with a copy (\x02 never appears otherwise). */
function lastCopyEnd(body: string): number | undefined {
  const at = body.length - 5;
  return at >= 0 && body.charCodeAt(at) === 2 ? undigit(body, at + 1) + undigit(body, at + 3) : undefined;
}

/** a + b, a copy ending a and a copy starting b merged into one when they are adjacent in the reference. */
function joinCopies(a: string, b: string): string {
  const end = lastCopyEnd(a);
  if (end === undefined || b.charCodeAt(0) !== 2 || undigit(b, 1) !== end) return a + b;
  const length = undigit(a, a.length - 2) + undigit(b, 3);
  return length > MAX_REFERENCE_LENGTH ? a + b : a.slice(0, -2) + digits(length) + b.slice(5);
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
