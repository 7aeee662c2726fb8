/**
 * A keep-alive HTTPS client for the reliability suites: the admin kubeconfig's CA and kcp-admin token, a bounded
 * socket pool, and a per-request deadline so a hang is reported as a failure instead of stalling the run.
 */
import { Agent, request } from 'node:https';
import { adminToken, readKubeconfig } from '../helpers/http.js';
import type { TestServer } from '../helpers/server.js';

export interface RawRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export class HungRequestError extends Error {}

export interface KeepAliveClient {
  /** `ownSocket`: a connection of its own, for a request the server may answer by closing it (a body over the limit). */
  send(req: RawRequest, timeoutMs?: number, ownSocket?: boolean): Promise<RawAnswer>;
  /** Opens a streaming GET, reads its status and first chunk (or waits `holdMs`), then drops the socket. */
  openAndDrop(path: string, holdMs: number): Promise<{ status: number; firstChunk: string }>;
  close(): void;
}

export function keepAliveClient(server: TestServer, opts: { sockets?: number; token?: string } = {}): KeepAliveClient {
  const config = readKubeconfig(server);
  const caData = config.clusters.find((c) => c.name === 'root')?.cluster['certificate-authority-data'];
  const token = opts.token ?? adminToken(server.kubeconfig);
  const agent = new Agent({
    keepAlive: true,
    maxSockets: opts.sockets ?? 8,
    ca: caData ? Buffer.from(caData, 'base64') : undefined,
  });
  const auth = (headers: Record<string, string> | undefined): Record<string, string> => {
    const out: Record<string, string> = { ...headers };
    if (token && out.authorization === undefined) out.authorization = `Bearer ${token}`;
    return out;
  };

  return {
    send(req, timeoutMs = 15_000, ownSocket = false) {
      return new Promise((resolve, reject) => {
        const headers = auth(req.headers);
        // Node frames a DELETE/OPTIONS body only when told its length; unframed, it would poison the kept-alive socket.
        if (req.body !== undefined) headers['content-length'] = String(Buffer.byteLength(req.body));
        // The path goes out byte for byte: a WHATWG URL would resolve `%2e%2e` and `.` segments before sending.
        const r = request({ hostname: '127.0.0.1', port: server.port, path: req.path, method: req.method, headers, ...(ownSocket ? { agent: false, ca: agent.options.ca } : { agent }) }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            clearTimeout(timer);
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') });
          });
          res.on('error', (err) => {
            clearTimeout(timer);
            reject(err);
          });
        });
        const timer = setTimeout(() => {
          r.destroy();
          reject(new HungRequestError(`no complete answer within ${timeoutMs} ms: ${req.method} ${req.path.slice(0, 200)}`));
        }, timeoutMs);
        r.on('error', (err) => {
          clearTimeout(timer);
          reject(err);
        });
        if (req.body !== undefined) r.end(req.body);
        else r.end();
      });
    },
    openAndDrop(path, holdMs) {
      return new Promise((resolve, reject) => {
        // A socket of its own: dropping it must not poison the keep-alive pool.
        const r = request({ hostname: '127.0.0.1', port: server.port, path, method: 'GET', headers: auth(undefined), ca: agent.options.ca, agent: false }, (res) => {
          let firstChunk = '';
          const finish = () => {
            clearTimeout(timer);
            r.destroy();
            resolve({ status: res.statusCode ?? 0, firstChunk });
          };
          const timer = setTimeout(finish, holdMs);
          res.once('data', (c: Buffer) => {
            firstChunk = c.toString('utf8');
            finish();
          });
          res.on('end', finish);
          res.on('error', () => undefined);
        });
        r.on('error', (err) => {
          if ((err as NodeJS.ErrnoException).code === 'ECONNRESET' || r.destroyed) return;
          reject(err);
        });
        r.setTimeout(holdMs + 10_000, () => r.destroy(new HungRequestError(`no headers for watch ${path}`)));
        r.end();
      });
    },
    close() {
      agent.destroy();
    },
  };
}
