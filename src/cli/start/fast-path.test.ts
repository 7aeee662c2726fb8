import { afterEach, describe, expect, it } from 'vitest';
import { parseStartArgv } from './fast-path.js';

describe("start's fast-path argv parsing", () => {
  afterEach(() => {
    delete process.env.KCPT_ROOT_DIRECTORY;
  });

  it('reads flags, integers and defaults from the flag table', () => {
    const values = parseStartArgv(['--secure-port', '0', '--root-directory', '/tmp/x', '-v', '1', '--detach'])!;
    expect([values['secure-port'], values['root-directory'], values.v, values.detach]).toEqual([0, '/tmp/x', 1, true]);
    expect(parseStartArgv([])!['secure-port']).toBe(6443);
  });

  it('takes KCPT_ROOT_DIRECTORY when --root-directory is not given', () => {
    process.env.KCPT_ROOT_DIRECTORY = '/tmp/from-env';
    expect(parseStartArgv([])!['root-directory']).toBe('/tmp/from-env');
    expect(parseStartArgv(['--root-directory', '/tmp/flag'])!['root-directory']).toBe('/tmp/flag');
  });

  it('leaves help, unknown flags, positionals and bad integers to oclif', () => {
    for (const argv of [['-h'], ['--help'], ['--bogus'], ['extra'], ['--secure-port', 'x'], ['--secure-port', '70000']]) {
      expect(parseStartArgv(argv), argv.join(' ')).toBeUndefined();
    }
  });
});
