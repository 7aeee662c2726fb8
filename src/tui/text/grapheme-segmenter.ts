/**
 * A stand-in for Intl.Segmenter in the TUI's bundle (scripts/bundle-tui.mjs swaps every `Intl.Segmenter` there for
 * this class). Ink measures, slices and diffs every line it draws through grapheme segmentation (string-width,
 * slice-ansi, @alcalzone/ansi-tokenize), and each of those packages builds its segmenter as it loads: the first
 * Intl.Segmenter a process makes loads ICU's break-iterator data, ~12–18 ms of CPU before the browser's first frame.
 *
 * Most of what the browser draws needs none of it: in a string made only of the code points below, every code point
 * is a grapheme cluster of its own (Unicode's grapheme rules join a code point to its neighbour only for CR LF,
 * Hangul jamo, Extend / ZWJ / SpacingMark / Prepend characters and regional-indicator pairs, none of which are in
 * these ranges; src/tui/text/grapheme-segmenter.test.ts checks every one of them against Intl.Segmenter). Such
 * strings are split code point by code point here; anything else goes to a real Intl.Segmenter, made the first time
 * one is needed. Word and sentence segmenters are always the real one.
 */

/** [first, last] UTF-16 code units (all in the BMP, no surrogates) that are always a grapheme cluster of their own. */
export const singleClusterRanges: readonly (readonly [number, number])[] = [
  // C0 controls (CR excluded: CR LF is one cluster), ASCII, C1 controls, Latin-1 to the spacing modifier letters.
  [0x0000, 0x000c],
  [0x000e, 0x02ff],
  // General punctuation (dashes, quotes, bullet, ellipsis, ‰, primes); not ZWNJ / ZWJ (U+200C–D), which join.
  [0x2010, 0x2027],
  [0x2030, 0x205e],
  // Letterlike symbols, number forms, arrows, mathematical operators, miscellaneous technical (⏎), control pictures,
  // enclosed alphanumerics, box drawing, block elements, geometric shapes (▸ ▾ ◆), miscellaneous symbols (⚠), dingbats.
  [0x2100, 0x27bf],
  // Supplemental arrows and mathematical symbols, miscellaneous symbols and arrows.
  [0x2900, 0x2bff],
];

/** One lookup per UTF-16 code unit instead of a range search. */
const singleCluster = (() => {
  const table = new Uint8Array(0x2c00);
  for (const [first, last] of singleClusterRanges) table.fill(1, first, last + 1);
  return table;
})();

/** True when every code point of `text` is its own grapheme cluster (see singleClusterRanges). */
export function isOneClusterPerCodePoint(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0x2c00 || singleCluster[unit] === 0) return false;
  }
  return true;
}

type RealSegmenter = Intl.Segmenter;
// Reached through globalThis: the bundle replaces the expression `Intl.Segmenter` itself with this class.
const RealSegmenter = (globalThis as unknown as { Intl: { Segmenter: typeof Intl.Segmenter } }).Intl.Segmenter;

export class GraphemeSegmenter {
  static supportedLocalesOf(locales?: string | string[], options?: { localeMatcher?: 'lookup' | 'best fit' }): string[] {
    return RealSegmenter.supportedLocalesOf(locales, options);
  }

  readonly #locales: string | string[] | undefined;
  readonly #options: Intl.SegmenterOptions | undefined;
  readonly #grapheme: boolean;
  #real: RealSegmenter | undefined;

  constructor(locales?: string | string[], options?: Intl.SegmenterOptions) {
    this.#locales = locales;
    this.#options = options;
    this.#grapheme = (options?.granularity ?? 'grapheme') === 'grapheme';
    // Word and sentence segmenters (and an invalid granularity, which throws here as it would) are the real one.
    if (!this.#grapheme) this.#real = new RealSegmenter(locales, options);
  }

  segment(input: string): Intl.Segments {
    const text = String(input);
    if (this.#grapheme && isOneClusterPerCodePoint(text)) return new CodePointSegments(text, () => this.real().segment(text)) as unknown as Intl.Segments;
    return this.real().segment(text);
  }

  resolvedOptions(): Intl.ResolvedSegmenterOptions {
    return this.real().resolvedOptions();
  }

  private real(): RealSegmenter {
    return (this.#real ??= new RealSegmenter(this.#locales, this.#options));
  }
}

/** The segments of a string whose code points are each one cluster (all in the BMP: one UTF-16 unit each). */
class CodePointSegments {
  constructor(
    private readonly text: string,
    private readonly slow: () => Intl.Segments,
  ) {}

  containing(index?: number): Intl.SegmentData | undefined {
    const i = index === undefined ? 0 : Math.trunc(Number(index));
    // NaN and other odd positions: exactly what the real segmenter answers.
    if (!Number.isInteger(i)) return this.slow().containing(index);
    if (i < 0 || i >= this.text.length) return undefined;
    return { segment: this.text[i]!, index: i, input: this.text };
  }

  *[Symbol.iterator](): IterableIterator<Intl.SegmentData> {
    const text = this.text;
    for (let i = 0; i < text.length; i++) yield { segment: text[i]!, index: i, input: text };
  }
}
