/**
 * Direct HTTPS requests to the server with the admin kubeconfig's CA and credentials, for the few checks that
 * kubectl cannot make (request headers such as the aggregated-discovery Accept, response Content-Type).
 */
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { parse } from 'yaml';
import type { TestServer } from './server.js';

interface KubeconfigFile {
  clusters: { name: string; cluster: { server: string; 'certificate-authority-data'?: string } }[];
  users: {
    name: string;
    user: { token?: string; 'client-certificate-data'?: string; 'client-key-data'?: string };
  }[];
  contexts: { name: string; context: { cluster: string; user: string } }[];
  'current-context': string;
}

export function readKubeconfig(server: TestServer): KubeconfigFile {
  return parse(readFileSync(server.kubeconfig, 'utf8')) as KubeconfigFile;
}

/** The bearer token of `user` in a kubeconfig file: by default kcp-admin's in a server's or proxy's admin.kubeconfig. */
export function adminToken(kubeconfig: string, user = 'kcp-admin'): string {
  const file = parse(readFileSync(kubeconfig, 'utf8')) as KubeconfigFile;
  const token = file.users.find((u) => u.name === user)?.user.token;
  if (!token) throw new Error(`no ${user} token in ${kubeconfig}`);
  return token;
}

export interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** The body's bytes (protobuf answers). */
  raw: Buffer;
  json<T = any>(): T;
}

export interface HttpOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** kubeconfig user: kcp-admin (default) or shard-admin. */
  user?: string;
  /** A bearer token to send instead of the kubeconfig user's credentials (token-file users, service accounts). */
  token?: string;
}

export function apiRequest(server: TestServer, path: string, opts: HttpOptions = {}): Promise<HttpAnswer> {
  const config = readKubeconfig(server);
  const userName = opts.user ?? 'kcp-admin';
  const user = config.users.find((u) => u.name === userName)?.user;
  if (!user) throw new Error(`user ${userName} is not in ${server.kubeconfig}`);
  const caData = config.clusters.find((c) => c.name === 'root')?.cluster['certificate-authority-data'];
  const headers: Record<string, string> = { ...opts.headers };
  const token = opts.token ?? user.token;
  if (token) headers.authorization = `Bearer ${token}`;
  const url = new URL(path, server.url);
  return new Promise((resolveAnswer, reject) => {
    const req = request(
      url,
      {
        method: opts.method ?? 'GET',
        // The path as given, byte for byte: the URL parser would resolve `%2e%2e` segments before sending. A full URL
        // (another shard's, or its virtual workspaces') is sent by its path.
        path: /^https?:\/\//.test(path) ? `${url.pathname}${url.search}` : path,
        headers,
        ca: caData ? Buffer.from(caData, 'base64') : undefined,
        cert: !opts.token && user['client-certificate-data'] ? Buffer.from(user['client-certificate-data'], 'base64') : undefined,
        key: !opts.token && user['client-key-data'] ? Buffer.from(user['client-key-data'], 'base64') : undefined,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const raw = Buffer.concat(chunks);
          const body = raw.toString('utf8');
          resolveAnswer({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body,
            raw,
            json: () => JSON.parse(body),
          });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.setTimeout(15_000, () => req.destroy(new Error(`timeout: ${opts.method ?? 'GET'} ${path}`)));
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

export interface WatchStream {
  status: number;
  /** Parsed JSON lines so far. */
  events: { type: string; object: any }[];
  /** Resolves when the server ends the response. */
  ended: Promise<void>;
  hasEnded(): boolean;
  close(): void;
}

/** Opens a watch (or any chunked JSON-lines answer) and collects its events as they arrive. */
export function openWatch(server: TestServer, path: string, opts: HttpOptions = {}): Promise<WatchStream> {
  const config = readKubeconfig(server);
  const user = config.users.find((u) => u.name === (opts.user ?? 'kcp-admin'))?.user;
  if (!user) throw new Error(`user ${opts.user} is not in ${server.kubeconfig}`);
  const caData = config.clusters.find((c) => c.name === 'root')?.cluster['certificate-authority-data'];
  const headers: Record<string, string> = { ...opts.headers };
  const token = opts.token ?? user.token;
  if (token) headers.authorization = `Bearer ${token}`;
  return new Promise((resolveStream, reject) => {
    const req = request(new URL(path, server.url), { headers, ca: caData ? Buffer.from(caData, 'base64') : undefined }, (res) => {
      const events: { type: string; object: any }[] = [];
      let buffered = '';
      let ended = false;
      const done = new Promise<void>((resolveEnd) => {
        const finish = () => {
          ended = true;
          resolveEnd();
        };
        res.on('end', finish);
        res.on('close', finish);
        res.on('error', finish);
      });
      res.on('data', (chunk: Buffer) => {
        buffered += chunk.toString('utf8');
        let newline = buffered.indexOf('\n');
        while (newline !== -1) {
          const line = buffered.slice(0, newline).trim();
          buffered = buffered.slice(newline + 1);
          if (line) events.push(JSON.parse(line));
          newline = buffered.indexOf('\n');
        }
      });
      resolveStream({
        status: res.statusCode ?? 0,
        events,
        ended: done,
        hasEnded: () => ended,
        close: () => req.destroy(),
      });
    });
    req.on('error', (err) => {
      if ((err as NodeJS.ErrnoException).code !== 'ECONNRESET') reject(err);
    });
    req.end();
  });
}
