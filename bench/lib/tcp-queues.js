// Where a stream's bytes wait, seen from the kernel, for any server: /proc/net/tcp's queues of the established
// IPv4 connections to one port, sampled while a benchmark runs. On loopback a server's socket holds unsent bytes
// (tx_queue) only once its reader's receive window is full, so
//   - the readers' rx_queue: delivered to the watchers' machine, not yet read by their process (the client is behind);
//   - the server's tx_queue: written by the server, held because the readers stopped taking it;
//   - neither: what waits is inside the server's process (its event loop, or node's buffer of a socket's writes).
import { readFileSync } from 'node:fs';

/** The bytes queued now on the server's side and on the readers' side of every connection to `port`. */
export function tcpQueues(port) {
  const hex = port.toString(16).toUpperCase().padStart(4, '0');
  const q = { serverTx: 0, serverRx: 0, clientTx: 0, clientRx: 0 };
  const lines = readFileSync('/proc/net/tcp', 'latin1').split('\n');
  for (let i = 1; i < lines.length; i++) {
    const f = lines[i].trim().split(/\s+/);
    if (f.length < 5 || f[3] !== '01') continue; // established only
    const [tx, rx] = f[4].split(':').map((x) => parseInt(x, 16));
    if (f[1].endsWith(`:${hex}`)) {
      q.serverTx += tx;
      q.serverRx += rx;
    } else if (f[2].endsWith(`:${hex}`)) {
      q.clientTx += tx;
      q.clientRx += rx;
    }
  }
  return q;
}

/** Samples tcpQueues(port) every `everyMs` until stop(), which returns each queue's mean and max (bytes). */
export function sampleTcpQueues(port, everyMs = 100) {
  const samples = [];
  const timer = setInterval(() => samples.push(tcpQueues(port)), everyMs);
  return {
    stop() {
      clearInterval(timer);
      const out = {};
      for (const k of ['serverTx', 'serverRx', 'clientTx', 'clientRx']) {
        const v = samples.map((s) => s[k]);
        out[k] = { mean: v.length ? v.reduce((a, b) => a + b, 0) / v.length : 0, max: v.length ? Math.max(...v) : 0 };
      }
      out.samples = samples.length;
      return out;
    },
  };
}
