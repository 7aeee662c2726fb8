#!/usr/bin/env node
// The Go peer tests (test/peers/go, a Go module of its own): compiled once per content into
// node_modules/.cache/kcpt-go-peers/<hash>/ (one `<package>.test` binary per package), then run against a kcpt server
// through test2json (built beside them: `go tool test2json` would build it again under each test's own HOME). Used by
// test/peers/go.test.ts, bench/envtest.js and, as a warm-up, .ci/run:
//
//   node scripts/go-peers.mjs build    compile (or find compiled) binaries, print where and how long it took
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const goModuleDir = path.join(repoDir, 'test', 'peers', 'go');
const cacheRoot = path.join(repoDir, 'node_modules', '.cache', 'kcpt-go-peers');

/** `go version` output, or undefined when there is no Go toolchain on PATH. */
export function goVersion() {
  const r = spawnSync('go', ['version'], { encoding: 'utf8', timeout: 30_000 });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

function moduleFiles(dir = goModuleDir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...moduleFiles(full));
    else out.push(full);
  }
  return out;
}

/** The packages with tests, and the top-level Test functions of each, read from the sources (no compiling). */
export function goTestNames() {
  const tests = {};
  for (const file of moduleFiles()) {
    if (!file.endsWith('_test.go')) continue;
    const pkg = path.relative(goModuleDir, path.dirname(file)).split(path.sep).join('/');
    for (const m of readFileSync(file, 'utf8').matchAll(/^func (Test\w+)\(t \*testing\.T\)/gm)) (tests[pkg] ??= []).push(m[1]);
  }
  for (const names of Object.values(tests)) names.sort();
  return tests;
}

/** A hash of the Go version, this script and every file of the module: the binaries are rebuilt when one changes. */
function contentHash(version) {
  const h = createHash('sha256').update(version).update(readFileSync(fileURLToPath(import.meta.url)));
  for (const file of moduleFiles()) h.update(path.relative(goModuleDir, file)).update('\0').update(readFileSync(file)).update('\0');
  return h.digest('hex').slice(0, 16);
}

/**
 * Compiles the peer test binaries unless this content was compiled before. Resolves with
 * {dir, binaries: {<package>: path}, cached, ms}. Go downloads the modules go.sum pins on first use.
 */
export async function buildGoPeers({ log = () => {} } = {}) {
  const version = goVersion();
  if (!version) throw new Error('no `go` on PATH: the Go peer tests need Go (1.26; see test/peers/go/go.mod)');
  const started = performance.now();
  const dir = path.join(cacheRoot, contentHash(version));
  const packages = Object.keys(goTestNames());
  const binaries = Object.fromEntries(packages.map((p) => [p, path.join(dir, `${path.basename(p)}.test`)]));
  if (existsSync(path.join(dir, 'complete'))) return { dir, binaries, cached: true, ms: performance.now() - started };

  log(`compiling the Go peer tests (${version}) into ${dir} ...`);
  const staging = `${dir}.tmp-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  const { code, output } = await run('go', ['test', '-c', '-o', `${staging}/`, ...packages.map((p) => `./${p}`)], { cwd: goModuleDir });
  if (code !== 0) {
    rmSync(staging, { recursive: true, force: true });
    throw new Error(`go test -c failed (exit ${code}):\n${output}`);
  }
  const tool = await run('go', ['build', '-o', path.join(staging, 'test2json'), 'cmd/test2json'], { cwd: goModuleDir });
  if (tool.code !== 0) {
    rmSync(staging, { recursive: true, force: true });
    throw new Error(`go build cmd/test2json failed (exit ${tool.code}):\n${tool.output}`);
  }
  for (const p of packages) statSync(path.join(staging, `${path.basename(p)}.test`));
  // Another process may have finished the same build meanwhile: either copy is good.
  if (!existsSync(dir)) {
    renameSync(staging, dir);
    mkdirSync(path.join(dir, 'complete'));
  } else rmSync(staging, { recursive: true, force: true });
  // Older builds of this checkout are dead weight (each ~150 MB).
  for (const old of readdirSync(cacheRoot)) if (path.join(cacheRoot, old) !== dir && !old.includes('.tmp-')) rmSync(path.join(cacheRoot, old), { recursive: true, force: true });
  return { dir, binaries, cached: false, ms: performance.now() - started };
}

/**
 * Runs one package's test binary through test2json (built beside it) in its package directory (tests read testdata/
 * from there); needs no Go toolchain or module cache. Resolves with {tests: Map<name, {status, elapsed, output}>,
 * code, output, ms}; names are test2json's
 * (`TestX`, `TestX/sub`); status is pass, fail or skip (a test without an end event, e.g. after a panic, is fail).
 */
export async function runGoTests({ pkg, binary, env, run: pattern, parallel = 8, timeout = '4m' }) {
  const args = ['-t', '-p', pkg, binary, '-test.v=test2json', `-test.parallel=${parallel}`, `-test.timeout=${timeout}`];
  if (pattern) args.push(`-test.run=${pattern}`);
  const started = performance.now();
  const tests = new Map();
  let unparsed = '';
  const { code, output } = await run(path.join(path.dirname(binary), 'test2json'), args, {
    cwd: path.join(goModuleDir, pkg),
    env,
    onLine(line) {
      let ev;
      try {
        ev = JSON.parse(line);
      } catch {
        unparsed += `${line}\n`;
        return;
      }
      if (!ev.Test) {
        if (ev.Output) unparsed += ev.Output;
        return;
      }
      const t = tests.get(ev.Test) ?? { status: 'fail', elapsed: 0, output: '' };
      if (ev.Output) t.output += ev.Output;
      if (ev.Action === 'pass' || ev.Action === 'fail' || ev.Action === 'skip') {
        t.status = ev.Action;
        t.elapsed = ev.Elapsed ?? 0;
      }
      tests.set(ev.Test, t);
    },
  });
  return { tests, code, output: unparsed || output, ms: performance.now() - started };
}

function run(cmd, args, { cwd, env = process.env, onLine } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let partial = '';
    const keep = (s) => {
      output += s;
      if (output.length > 1_000_000) output = output.slice(-500_000);
    };
    child.stdout.on('data', (d) => {
      const s = d.toString();
      if (!onLine) return keep(s);
      partial += s;
      const lines = partial.split('\n');
      partial = lines.pop();
      for (const line of lines) if (line) onLine(line);
    });
    child.stderr.on('data', (d) => keep(d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (onLine && partial) onLine(partial);
      resolve({ code, output });
    });
  });
}

if (process.argv[1] && import.meta.url === `file://${path.resolve(process.argv[1])}`) {
  if (process.argv[2] !== 'build') {
    console.error('usage: node scripts/go-peers.mjs build');
    process.exit(2);
  }
  const r = await buildGoPeers({ log: (m) => console.log(m) });
  console.log(`Go peer tests ${r.cached ? 'already compiled' : 'compiled'} in ${(r.ms / 1000).toFixed(1)} s: ${r.dir}`);
}
