import { describe, expect, it } from 'vitest';
import { editDistance, suggestions } from './suggest.js';

describe('suggestions', () => {
  it('offers commands within two edits or starting with the word, nearest first', () => {
    const commands = ['ws', 'start', 'stop', 'status', 'bind', 'export', 'version', 'tui'];
    expect(suggestions('wss', commands)).toEqual(['ws']);
    expect(suggestions('stat', commands)).toEqual(['start', 'status', 'stop']);
    expect(suggestions('verison', commands)).toEqual(['version']);
    expect(suggestions('kubeconfig', commands)).toEqual([]);
  });

  it('counts insertions, deletions and substitutions', () => {
    expect(editDistance('create', 'creat')).toBe(1);
    expect(editDistance('list', 'lsit')).toBe(2);
    expect(editDistance('', 'abc')).toBe(3);
  });
});
