import { describe, expect, it } from 'vitest';
import type { CommandSpec } from './command-spec.js';
import { fastParse } from './fast-parse.js';

const spec: CommandSpec = {
  id: 't',
  summary: '',
  args: [{ name: 'ref', description: '' }],
  flags: [
    { name: 'filename', char: 'f', kind: 'string', multiple: true, description: '' },
    { name: 'name', kind: 'string', description: '' },
  ],
  run: async () => undefined,
};

describe('fast path parsing', () => {
  it('collects a repeatable flag into a list, and leaves it undefined when absent', () => {
    expect(fastParse(spec, ['x', '-f', 'a.yaml', '--filename', 'b.yaml'])).toEqual({ args: { ref: 'x' }, flags: { filename: ['a.yaml', 'b.yaml'], name: undefined } });
    expect(fastParse(spec, ['x'])).toEqual({ args: { ref: 'x' }, flags: { filename: undefined, name: undefined } });
  });

  it('a repeated single-value flag keeps its last value, as pflag does', () => {
    expect(fastParse(spec, ['--name', 'a', '--name', 'b'])?.flags.name).toBe('b');
  });
});
