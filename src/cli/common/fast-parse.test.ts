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

describe('fast path parsing of integer, defaulted and required flags', () => {
  const server: CommandSpec = {
    id: 's',
    summary: '',
    args: [],
    flags: [
      { name: 'port', kind: 'integer', default: 6443, min: 0, max: 65535, description: '' },
      { name: 'v', char: 'v', kind: 'integer', default: 0, min: 0, description: '' },
      { name: 'dir', kind: 'string', default: '.kcp', description: '' },
      { name: 'config', kind: 'string', required: true, description: '' },
    ],
    run: async () => undefined,
  };

  it('gives integers as numbers and applies defaults, as oclif does', () => {
    expect(fastParse(server, ['--config', 'k', '--port', '7443', '-v', '2'])?.flags).toEqual({ port: 7443, v: 2, dir: '.kcp', config: 'k' });
    expect(fastParse(server, ['--config', 'k'])?.flags).toEqual({ port: 6443, v: 0, dir: '.kcp', config: 'k' });
  });

  it('leaves to oclif what it would refuse: a non-integer, a value out of bounds, a missing required flag', () => {
    expect(fastParse(server, ['--config', 'k', '--port', 'abc'])).toBeUndefined();
    expect(fastParse(server, ['--config', 'k', '--port', '70000'])).toBeUndefined();
    expect(fastParse(server, ['--config', 'k', '-v', '-1'])).toBeUndefined();
    expect(fastParse(server, ['--port', '1'])).toBeUndefined();
  });
});
