/**
 * kcpt's workspace index virtual workspace (`/services/workspaces/all/clusters/*`, src/engine/virtual/workspace-index.ts)
 * through the front-proxy of several shards. Each shard's index holds the Workspaces that shard stores, so the proxy
 * asks every shard with the caller's own Authorization and merges the answers:
 *
 * - LIST (JSON or a server-printed Table): items (rows) of every shard, sorted by workspace path; the scope header
 *   `kcpt-workspace-index-scope: every-workspace` only when every shard said so;
 * - WATCH: one watch per shard, their events interleaved as they arrive.
 *
 * A resourceVersion names a revision of one shard's store, so the merged ones carry every shard's:
 * `fanout.<base64url of {"<shard>":"<rv>",…}>`. A LIST's resourceVersion, or any watch event's, resumes a watch on
 * every shard where it left off; a shard missing from it (joined since) is watched from its current state. A shard's
 * 410 Expired ends the whole watch with that ERROR event (the client lists again, as with one shard).
 *
 * One shard's refusal (401, 403, 400) is the answer: a merged list must not silently miss a shard's workspaces. An
 * unreachable shard is kcp's 503 "Not available.".
 */
import type http from 'node:http';
import { badRequest, serviceUnavailable, StatusError } from '../machinery/status.js';
import type { Backend } from './forwarder.js';

export interface FanOutShard {
  name: string;
  backend: Backend;
}

const RV_PREFIX = 'fanout.';
const SCOPE_HEADER = 'kcpt-workspace-index-scope';
const EVERY_WORKSPACE = 'every-workspace';
/** Request headers that reach each shard: who asks and what shape they want back. */
const FORWARDED = ['authorization', 'accept', 'user-agent'];

interface Answer {
  shard: string;
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Record<string, any>;
}

/** `{shard: rv}` from a merged resourceVersion; undefined for a plain one (`''`, `'0'`), which goes to every shard. */
export function decodeResourceVersion(rv: string): Record<string, string> | undefined {
  if (!rv.startsWith(RV_PREFIX)) return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(rv.slice(RV_PREFIX.length), 'base64url').toString('utf8')) as unknown;
    if (parsed && typeof parsed === 'object' && Object.values(parsed).every((v) => typeof v === 'string')) return parsed as Record<string, string>;
  } catch {
    // fall through
  }
  throw badRequest(`resourceVersion ${JSON.stringify(rv)} was not issued by this front-proxy`);
}

export function encodeResourceVersion(byShard: Record<string, string>): string {
  return RV_PREFIX + Buffer.from(JSON.stringify(byShard)).toString('base64url');
}

export async function serveWorkspaceIndex(req: http.IncomingMessage, res: http.ServerResponse, shards: readonly FanOutShard[], path: string, query: string): Promise<void> {
  req.resume();
  const params = new URLSearchParams(query.startsWith('?') ? query.slice(1) : query);
  const rv = params.get('resourceVersion') ?? '';
  const perShard = decodeResourceVersion(rv);
  if (params.get('watch') === 'true' || params.get('watch') === '1') return watch(req, res, shards, path, params, perShard);
  if (perShard) params.delete('resourceVersion');
  const answers = await Promise.all(shards.map((s) => fetchJson(s, req, `${path}${withQuery(params)}`)));
  const refusal = answers.find((a) => a.status !== 200);
  if (refusal) return send(res, refusal.status, refusal.body);
  const rvs = Object.fromEntries(answers.map((a) => [a.shard, String(a.body.metadata?.resourceVersion ?? '')]));
  const merged = mergeLists(answers.map((a) => a.body));
  (merged.metadata ??= {}).resourceVersion = encodeResourceVersion(rvs);
  const headers: Record<string, string> = {};
  if (answers.every((a) => a.headers[SCOPE_HEADER] === EVERY_WORKSPACE)) headers[SCOPE_HEADER] = EVERY_WORKSPACE;
  send(res, 200, merged, headers);
}

/** Items, or a Table's rows, of every shard in one list ordered by workspace path, then name. */
export function mergeLists(bodies: Record<string, any>[]): Record<string, any> {
  const first = { ...bodies[0]! };
  const table = first.kind === 'Table';
  const key = (entry: Record<string, any>) => {
    const meta = (table ? entry.object?.metadata : entry.metadata) ?? {};
    return `${meta.annotations?.['kcp.io/path'] ?? ''}\u0000${meta.name ?? ''}`;
  };
  const entries = bodies.flatMap((b) => (table ? b.rows : b.items) ?? []) as Record<string, any>[];
  entries.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  if (table) first.rows = entries;
  else first.items = entries;
  first.metadata = { ...first.metadata };
  delete first.metadata.continue;
  return first;
}

function watch(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  shards: readonly FanOutShard[],
  path: string,
  params: URLSearchParams,
  perShard: Record<string, string> | undefined,
): Promise<void> {
  const latest: Record<string, string> = { ...perShard };
  const upstreams: http.ClientRequest[] = [];
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    for (const u of upstreams) u.destroy();
    if (!res.writableEnded) res.end();
  };
  res.on('close', end);
  return new Promise<void>((resolve) => {
    res.on('close', () => resolve());
    for (const shard of shards) {
      const shardParams = new URLSearchParams(params);
      if (perShard) {
        if (perShard[shard.name] !== undefined) shardParams.set('resourceVersion', perShard[shard.name]!);
        else shardParams.delete('resourceVersion');
      }
      const upstream = shard.backend.request('GET', `${path}${withQuery(shardParams)}`, forwardedHeaders(req), (answer) => {
        if (ended) return answer.resume();
        if (answer.statusCode !== 200) {
          // Before anything was streamed, the refusal is the answer; later, the watch just ends.
          if (!res.headersSent) return collect(answer).then((body) => (send(res, answer.statusCode ?? 503, body), end()));
          answer.resume();
          return end();
        }
        // The first shard to accept opens the merged stream; the others' events join it.
        if (!res.headersSent) res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-cache, private' }).flushHeaders();
        relayEvents(answer, shard.name, latest, res, end);
      });
      upstream.on('error', () => {
        if (!res.headersSent) sendStatus(res, serviceUnavailable('Not available.'));
        end();
      });
      upstreams.push(upstream);
    }
  });
}

/** Re-emits one shard's watch events, each object's resourceVersion replaced by the merged one. */
function relayEvents(answer: http.IncomingMessage, shard: string, latest: Record<string, string>, res: http.ServerResponse, end: () => void): void {
  let pending = '';
  answer.setEncoding('utf8');
  answer.on('data', (chunk: string) => {
    pending += chunk;
    let newline;
    while ((newline = pending.indexOf('\n')) !== -1) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      if (!line.trim()) continue;
      const event = JSON.parse(line) as { type: string; object?: Record<string, any> };
      const meta = event.object?.metadata;
      if (event.type !== 'ERROR' && meta && typeof meta.resourceVersion === 'string' && meta.resourceVersion) {
        latest[shard] = meta.resourceVersion;
        meta.resourceVersion = encodeResourceVersion(latest);
      }
      res.write(`${JSON.stringify(event)}\n`);
      if (event.type === 'ERROR') return end();
    }
  });
  answer.on('end', end);
  answer.on('error', end);
}

function fetchJson(shard: FanOutShard, req: http.IncomingMessage, path: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const upstream = shard.backend.request('GET', path, forwardedHeaders(req), (answer) => {
      collect(answer).then((body) => resolve({ shard: shard.name, status: answer.statusCode ?? 503, headers: answer.headers, body }), reject);
    });
    upstream.on('error', () => reject(serviceUnavailable('Not available.')));
  });
}

async function collect(answer: http.IncomingMessage): Promise<Record<string, any>> {
  const chunks: Buffer[] = [];
  for await (const chunk of answer) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return JSON.parse(text) as Record<string, any>;
  } catch {
    return new StatusError(answer.statusCode ?? 503, 'InternalError', text.trim() || 'no answer', {}).toStatus() as unknown as Record<string, any>;
  }
}

function forwardedHeaders(req: http.IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of FORWARDED) {
    const value = req.headers[name];
    if (typeof value === 'string') out[name] = value;
  }
  return out;
}

function withQuery(params: URLSearchParams): string {
  const text = params.toString();
  return text ? `?${text}` : '';
}

function send(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
}

function sendStatus(res: http.ServerResponse, err: StatusError): void {
  send(res, err.code, err.toStatus());
}
