// Starting bench/raw-server.js (the raw fastify HTTPS floor) as a child process.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { client } from './kcpt.js';
import { benchDir, trackChild, waitExit } from './util.js';

/**
 * workspaces: {sampleFile, token} also serves the bare workspace routes (bench/lib/bare-workspaces.js); nodeArgs and
 * env (added to ours) as startKcpt's (bench/profile.js preloads its hook this way).
 */
export async function startRawServer({ certDir, objFile, workspaces, nodeArgs = [], env }) {
  const args = [...nodeArgs, path.join(benchDir, 'raw-server.js'), certDir, objFile, '0', ...(workspaces ? [workspaces.sampleFile, workspaces.token] : [])];
  const child = trackChild(spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'], env: env ? { ...process.env, ...env } : process.env }));
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

/** The bare workspace server's token (a static one, checked on every request as kcpt checks its tokens). */
const BARE_TOKEN = 'bench-bare-workspaces';

/**
 * Starts the bare workspace server (bench/raw-server.js serving bench/lib/bare-workspaces.js) with kcpt's serving
 * certificate from `certDir` and the workspace sample `sampleFile`; returns the driver's view of it ({url, token,
 * shardToken, child}: one token for both), a client as the workspace benches give kcpt (`concurrency` + 4 sockets,
 * HTTP/2 unless `http1`), and stop().
 */
export async function startBareWorkspaces(certDir, sampleFile, { concurrency, http1 = false, nodeArgs, env }) {
  const objFile = path.join(path.dirname(sampleFile), 'bare-obj.json');
  writeFileSync(objFile, JSON.stringify({ metadata: { name: 'x' } }));
  const raw = await startRawServer({ certDir, objFile, workspaces: { sampleFile, token: BARE_TOKEN }, nodeArgs, env });
  const c = client(raw.url, { token: BARE_TOKEN, maxSockets: concurrency + 4, http2: !http1 });
  return {
    server: { url: raw.url, token: BARE_TOKEN, shardToken: BARE_TOKEN, child: raw.child },
    c,
    async stop() {
      c.close();
      await raw.stop();
    },
  };
}
