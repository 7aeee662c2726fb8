/**
 * `kcpt doctor`: the things a first `kcpt start` (and the README's kubectl commands) depend on, checked one by one,
 * each failure with what to do about it. Nothing here changes the machine.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import path from 'node:path';
import { serverVersion } from '../../engine/endpoints/non-resource.js';
import { CliError } from '../common/errors.js';
import { colors, type Io } from '../common/io.js';
import { printData, type OutputFormat } from '../common/output.js';
import { knownRootDirectories } from '../server/known-servers.js';
import { kcptPackageRoot } from '../server/package-root.js';
import { readServerRecord } from '../server/server-record.js';

export type Verdict = 'ok' | 'warning' | 'failed' | 'skipped';

export interface Check {
  check: string;
  verdict: Verdict;
  detail: string;
  /** What to do about a warning or a failure. */
  fix?: string;
}

export interface DoctorOptions {
  port: number;
  bindAddress: string;
  etcd: boolean;
  output?: OutputFormat;
}

export async function runDoctor(io: Io, opts: DoctorOptions): Promise<void> {
  const checks = await Promise.all([checkNode(), checkSqlite(), checkPort(opts.port, opts.bindAddress), checkKubectl(), opts.etcd ? checkEtcd() : skipped()]);
  if (opts.output) await printData(io, opts.output, checks);
  else {
    const c = await colors(io);
    const mark = { ok: c.green('✓'), warning: c.yellow('!'), failed: c.red('✗'), skipped: c.dim('-') };
    for (const check of checks) {
      io.out(`${mark[check.verdict]} ${check.check}: ${check.detail}\n`);
      if (check.fix) io.out(`    ${check.fix}\n`);
    }
  }
  const failed = checks.filter((check) => check.verdict === 'failed');
  if (failed.length > 0) throw new CliError(`${failed.length} check${failed.length === 1 ? '' : 's'} failed: ${failed.map((f) => f.check).join(', ')}`);
}

function packageJson(): { engines?: { node?: string }; dependencies?: Record<string, string> } {
  return JSON.parse(readFileSync(path.join(kcptPackageRoot(), 'package.json'), 'utf8'));
}

/** `>=20.19` against `20.20.2`. */
export function satisfiesMinimum(version: string, range: string): boolean {
  const want = /^>=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(range.trim());
  if (!want) return true;
  const have = version.replace(/^v/, '').split('.').map(Number);
  for (let i = 0; i < 3; i++) {
    const w = Number(want[i + 1] ?? 0);
    const h = have[i] ?? 0;
    if (h !== w) return h > w;
  }
  return true;
}

function checkNode(): Check {
  const range = packageJson().engines?.node ?? '>=20.19';
  const version = process.version;
  if (satisfiesMinimum(version, range)) return { check: 'Node.js', verdict: 'ok', detail: `${version} (kcpt needs ${range})` };
  return { check: 'Node.js', verdict: 'failed', detail: `${version}, but kcpt needs ${range}`, fix: `install Node.js ${range.replace('>=', '')} or newer (e.g. with nvm, or nodejs.org)` };
}

function checkSqlite(): Check {
  const root = kcptPackageRoot();
  const requireFromKcpt = createRequire(path.join(root, 'package.json'));
  try {
    const Database = requireFromKcpt('better-sqlite3') as typeof import('better-sqlite3');
    const db = new Database(':memory:');
    const { v } = db.prepare('select sqlite_version() as v').get() as { v: string };
    db.close();
    const module = (requireFromKcpt('better-sqlite3/package.json') as { version: string }).version;
    return { check: 'SQLite', verdict: 'ok', detail: `${v} (better-sqlite3 ${module}, its native module loads)` };
  } catch (err) {
    const message = (err as Error).message.split('\n')[0];
    return {
      check: 'SQLite',
      verdict: 'failed',
      detail: `better-sqlite3's native module does not load: ${message}`,
      fix:
        `run "npm rebuild better-sqlite3" in ${root}: where no prebuilt binary fits Node ${process.version} on ${process.platform}/${process.arch}, ` +
        'it compiles SQLite, which needs python3, make and a C++ compiler (Debian/Ubuntu: apt-get install python3 make g++; macOS: xcode-select --install)',
    };
  }
}

async function checkPort(port: number, host: string): Promise<Check> {
  const check = `port ${port}`;
  const free = await new Promise<boolean | string>((resolve) => {
    const probe = createServer();
    probe.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'EADDRINUSE' ? false : (err.code ?? err.message)));
    probe.listen(port, host, () => probe.close(() => resolve(true)));
  });
  if (free === true) return { check, verdict: 'ok', detail: `free on ${host}` };
  if (typeof free === 'string') return { check, verdict: 'failed', detail: `cannot listen on ${host}:${port} (${free})`, fix: 'pick another --bind-address or --secure-port' };
  const kcpt = knownRootDirectories().find((dir) => readServerRecord(dir)?.port === port);
  if (kcpt) return { check, verdict: 'ok', detail: `in use by kcpt running in ${kcpt}` };
  return { check, verdict: 'warning', detail: `in use by another process on ${host}`, fix: 'start kcpt with --secure-port 0 (a free port) or another port' };
}

function run(command: string, args: string[]): Promise<{ stdout: string; missing: boolean; error?: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { timeout: 15_000 }, (err, stdout) => {
      const code = (err as NodeJS.ErrnoException | null)?.code;
      resolve({ stdout: String(stdout), missing: code === 'ENOENT', ...(err && code !== 'ENOENT' ? { error: err.message.split('\n')[0] } : {}) });
    });
  });
}

async function checkKubectl(): Promise<Check> {
  const served = Number(serverVersion.minor);
  const wanted = `1.${served - 1} to 1.${served + 1}`;
  const r = await run('kubectl', ['version', '--client', '-o', 'json']);
  if (r.missing) return { check: 'kubectl', verdict: 'failed', detail: 'not on PATH', fix: `install kubectl ${wanted} (kcpt serves Kubernetes 1.${served}): https://kubernetes.io/docs/tasks/tools/` };
  let client: { gitVersion?: string; minor?: string } | undefined;
  try {
    client = (JSON.parse(r.stdout) as { clientVersion?: { gitVersion?: string; minor?: string } }).clientVersion;
  } catch {
    return { check: 'kubectl', verdict: 'warning', detail: `on PATH, but "kubectl version --client -o json" failed: ${r.error ?? 'no JSON'}` };
  }
  const minor = Number.parseInt(client?.minor ?? '', 10);
  const detail = `${client?.gitVersion ?? 'unknown version'} on PATH (kcpt serves Kubernetes 1.${served})`;
  if (Number.isNaN(minor) || Math.abs(minor - served) <= 1) return { check: 'kubectl', verdict: 'ok', detail };
  return { check: 'kubectl', verdict: 'warning', detail: `${detail}: outside kubectl's supported skew`, fix: `use kubectl ${wanted}` };
}

async function checkEtcd(): Promise<Check> {
  const r = await run('etcd', ['--version']);
  if (r.missing) return { check: 'etcd', verdict: 'failed', detail: 'not on PATH', fix: 'install etcd (Debian/Ubuntu: apt-get install etcd-server), or use the default SQLite storage' };
  const version = /etcd Version:\s*(\S+)/.exec(r.stdout)?.[1];
  if (!version) return { check: 'etcd', verdict: 'warning', detail: `on PATH, but "etcd --version" said nothing useful${r.error ? `: ${r.error}` : ''}` };
  return { check: 'etcd', verdict: 'ok', detail: `${version} on PATH` };
}

function skipped(): Check {
  return { check: 'etcd', verdict: 'skipped', detail: 'not checked (kcpt doctor --etcd checks it; SQLite needs none)' };
}
