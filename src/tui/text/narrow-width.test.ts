import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { narrowTextWidth, oneColumnRanges, withNarrowFastPath } from './narrow-width.js';

type StringWidth = (text: string, options?: { ambiguousIsNarrow?: boolean; countAnsiEscapeCodes?: boolean }) => number;

// The copies of string-width the TUI's bundle puts the fast path in front of: each package resolves its own.
const repo = path.resolve(import.meta.dirname, '../../..');
const inkDir = path.dirname(createRequire(path.join(repo, 'package.json')).resolve('ink'));
const users = { ink: inkDir, 'cli-truncate': path.join(repo, 'node_modules', 'cli-truncate', 'index.js'), 'wrap-ansi (Ink’s)': path.join(inkDir, 'wrap-text.js') };
const copies = await Promise.all(
  Object.entries(users).map(async ([user, from]) => {
    const resolvedFrom = user === 'wrap-ansi (Ink’s)' ? createRequire(from).resolve('wrap-ansi') : from;
    const file = createRequire(resolvedFrom).resolve('string-width');
    const { version } = JSON.parse(readFileSync(path.join(path.dirname(file), 'package.json'), 'utf8')) as { version: string };
    return { user, version, stringWidth: ((await import(pathToFileURL(file).href)) as { default: StringWidth }).default };
  }),
);
// scripts/bundle-tui.mjs wraps string-width 8 and later (7 counts some text symbols as emoji).
const wrapped = copies.filter((c) => Number(c.version.split('.')[0]) >= 8);

const oneColumnCharacters = oneColumnRanges.flatMap(([first, last]) => Array.from({ length: last - first + 1 }, (_, i) => String.fromCharCode(first + i)));

describe('narrowTextWidth (string-width’s fast path in the TUI bundle)', () => {
  it('is in front of Ink’s and cli-truncate’s copies', () => {
    expect(wrapped.map((c) => c.user)).toEqual(expect.arrayContaining(['ink', 'cli-truncate']));
  });

  for (const { user, stringWidth } of wrapped) {
    it(`gives every character it counts the width string-width (${user}) gives it, alone and in a row`, () => {
      const wrong = oneColumnCharacters.filter((c) => stringWidth(c) !== 1 || stringWidth(`${c}${c}a`) !== 3);
      expect(wrong.map((c) => c.codePointAt(0)!.toString(16))).toEqual([]);
      const all = oneColumnCharacters.join('');
      expect(narrowTextWidth(all)).toBe(stringWidth(all));
    });

    it(`measures the browser's lines, colours included, as string-width (${user}) does`, () => {
      for (const text of [
        '╭────────╮',
        '│ ▸ w1                 universal      Ready        │',
        '↑↓ move  → expand  ← collapse  ⏎ use  q quit',
        '\u001B[36m▾ root\u001B[39m · — … ◆ ⚠ \u001B[1;2mdim\u001B[0m \u001B[38;5;208morange\u001B[m',
        '',
      ]) {
        expect(narrowTextWidth(text)).toBe(stringWidth(text));
      }
    });

    it(`leaves anything else to string-width (${user}): wide, emoji, combining, control and unknown escapes`, () => {
      const measured = withNarrowFastPath(stringWidth);
      for (const text of ['漢字', '👍🏽', 'e\u0301', '⚡', '⌚', 'a\tb', 'line\nline', '\u001B]8;;https://x\u0007link\u001B]8;;\u0007', '\u001B[2Jclear', '\u00AD']) {
        expect(narrowTextWidth(text)).toBeUndefined();
        expect(measured(text)).toBe(stringWidth(text));
      }
      // Options that measure differently skip the fast path.
      expect(measured('\u001B[36mab\u001B[39m', { countAnsiEscapeCodes: true })).toBe(stringWidth('\u001B[36mab\u001B[39m', { countAnsiEscapeCodes: true }));
      expect(measured('±·→', { ambiguousIsNarrow: false })).toBe(stringWidth('±·→', { ambiguousIsNarrow: false }));
    });
  }
});
