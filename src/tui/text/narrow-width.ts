/**
 * The terminal width of text made of characters one column wide, without the work string-width does for any
 * non-ASCII text (grapheme segmentation, emoji and Unicode property checks per cluster). The browser's lines are
 * ASCII plus box drawing, arrows and a few symbols, so Ink measures almost every line it lays out here; the TUI's
 * bundle puts this in front of every copy of string-width (scripts/bundle-tui.mjs), which measures everything else.
 * src/tui/text/narrow-width.test.ts checks every character below against string-width itself.
 */

/** [first, last] UTF-16 code units that are one grapheme cluster each and one column wide (string-width's default). */
export const oneColumnRanges: readonly (readonly [number, number])[] = [
  [0x0020, 0x007e], // ASCII
  [0x00a0, 0x00ac], // Latin-1 (not the soft hyphen, U+00AD, which has no width)…
  [0x00ae, 0x02ff], // …Latin extended, IPA, spacing modifier letters
  [0x2010, 0x2027], // dashes, quotes, bullet, ellipsis
  [0x2030, 0x205e], // per mille, primes, other punctuation
  [0x2100, 0x2319], // letterlike symbols, number forms, arrows, mathematical operators, part of misc technical
  [0x231c, 0x2328], // misc technical, without the wide ⌚⌛ and 〈〉
  [0x232b, 0x23e8], // misc technical up to ⏎, without the wide ⏩–⏬
  [0x23f4, 0x25fc], // control pictures, enclosed alphanumerics, box drawing, block elements, geometric shapes (▸ ▾ ◆)
  [0x2694, 0x26a0], // …⚠
];

const end = 0x2700;
const oneColumn = (() => {
  const table = new Uint8Array(end);
  for (const [first, last] of oneColumnRanges) table.fill(1, first, last + 1);
  return table;
})();

const escape = 0x1b;
const leftBracket = 0x5b;
const letterM = 0x6d;

/**
 * The width string-width gives `text` when every character of it is in oneColumnRanges, ANSI colour and style
 * sequences (ESC [ … m, no width) aside; undefined for anything else, for string-width to measure.
 */
export function narrowTextWidth(text: string): number | undefined {
  let width = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit === escape) {
      if (text.charCodeAt(i + 1) !== leftBracket) return undefined;
      let j = i + 2;
      for (let c = text.charCodeAt(j); (c >= 0x30 && c <= 0x39) || c === 0x3b; c = text.charCodeAt(++j));
      if (text.charCodeAt(j) !== letterM) return undefined;
      i = j;
      continue;
    }
    if (unit >= end || oneColumn[unit] === 0) return undefined;
    width++;
  }
  return width;
}

export interface StringWidthOptions {
  ambiguousIsNarrow?: boolean;
  countAnsiEscapeCodes?: boolean;
}

/** string-width with the fast path in front (its default options only: other options measure differently). */
export function withNarrowFastPath(stringWidth: (text: string, options?: StringWidthOptions) => number) {
  return function narrowFirstStringWidth(text: string, options?: StringWidthOptions): number {
    if (typeof text === 'string' && (options === undefined || (options.ambiguousIsNarrow !== false && !options.countAnsiEscapeCodes))) {
      const width = narrowTextWidth(text);
      if (width !== undefined) return width;
    }
    return stringWidth(text, options);
  };
}
