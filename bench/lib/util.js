// Small helpers shared by the benchmarks: statistics, formatting, temp dirs, free ports, child processes.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const benchDir = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
export const repoDir = path.dirname(benchDir);

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Wall-clock milliseconds with sub-millisecond resolution, comparable across processes on this machine. */
export const epochMs = () => performance.timeOrigin + performance.now();

export function median(values) {
  const v = values.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return NaN;
  const mid = v.length >> 1;
  return v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

/** Nearest-rank percentile of an array (sorted in place). */
export function percentile(values, p) {
  if (values.length === 0) return NaN;
  values.sort((a, b) => a - b);
  const rank = Math.min(values.length - 1, Math.max(0, Math.ceil((p / 100) * values.length) - 1));
  return values[rank];
}

export const range = (values) => {
  const v = values.filter((x) => Number.isFinite(x));
  return v.length ? [Math.min(...v), Math.max(...v)] : [NaN, NaN];
};

export function fmtNum(n, digits = 0) {
  if (!Number.isFinite(n)) return 'n/a';
  return n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

export function fmtRate(n) {
  if (!Number.isFinite(n)) return 'n/a';
  return `${fmtNum(n, n < 100 ? 1 : 0)}/s`;
}

export function fmtMs(n) {
  if (!Number.isFinite(n)) return 'n/a';
  return `${fmtNum(n, n < 10 ? 2 : n < 100 ? 1 : 0)} ms`;
}

export function tempDir(prefix = 'kcpt-bench-') {
  return mkdtempSync(path.join(os.tmpdir(), prefix));
}

export function removeDir(dir) {
  try {
    rmSync(dir, { recursive: true, force: true });
  } catch {
    /* best effort */
  }
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

export function log(...args) {
  process.stderr.write(`${args.join(' ')}\n`);
}

/**
 * Runs `node <script> ...args` in a child process and resolves with the JSON it prints as its last stdout line.
 */
export function runNodeJson(script, args = [], { timeoutMs = 120_000, nodeArgs = [] } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgs, script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      const last = out.trim().split('\n').pop();
      if (code !== 0) return reject(new Error(`${path.basename(script)} exited with ${code ?? signal}: ${out.slice(-500)}`));
      try {
        resolve(JSON.parse(last));
      } catch {
        reject(new Error(`${path.basename(script)} printed no JSON: ${out.slice(-500)}`));
      }
    });
  });
}

/** Waits for a child process to exit (resolves at once if it already has). */
export function waitExit(child, timeoutMs = 10_000) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      try {
        child.kill('SIGKILL');
      } catch {
        /* gone */
      }
    }, timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/**
 * CPU time (user + system, ms) a process has used so far, from /proc (Linux; NaN elsewhere). Used to report CPU
 * per request, which is far less sensitive than req/s to other work sharing the cores.
 */
export function procCpuMs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[0] is field 3 (state); utime and stime are fields 14 and 15
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks();
  } catch {
    return NaN;
  }
}

let ticks;
function clockTicks() {
  if (ticks === undefined) {
    try {
      ticks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticks = 100;
    }
  }
  return ticks;
}

/** Runs fn() and adds `cpuUsPerReq` (server CPU µs per completed request) to its result. */
export async function withServerCpu(pid, fn) {
  const before = procCpuMs(pid);
  const res = await fn();
  const after = procCpuMs(pid);
  return { ...res, cpuUsPerReq: ((after - before) * 1000) / res.requests };
}

// Children (kcpt, raw servers) are killed if the bench exits early, so nothing keeps listening after a failure.
const children = new Set();
export function trackChild(child) {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}
process.once('exit', () => {
  for (const child of children) {
    try {
      child.kill('SIGKILL');
    } catch {
      /* already gone */
    }
  }
});
