/** `kcpt doctor` and `kcpt version --client` in-process (runCommand): what a newcomer's machine has, checked. */
import { createServer, type Server } from 'node:net';
import { runCommand } from '@oclif/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/server.js';

const run = (args: string[]) => runCommand(args, { root: repoRoot });
let busy: Server;
let busyPort: number;

beforeAll(async () => {
  busy = createServer();
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
  busyPort = (busy.address() as { port: number }).port;
});
afterAll(() => new Promise<void>((resolve) => busy.close(() => resolve())));

interface Check {
  check: string;
  verdict: string;
  detail: string;
  fix?: string;
}

describe('kcpt doctor', () => {
  it('checks Node.js, the native SQLite module, the port, kubectl and (when asked) etcd', async () => {
    const r = await run(['doctor', '--secure-port', String(busyPort), '--etcd', '-o', 'json']);
    const checks = JSON.parse(r.stdout) as Check[];
    expect(checks.map((c) => c.check)).toEqual(['Node.js', 'SQLite', `port ${busyPort}`, 'kubectl', 'etcd']);
    expect(checks[0]).toMatchObject({ verdict: 'ok', detail: `${process.version} (kcpt needs >=20.19)` });
    expect(checks[1]).toMatchObject({ verdict: 'ok', detail: expect.stringMatching(/^3\.\d+\.\d+ \(better-sqlite3 \d+\.\d+\.\d+, its native module loads\)$/) });
    expect(checks[2]).toMatchObject({ verdict: 'warning', detail: 'in use by another process on 127.0.0.1', fix: expect.stringContaining('--secure-port 0') });
    expect(checks[3]).toMatchObject({ verdict: 'ok', detail: expect.stringMatching(/^v1\.\d+\.\d+\S* on PATH \(kcpt serves Kubernetes 1\.32\)$/) });
  });

  it('fails (exit 1) with what to do when kubectl is not on PATH, in words', async () => {
    const saved = process.env.PATH;
    process.env.PATH = '/nonexistent';
    try {
      const r = await run(['doctor', '--secure-port', String(busyPort)]);
      expect(r.error?.oclif?.exit).toBe(1);
      expect(r.stdout).toContain('✗ kubectl: not on PATH\n    install kubectl 1.31 to 1.33 (kcpt serves Kubernetes 1.32)');
      expect(r.stdout).toContain('- etcd: not checked');
      expect(r.stderr).toBe('Error: 1 check failed: kubectl\n');
    } finally {
      process.env.PATH = saved;
    }
  });
});

describe('kcpt version --client', () => {
  it("prints kcpt's version without asking a server", async () => {
    const r = await run(['version', '--client']);
    expect(r.stdout).toMatch(/^Client Version: kcpt \d+\.\d+\.\d+ \(Node\.js v[\d.]+, \w+\/\w+\)\n$/);
  });
});
