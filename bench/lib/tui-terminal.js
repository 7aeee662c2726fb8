// `kcpt tui` opened in a real terminal (a tmux pane, 160x40) as a user starts it: the wall time from spawning the
// command to the first screen that shows `expect` (a row of the top level), and the CPU (user + sys) the process
// used by then, read from /proc once the row is on screen. Resolves { wallMs, cpuMs }.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';

const ticksPerSecond = 100; // USER_HZ on Linux

export async function openInTmux({ cwd, env, args, expect, timeoutMs = 60_000 }) {
  const socket = `kcpt-bench-tui-${randomBytes(4).toString('hex')}`;
  const tmux = (...a) => execFileSync('tmux', ['-L', socket, ...a], { encoding: 'utf8' });
  const vars = Object.entries(env).map(([k, v]) => `${k}='${String(v).replace(/'/g, `'\\''`)}'`).join(' ');
  const command = `cd '${cwd}' && exec env -u CI ${vars} TERM=xterm-256color ${process.execPath} bin/run.js ${args.join(' ')}`;
  const t0 = performance.now();
  tmux('new-session', '-d', '-s', 'b', '-x', '160', '-y', '40', command);
  try {
    const pid = Number(tmux('display-message', '-p', '-t', 'b', '#{pane_pid}').trim());
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (expect.test(tmux('capture-pane', '-p', '-t', 'b'))) break;
      if (Date.now() > deadline) throw new Error(`kcpt ${args.join(' ')}: ${expect} not on screen after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 5));
    }
    const wallMs = performance.now() - t0;
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const cpuMs = ((Number(fields[11]) + Number(fields[12])) / ticksPerSecond) * 1000;
    return { wallMs, cpuMs };
  } finally {
    tmux('kill-server');
  }
}
