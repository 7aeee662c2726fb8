import { describe, expect, it } from 'vitest';
import { GraphemeSegmenter, isOneClusterPerCodePoint, singleClusterRanges } from './grapheme-segmenter.js';

const real = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const split = (segmenter: { segment(s: string): Iterable<Intl.SegmentData> }, text: string) =>
  [...segmenter.segment(text)].map(({ segment, index, input }) => ({ segment, index, same: input === text }));

const fastCodePoints = singleClusterRanges.flatMap(([first, last]) => Array.from({ length: last - first + 1 }, (_, i) => String.fromCharCode(first + i)));

describe('GraphemeSegmenter (the TUI bundle’s Intl.Segmenter)', () => {
  it('every code point it splits alone is a cluster of its own for Intl.Segmenter, between letters, doubled and all together', () => {
    const wrong = fastCodePoints.filter((c) => [...real.segment(`a${c}a`)].length !== 3 || [...real.segment(`${c}${c}`)].length !== 2);
    expect(wrong.map((c) => c.codePointAt(0)!.toString(16))).toEqual([]);
    const all = fastCodePoints.join('');
    expect([...real.segment(all)].length).toBe(all.length);
    const reversed = [...fastCodePoints].reverse().join('');
    expect([...real.segment(reversed)].length).toBe(reversed.length);
  });

  it('segments what the browser draws exactly as Intl.Segmenter does, without it', () => {
    const ours = new GraphemeSegmenter();
    for (const text of [
      '╭──────╮',
      '│ ▸ w1                 universal      Ready        │',
      '↑↓ move  → expand  ← collapse  ⏎ use  q quit',
      '\u001B[36m▾ root\u001B[39m · — … ◆ ⚠ server unreachable',
      'line one\nline two',
      '',
    ]) {
      expect(isOneClusterPerCodePoint(text)).toBe(true);
      expect(split(ours, text)).toEqual(split(real, text));
    }
  });

  it('hands everything else to Intl.Segmenter: emoji, ZWJ and flag sequences, combining marks, CR LF, Hangul, wide text', () => {
    const ours = new GraphemeSegmenter('en', { granularity: 'grapheme' });
    for (const text of ['👍🏽 ok', '👩‍👩‍👧 family', '🇩🇪🇫🇷', 'e\u0301 café', 'a\r\nb', '한국어 ᄀᄀ', '漢字', '⚠\uFE0F', '1\u20E3', 'a\u200Db']) {
      expect(isOneClusterPerCodePoint(text)).toBe(false);
      expect(split(ours, text)).toEqual(split(real, text));
    }
  });

  it('answers containing() and resolvedOptions() as Intl.Segmenter does', () => {
    const ours = new GraphemeSegmenter();
    const text = '▸ w1';
    for (const at of [undefined, 0, 1, 3, 3.7, -1, 4, 99, Number.NaN]) expect(ours.segment(text).containing(at)).toEqual(real.segment(text).containing(at));
    expect(ours.resolvedOptions()).toEqual(real.resolvedOptions());
    expect(GraphemeSegmenter.supportedLocalesOf(['en', 'de'])).toEqual(Intl.Segmenter.supportedLocalesOf(['en', 'de']));
  });

  it('is the real segmenter for words and sentences, and rejects what Intl.Segmenter rejects', () => {
    const words = new GraphemeSegmenter('en', { granularity: 'word' });
    expect(split(words, 'two words')).toEqual(split(new Intl.Segmenter('en', { granularity: 'word' }), 'two words'));
    expect(() => new GraphemeSegmenter('en', { granularity: 'letters' as 'word' })).toThrow(RangeError);
  });
});
