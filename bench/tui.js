// 10. TUI: `kcpt tui` over a tree of 10,000 workspaces (one top, fan-out 100: 100 children, each with up to 100).
//     Target: the browser opens in <= 300 ms — lazy levels and windowed rows, no full-tree fetch. Open:
//     the real command in a tmux pane (bench/lib/tui-terminal.js), from spawn to the first screen showing the top
//     level, beside `node -e 0`. Then, in one process drawing into ink-testing-library (bench/lib/tui-open.js):
//     expanding a child (a level of 100, listed and watched) and the key → frame latency of moving the cursor. The
//     box is shared: the CPU a sample used (user + sys) is reported beside the wall time, and is the steadier figure.
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { client, startKcpt } from './lib/kcpt.js';
import { openInTmux } from './lib/tui-terminal.js';
import { createWorkspaces, singleTopPlan } from './lib/workspace-driver.js';
import { benchDir, log, median, removeDir, repoDir, tempDir } from './lib/util.js';

const treeSize = 10_000;
const fanOut = 100;
const targetMs = 300;

function runNode(args, env) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, args, { cwd: repoDir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve({ out, ms: performance.now() - t0 }) : reject(new Error(`exit ${code}: ${err.trim().split('\n').slice(-3).join(' ')}`))));
  });
}

export async function run(ctx) {
  const dir = tempDir('kcpt-bench-tui-');
  const home = path.join(dir, 'home');
  mkdirSync(home);
  const server = await startKcpt({ rootDir: dir });
  const c = client(server.url, { token: server.token, maxSockets: 8 });
  try {
    log(`  creating ${treeSize} workspaces under root:w0 (fan-out ${fanOut})...`);
    const t = performance.now();
    await createWorkspaces({ server, c, agent: c.agent, basePath: 'root', prefix: 'w', plan: singleTopPlan(treeSize + 1, fanOut), concurrency: 16 });
    log(`  created in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    const kubeconfig = path.join(dir, 'bench.kubeconfig');
    copyFileSync(path.join(dir, 'root', 'admin.kubeconfig'), kubeconfig);
    const env = { PATH: process.env.PATH, HOME: home, KUBECONFIG: kubeconfig, NO_COLOR: '1' };
    // singleTopPlan: node 0 is the top, nodes 1…100 its children, node 1's children are 101…200.
    const args = [path.join(benchDir, 'lib', 'tui-open.js'), 'root:w0', 'w1', 'w101'];
    const samples = Math.max(3, Math.min(ctx.cliSamples ?? 5, 9));
    const runs = [];
    const floor = [];
    for (let i = 0; i <= samples; i++) {
      const open = await openInTmux({ cwd: repoDir, env, args: ['tui', '-w', ':root:w0'], expect: /▸ w1\s/ });
      const r = { ...JSON.parse((await runNode(args, env)).out.trim().split('\n').at(-1)), open };
      const n = await runNode(['-e', '0'], env);
      if (i === 0) continue; // warms the page cache
      runs.push(r);
      floor.push(n.ms);
      log(`  open ${r.open.wallMs.toFixed(0)} ms (cpu ${r.open.cpuMs.toFixed(0)} ms), expand ${r.expand.wallMs.toFixed(0)} ms, key ${r.keyMs.toFixed(1)} ms`);
    }
    const m = (f) => median(runs.map(f));
    return [
      {
        name: `TUI open (${treeSize} ws tree)`,
        unit: 'ms',
        kcpt: m((r) => r.open.wallMs),
        baseline: median(floor),
        baselineName: 'node -e 0',
        target: { kind: 'max', max: targetMs },
        note: `cpu ${m((r) => r.open.cpuMs).toFixed(0)} ms (user+sys); min wall ${Math.min(...runs.map((r) => r.open.wallMs)).toFixed(0)} ms`,
      },
      {
        name: `TUI expand a level of ${fanOut}`,
        unit: 'ms',
        kcpt: m((r) => r.expand.wallMs),
        baseline: NaN,
        target: { kind: 'info' },
        note: `cpu ${m((r) => r.expand.cpuMs).toFixed(0)} ms`,
      },
      { name: 'TUI key → frame (cursor move)', unit: 'ms', kcpt: m((r) => r.keyMs), baseline: NaN, target: { kind: 'info' } },
    ];
  } finally {
    c.close();
    await server.stop();
    removeDir(dir);
  }
}
