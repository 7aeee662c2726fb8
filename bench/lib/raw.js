// Starting bench/raw-server.js (the raw fastify HTTPS floor) as a child process.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { benchDir, trackChild, waitExit } from './util.js';

/** workspaces: {sampleFile, token} also serves the bare workspace routes (bench/lib/bare-workspaces.js). */
export async function startRawServer({ certDir, objFile, workspaces }) {
  const args = [...(process.env.KCPT_BARE_NODE_ARGS ?? '').split(' ').filter(Boolean), path.join(benchDir, 'raw-server.js'), certDir, objFile, '0', ...(workspaces ? [workspaces.sampleFile, workspaces.token] : [])];
  const child = trackChild(spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] }));
  let onEarlyExit;
  const port = await new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('raw server did not start')), 15_000);
    child.stdout.on('data', (d) => {
      out += d;
      const m = /listening (\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    onEarlyExit = (code) => reject(new Error(`raw server exited with ${code}`));
    child.on('exit', onEarlyExit);
  });
  child.off('exit', onEarlyExit);
  return {
    url: `https://127.0.0.1:${port}`,
    port,
    child,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await waitExit(child, 5000);
    },
  };
}
