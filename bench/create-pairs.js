#!/usr/bin/env node
// Server CPU per CREATE for A/B comparisons of two builds on a shared, noisy box: this checkout's kcpt and another
// checkout's (--other DIR, built) run side by side, each on a fresh root directory, and take turns under the same
// load, rounds alternating A,B then B,A so a load trend favours neither: wrk POSTs ~1 KB ConfigMaps (the CREATE row's
// body) over 8 keep-alive connections for --seconds, server CPU (user+sys from /proc) divided by the requests done.
// Prints one JSON line per measurement and the medians.
//
//   node bench/create-pairs.js --other /path/to/other/checkout [--rounds 4] [--seconds 3] [--this-args "..."] [--other-args "..."]
// (--this-args/--other-args: extra `kcpt start` arguments for one side, e.g. --this-args="--storage sqlite://kcpt.db?synchronous=FULL"
//  with --other at this very checkout compares two settings of one build)
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { client, ensureNamespace, startKcpt } from './lib/kcpt.js';
import { findWrk, runNodeLoad, runWrk, wrkPostScript } from './lib/load.js';
import { configMap } from './lib/payload.js';
import { median, removeDir, repoDir, tempDir, withServerCpu } from './lib/util.js';

const { values } = parseArgs({ options: { other: { type: 'string' }, rounds: { type: 'string' }, seconds: { type: 'string' }, pad: { type: 'string' }, 'this-args': { type: 'string' }, 'other-args': { type: 'string' } } });
if (!values.other) throw new Error('--other DIR (a built checkout to compare with) is required');
const rounds = Number(values.rounds ?? 4);
const seconds = Number(values.seconds ?? 3);
const NS = 'bench-create';
const CM_PATH = `/clusters/root/api/v1/namespaces/${NS}/configmaps`;
const template = JSON.stringify(configMap('%s', NS, Number(values.pad ?? 560)));

/** Each side's kcpt is started by its own checkout's bench/lib/kcpt.js (so by its own bin/run.js and dist/). */
async function startSide(name, dir, extraArgs = []) {
  const lib = dir === repoDir ? { startKcpt } : await import(pathToFileURL(path.join(dir, 'bench', 'lib', 'kcpt.js')).href);
  const rootDir = tempDir(`kcpt-create-pairs-${name}-`);
  const server = await lib.startKcpt({ rootDir, extraArgs });
  await ensureNamespace(client(server.url, { token: server.token }), NS);
  return { name, dir, server, rootDir, n: 0 };
}

async function post(side) {
  const headers = { Authorization: `Bearer ${side.server.token}`, Accept: 'application/json' };
  const prefix = `r${side.n++}-`;
  const url = `${side.server.url}${CM_PATH}`;
  if (findWrk()) return runWrk({ url, connections: 8, durationS: seconds, script: wrkPostScript({ path: CM_PATH, bodyTemplate: template, namePrefix: prefix, headers }) });
  return runNodeLoad({ url, connections: 8, durationS: seconds, headers, makeRequest: (i) => ({ method: 'POST', path: CM_PATH, body: template.replace('%s', `${prefix}${i}`) }) });
}

const argsOf = (text) => (text ? text.split(' ').filter(Boolean) : []);
const sides = [await startSide('this', repoDir, argsOf(values['this-args'])), await startSide('other', path.resolve(values.other), argsOf(values['other-args']))];
const results = { this: [], other: [] };
try {
  for (const side of sides) await post(side); // warm-up: JIT, page cache
  for (let i = 0; i < rounds; i++) {
    for (const side of i % 2 === 0 ? sides : [...sides].reverse()) {
      const r = await withServerCpu(side.server.child.pid, () => post(side));
      if (r.non2xx + r.errors > 0) throw new Error(`${side.name}: ${r.non2xx} non-2xx answers, ${r.errors} socket errors`);
      results[side.name].push(r);
      console.log(JSON.stringify({ side: side.name, round: i + 1, rps: Math.round(r.rps), cpuUsPerReq: Math.round(r.cpuUsPerReq) }));
    }
  }
} finally {
  for (const side of sides) {
    await side.server.stop();
    removeDir(side.rootDir);
  }
}
const ratios = results.this.map((r, i) => r.cpuUsPerReq / results.other[i].cpuUsPerReq);
console.log(JSON.stringify({ medianRatioThisOverOther: +median(ratios).toFixed(3), thisCheaperIn: `${ratios.filter((x) => x < 1).length}/${ratios.length}` }));
for (const name of ['this', 'other']) {
  const rs = results[name];
  console.log(JSON.stringify({ side: name, medianRps: Math.round(median(rs.map((r) => r.rps))), medianCpuUsPerReq: Math.round(median(rs.map((r) => r.cpuUsPerReq))) }));
}
