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
 *
 * A shard's index finds a user's workspaces from the clusters it hosts, but a workspace's Workspace object lives with
 * its parent, maybe on another shard: those come as references, resolved on the parent's shard by
 * workspace-index-join.ts (their revisions ride in the merged resourceVersion as `@<shard>`).
 */
import type http from 'node:http';
import { isWatchQuery } from '../machinery/query-params.js';
import { badRequest, serviceUnavailable } from '../machinery/status.js';
import { isReferenceMarker, REFERENCES_FIELD, REFERENCES_HEADER, referenceKey, type WorkspaceReference } from '../virtual/workspace-index-references.js';
import { collect, getJson, readEvents, send, sendStatus, withQuery, type WatchLine } from './index-requests.js';
import { ReferenceFollower, resolveReferences, type FanOutShard, type IndexRequest, type ReferenceResolution } from './workspace-index-join.js';

export type { FanOutShard, ReferenceResolution } from './workspace-index-join.js';

const RV_PREFIX = 'fanout.';
const SCOPE_HEADER = 'kcpt-workspace-index-scope';
const EVERY_WORKSPACE = 'every-workspace';
/** Request headers that reach each shard: who asks and what shape they want back. */
const FORWARDED = ['authorization', 'accept', 'user-agent'];

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

/**
 * Serves the merged index. With `resolution` (the proxy's own identity and the routing index), shards are asked for
 * references to the reachable workspaces stored elsewhere, and those are read from their parents' shards.
 */
export async function serveWorkspaceIndex(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  shards: readonly FanOutShard[],
  path: string,
  query: string,
  resolution?: ReferenceResolution,
): Promise<void> {
  req.resume();
  const params = new URLSearchParams(query.startsWith('?') ? query.slice(1) : query);
  const rv = params.get('resourceVersion') ?? '';
  const perShard = decodeResourceVersion(rv);
  const request: IndexRequest = { path, accept: header(req, 'accept'), userAgent: header(req, 'user-agent'), params };
  if (isWatchQuery(params)) return watch(req, res, shards, request, perShard, resolution);
  if (perShard) params.delete('resourceVersion');
  const headers = forwardedHeaders(req, resolution);
  const answers = await Promise.all(shards.map(async (s) => ({ shard: s.name, ...(await getJson(s.backend, `${path}${withQuery(params)}`, headers)) })));
  const refusal = answers.find((a) => a.status !== 200);
  if (refusal) return send(res, refusal.status, refusal.body);
  const references = answers.flatMap((a) => takeReferences(a.body));
  const resolved = resolution && references.length > 0 ? await resolveReferences(resolution, request, references) : { bodies: [], rvs: {} };
  const rvs = Object.fromEntries(answers.map((a) => [a.shard, String(a.body.metadata?.resourceVersion ?? '')]));
  const merged = mergeLists([...answers.map((a) => a.body), ...resolved.bodies]);
  (merged.metadata ??= {}).resourceVersion = encodeResourceVersion({ ...rvs, ...resolved.rvs });
  const scope: Record<string, string> = {};
  if (answers.every((a) => a.headers[SCOPE_HEADER] === EVERY_WORKSPACE)) scope[SCOPE_HEADER] = EVERY_WORKSPACE;
  send(res, 200, merged, scope);
}

/** A shard's references, taken out of its list (the client never sees them), one per workspace. */
export function takeReferences(body: Record<string, any>): WorkspaceReference[] {
  const refs = body[REFERENCES_FIELD] as unknown;
  delete body[REFERENCES_FIELD];
  if (!Array.isArray(refs)) return [];
  const seen = new Set<string>();
  return refs.filter((r): r is WorkspaceReference => {
    if (typeof r?.parent !== 'string' || typeof r?.name !== 'string' || seen.has(referenceKey(r))) return false;
    seen.add(referenceKey(r));
    return true;
  });
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
  request: IndexRequest,
  perShard: Record<string, string> | undefined,
  resolution: ReferenceResolution | undefined,
): Promise<void> {
  const latest: Record<string, string> = { ...perShard };
  const upstreams: http.ClientRequest[] = [];
  let ended = false;
  let follower: ReferenceFollower | undefined;
  const end = () => {
    if (ended) return;
    ended = true;
    for (const u of upstreams) u.destroy();
    follower?.close();
    if (!res.writableEnded) res.end();
  };
  const write = (event: WatchLine) => {
    if (ended) return;
    res.write(`${JSON.stringify(event)}\n`);
    if (event.type === 'ERROR') end();
  };
  if (resolution) {
    follower = new ReferenceFollower(resolution, request, latest, {
      emit: (type, object) => {
        (object.metadata ??= {}).resourceVersion = encodeResourceVersion(latest);
        write({ type, object });
      },
      fail: (event) => (event ? write(event) : end()),
    });
  }
  res.on('close', end);
  return new Promise<void>((resolve) => {
    res.on('close', () => resolve());
    for (const shard of shards) {
      const shardParams = new URLSearchParams(request.params);
      if (perShard) {
        if (perShard[shard.name] !== undefined) shardParams.set('resourceVersion', perShard[shard.name]!);
        else shardParams.delete('resourceVersion');
      }
      const upstream = shard.backend.request('GET', `${request.path}${withQuery(shardParams)}`, forwardedHeaders(req, resolution), (answer) => {
        if (ended) return answer.resume();
        if (answer.statusCode !== 200) {
          // Before anything was streamed, the refusal is the answer; later, the watch just ends.
          if (!res.headersSent) return void collect(answer).then((body) => (send(res, answer.statusCode ?? 503, body), end()));
          answer.resume();
          return end();
        }
        // The first shard to accept opens the merged stream; the others' events join it.
        if (!res.headersSent) res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-cache, private' }).flushHeaders();
        relayEvents(answer, shard.name, latest, write, follower, end);
      });
      upstream.on('error', () => {
        if (!res.headersSent) sendStatus(res, serviceUnavailable('Not available.'));
        end();
      });
      upstreams.push(upstream);
    }
  });
}

/**
 * Re-emits one shard's watch events, each object's resourceVersion replaced by the merged one. Its references go
 * to the follower instead, in order: the events after one wait until the referenced Workspace was shown, and the
 * shard's part of the merged resourceVersion moves past the reference only then.
 */
function relayEvents(
  answer: http.IncomingMessage,
  shard: string,
  latest: Record<string, string>,
  write: (event: WatchLine) => void,
  follower: ReferenceFollower | undefined,
  end: () => void,
): void {
  let queue = Promise.resolve();
  const relay = async (event: WatchLine) => {
    const object = event.object;
    const meta = object?.metadata;
    if (event.type !== 'ERROR' && meta && typeof meta.resourceVersion === 'string' && meta.resourceVersion) {
      if (isReferenceMarker(object)) {
        if (event.type === 'DELETED') follower?.removed(object);
        else await follower?.added(object, object.resumed === true);
        latest[shard] = meta.resourceVersion;
        return;
      }
      latest[shard] = meta.resourceVersion;
      meta.resourceVersion = encodeResourceVersion(latest);
    }
    write(event);
  };
  readEvents(
    answer,
    (event) => {
      queue = queue.then(() => relay(event)).catch(end);
    },
    () => {
      queue = queue.then(end);
    },
  );
}

function header(req: http.IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return typeof value === 'string' ? value : undefined;
}

function forwardedHeaders(req: http.IncomingMessage, resolution: ReferenceResolution | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of FORWARDED) {
    const value = header(req, name);
    if (value !== undefined) out[name] = value;
  }
  if (resolution) out[REFERENCES_HEADER] = 'true';
  return out;
}
