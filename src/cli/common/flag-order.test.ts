import { describe, expect, it } from 'vitest';
import { connectionFlags } from './connection-flags.js';
import { hoistFlags } from './flag-order.js';

const ids = ['ws', 'ws use', 'ws cd', 'ws tree', 'ws create', 'kubeconfig', 'status'];
const hoist = (argv: string[]) => hoistFlags(argv, connectionFlags, ids);

describe('connection flags before or between command words', () => {
  it('moves them behind the words of the command, keeping their values', () => {
    expect(hoist(['ws', '--context', 'x', 'use', 'y'])).toEqual(['ws', 'use', 'y', '--context', 'x']);
    expect(hoist(['ws', '--server=https://h:6443', 'tree', '--full'])).toEqual(['ws', 'tree', '--full', '--server=https://h:6443']);
    expect(hoist(['ws', '-s', 'https://h', '--insecure-skip-tls-verify', 'create', 'a'])).toEqual([
      'ws',
      'create',
      'a',
      '-s',
      'https://h',
      '--insecure-skip-tls-verify',
    ]);
    expect(hoist(['--kubeconfig', 'k', 'ws', 'cd', '..'])).toEqual(['ws', 'cd', '..', '--kubeconfig', 'k']);
  });

  it('treats a word that continues no command as an argument', () => {
    expect(hoist(['ws', '--context', 'x', 'team'])).toEqual(['ws', 'team', '--context', 'x']);
    expect(hoist(['ws', '--context', 'x'])).toEqual(['ws', '--context', 'x']);
  });

  it('leaves argv alone when nothing comes before the words, and stops at other flags', () => {
    const after = ['ws', 'use', 'y', '--context', 'x'];
    expect(hoist(after)).toBe(after);
    expect(hoist(['ws', '--help', '--context', 'x', 'use'])).toEqual(['ws', '--help', '--context', 'x', 'use']);
    expect(hoist(['ws', '-o', 'json', 'tree'])).toEqual(['ws', '-o', 'json', 'tree']);
  });
});
