/**
 * Regular expressions a tenant wrote, compiled with their cost bounded (RE2 syntax, linear-time matching: re2js).
 * What compiling one may cost. re2js builds a program of instructions in time linear in
 * their number, but slowly (~2–15 µs each, measured), and lets a pattern grow to Go's bound of 1,398,101 of them:
 * `[a-z]{0,1000}` written 100 times (1.3 KB) compiled for 1.4–1.9 s and 1,000 times `a{1000}` for 5 s, on every
 * tenant's event loop, per pattern (a CRD's `pattern`, or a CEL rule's `matches` over a string the request sent).
 * So kcpt bounds the program before compiling: each pattern, and all the patterns one request compiles together,
 * at RE2_PROGRAM_LIMIT instructions (~0.1–0.3 s), estimated from the text as re2js's parser sizes a parsed regexp
 * (Parser.calcSize: a literal rune 1, a capture 2 more, `x{n,m}` m copies of x and m−n more, …).
 */

import { RE2JS } from 're2js';

/** kcpt's bound (re2js's is Go's, 1,398,101 per pattern): `\pL{1000}` is 1,000, kube's quantity pattern ~65. */
export const RE2_PROGRAM_LIMIT = 20_000;

/** Go's words for a pattern past the bound (re2js throws the same for one past Go's). */
export const RE2_TOO_LARGE = 'error parsing regexp: expression too large';

interface Frame {
  /** Size of what the group holds so far (its alternatives and concatenated items). */
  total: number;
  /** Size of its last item, to which a following repeat applies. */
  last: number;
  capture: boolean;
}

/** The most repeats a count can give: Go refuses more than 1000 (the compile then fails at once). */
const count = (digits: string) => Math.min(Number(digits), 1001);

/**
 * An estimate (an upper bound, up to a few instructions) of the instructions RE2 compiles `pattern` to, read on its
 * text in one pass. A pattern that is not RE2 is estimated too; compiling it then fails in its parser.
 */
export function re2ProgramSize(pattern: string): number {
  const stack: Frame[] = [{ total: 0, last: 0, capture: false }];
  let top = stack[0]!;
  const item = (size: number) => {
    top.total += size;
    top.last = size;
  };
  const repeat = (size: (sub: number) => number) => {
    const grown = size(top.last);
    top.total += grown - top.last;
    top.last = grown;
  };
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      const next = pattern[i + 1];
      if (next === 'Q') {
        // \Q…\E: every rune literal.
        const end = pattern.indexOf('\\E', i + 2);
        const text = end < 0 ? pattern.slice(i + 2) : pattern.slice(i + 2, end);
        item(Math.max(1, text.length));
        i = end < 0 ? pattern.length : end + 1;
        continue;
      }
      // \p{Greek}, \x{10FFFF}: one item to the closing brace; otherwise the escaped rune (or \pL, \d, …).
      if ((next === 'p' || next === 'P' || next === 'x') && pattern[i + 2] === '{') {
        const end = pattern.indexOf('}', i + 3);
        i = end < 0 ? pattern.length : end;
      } else {
        i += next === 'p' || next === 'P' ? 2 : 1;
      }
      item(1);
    } else if (c === '[') {
      // A class is one instruction: skip to its closing bracket (a `]` first in it is literal, `[:alpha:]` nests).
      let j = i + 1;
      if (pattern[j] === '^') j++;
      if (pattern[j] === ']') j++;
      for (; j < pattern.length && pattern[j] !== ']'; j++) {
        if (pattern[j] === '\\') j++;
        else if (pattern[j] === '[' && pattern[j + 1] === ':') {
          const end = pattern.indexOf(':]', j + 2);
          if (end >= 0) j = end + 1;
        }
      }
      i = j;
      item(1);
    } else if (c === '(') {
      if (pattern[i + 1] === '?' && /^\(\?[a-zA-Z-]*\)/.test(pattern.slice(i, i + 12))) {
        // Flags alone, `(?i)`: no item.
        i = pattern.indexOf(')', i);
        continue;
      }
      const capture = pattern[i + 1] !== '?' || pattern[i + 2] === 'P' || pattern[i + 2] === '<';
      // Skip `?P<name>`, `?<name>`, `?i:` to the group's first item.
      if (pattern[i + 1] === '?') {
        const end = pattern.indexOf(capture ? '>' : ':', i);
        if (end >= 0) i = end;
      }
      top = { total: 0, last: 0, capture };
      stack.push(top);
    } else if (c === ')' && stack.length > 1) {
      const group = stack.pop()!;
      top = stack[stack.length - 1]!;
      item(Math.max(1, group.total + (group.capture ? 2 : 0)));
    } else if (c === '*') {
      repeat((sub) => 2 + sub);
    } else if (c === '+' || c === '?') {
      // `x+?`, `x??`: the `?` makes it lazy, no new instruction.
      if (c === '?' && (pattern[i - 1] === '*' || pattern[i - 1] === '+' || pattern[i - 1] === '?' || pattern[i - 1] === '}')) continue;
      repeat((sub) => 1 + sub);
    } else if (c === '{' && /^\{\d+(,\d*)?\}/.test(pattern.slice(i, i + 24))) {
      const m = /^\{(\d+)(?:(,)(\d*))?\}/.exec(pattern.slice(i, i + 24))!;
      const min = count(m[1]!);
      i += m[0].length - 1;
      if (m[2] && !m[3]) repeat((sub) => (min === 0 ? 2 + sub : 1 + min * sub));
      else {
        const max = m[3] ? count(m[3]) : min;
        repeat((sub) => Math.max(1, max * sub + Math.max(0, max - min)));
      }
    } else if (c === '|') {
      top.total += 1;
      top.last = 0;
    } else {
      item(1);
    }
  }
  let size = 0;
  for (const f of stack) size += f.total;
  return size;
}

/** What the patterns compiled in the current withRE2Budget call may still cost. */
let budget: { remaining: number } | undefined;

/**
 * Runs `fn` (synchronous: a request's validation) with one RE2_PROGRAM_LIMIT for every pattern it compiles through
 * compileRE2; nested calls share the outermost's.
 */
export function withRE2Budget<T>(fn: () => T): T {
  if (budget) return fn();
  budget = { remaining: RE2_PROGRAM_LIMIT };
  try {
    return fn();
  } finally {
    budget = undefined;
  }
}

/**
 * RE2JS.compile, refused before any work past the bound: the pattern's own estimate, and inside withRE2Budget what
 * the request's patterns together may cost. Throws RE2JS's errors, and Go's `expression too large` past the bound.
 */
export function compileRE2(pattern: string): RE2JS {
  const size = re2ProgramSize(pattern);
  if (size > RE2_PROGRAM_LIMIT) throw new Error(RE2_TOO_LARGE);
  if (budget) {
    if (size > budget.remaining) {
      throw new Error(`${RE2_TOO_LARGE}: the regular expressions of one request may compile to ${RE2_PROGRAM_LIMIT} instructions together`);
    }
    budget.remaining -= size;
  }
  return RE2JS.compile(pattern);
}
