// Starting bench/raw-server.js (the raw fastify HTTPS floor) as a child process.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { benchDir, waitExit } from './util.js';

export async function startRawServer({ certDir, objFile }) {
  const child = spawn(process.execPath, [path.join(benchDir, 'raw-server.js'), certDir, objFile, '0'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
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
    child.on('exit', (code) => reject(new Error(`raw server exited with ${code}`)));
  });
  child.removeAllListeners('exit');
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
