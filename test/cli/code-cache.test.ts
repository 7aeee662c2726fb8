/**
 * bin/run.js compiles the CLI bundle with a V8 code cache kept under os.tmpdir() (src/cli/code-cache.ts): a command
 * gives the same answer with no cache, with one, and with a damaged one (which is replaced), and a cache directory
 * other users could write to is never used.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/server.js';

let dir: string;
let cacheDir: string;

const kubeconfig = `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: https://127.0.0.1:1/clusters/root:team
contexts:
- name: c
  context:
    cluster: c
    user: u
current-context: c
users:
- name: u
  user:
    token: t
`;

/** `kcpt ws .` (reads only the kubeconfig) as a user's shell runs it, with our own TMPDIR. */
function wsCurrent(): string {
  return execFileSync(process.execPath, [join(repoRoot, 'bin', 'run.js'), 'ws', '.'], {
    env: { PATH: process.env.PATH, HOME: dir, TMPDIR: join(dir, 'tmp'), KUBECONFIG: join(dir, 'kubeconfig'), NO_COLOR: '1' },
    encoding: 'utf8',
  });
}

const caches = () => readdirSync(cacheDir).filter((f) => f.endsWith('.v8cache'));

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'kcpt-code-cache-test-'));
  mkdirSync(join(dir, 'tmp'));
  writeFileSync(join(dir, 'kubeconfig'), kubeconfig);
  cacheDir = join(dir, 'tmp', `kcpt-code-cache-${process.getuid!()}`);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(process.getuid === undefined)('the CLI bundle’s code cache', () => {
  const expected = "Current workspace is 'root:team'.\n";

  it('is written by the first run and read, unchanged, by the next', () => {
    expect(wsCurrent()).toBe(expected);
    expect(statSync(cacheDir).mode & 0o777).toBe(0o700);
    const [cache] = caches();
    expect(cache).toMatch(/-ws\.v8cache$/);
    const written = statSync(join(cacheDir, cache!)).mtimeMs;
    expect(wsCurrent()).toBe(expected);
    expect(caches()).toEqual([cache]);
    expect(statSync(join(cacheDir, cache!)).mtimeMs).toBe(written);
  });

  it('is replaced when V8 refuses it, and the command still answers', () => {
    const [cache] = caches();
    writeFileSync(join(cacheDir, cache!), 'not a code cache');
    expect(wsCurrent()).toBe(expected);
    expect(readFileSync(join(cacheDir, cache!), 'utf8')).not.toBe('not a code cache');
  });

  it('is neither read nor written in a directory others may write to', () => {
    for (const f of caches()) rmSync(join(cacheDir, f));
    chmodSync(cacheDir, 0o777);
    expect(wsCurrent()).toBe(expected);
    expect(caches()).toEqual([]);
  });
});

describe('the bundle compiled through node:vm', () => {
  it('has no import() of its own besides the lent importer (Node 20 gives vm-compiled code no loader for it)', () => {
    // A plain import() in code the bundle runs fails only at run time, with "A dynamic import callback was not
    // specified": route it through src/client/external-import.ts instead.
    const bundle = readFileSync(join(repoRoot, 'dist', 'cli-bundle', 'fast-path.cjs'), 'utf8');
    expect(bundle.match(/\bimport\(/g) ?? []).toHaveLength(1);
  });
});
