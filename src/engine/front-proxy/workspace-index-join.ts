/**
 * The front-proxy's half of the workspace index's join across shards (src/engine/virtual/workspace-index-references.ts):
 * a shard that lets the user into a cluster whose Workspace object is stored with its parent on another shard answers
 * a reference; the proxy reads that Workspace from the parent's shard with its own identity, through that shard's
 * index restricted to it (`kcpt-workspace-index-only`), so it arrives in the client's shape (JSON or Table rows,
 * its path annotation set) and filtered by the client's selectors. The shard hosting the cluster stays the judge of
 * access: the proxy shows a referenced Workspace only while that shard keeps the reference.
 *
 * - LIST: the referenced Workspaces join the merged list; the list's resourceVersion records, per parent shard,
 *   the revision they were read at (`@<shard>`).
 * - WATCH: a reference ADDED is read (and shown ADDED) then followed by one watch on the parent's shard for as long
 *   as the reference stands; its DELETED shows the Workspace DELETED. A reference a resumed watch re-announces is
 *   followed from the `@<shard>` revision of the resourceVersion resumed from, so what changed meanwhile arrives.
 *
 * Nothing is kept between requests: a reference costs a read, and a watch while a watch runs.
 */
import type http from 'node:http';
import { serviceUnavailable } from '../machinery/status.js';
import { ONLY_HEADER, onlyHeaderValue, referenceKey, type WorkspaceReference } from '../virtual/workspace-index-references.js';
import type { Backend } from './forwarder.js';
import { collect, getJson, readEvents, withQuery, type WatchLine } from './index-requests.js';

export interface FanOutShard {
  name: string;
  backend: Backend;
}

export interface ReferenceResolution {
  /** The proxy's own `Authorization` (its root kubeconfig's identity, which enters every workspace). */
  authorization: string;
  /** The shard hosting a logical cluster (so storing its child Workspaces), as the routing index knows it. */
  shardOf(cluster: string): FanOutShard | undefined;
}

/** What the client asked for, carried to the parent shards' indexes. */
export interface IndexRequest {
  path: string;
  accept?: string;
  userAgent?: string;
  params: URLSearchParams;
}

/** Merged resourceVersion key of the revision a parent shard's referenced Workspaces were read at. */
export function referencesRvKey(shard: string): string {
  return `@${shard}`;
}

/** How long a reference waits for the routing index to learn its parent's shard (it trails a change by < 1 s). */
const SHARD_PATIENCE_MS = 2_000;
/** Workspaces named in one request (the names travel in a header). */
const BATCH = 100;
/** Client parameters a restricted read of referenced Workspaces keeps: what to show and how. */
const KEPT_PARAMS = ['labelSelector', 'fieldSelector', 'includeObject', 'timeoutSeconds'];

async function shardFor(resolution: ReferenceResolution, cluster: string): Promise<FanOutShard | undefined> {
  const deadline = Date.now() + SHARD_PATIENCE_MS;
  for (;;) {
    const shard = resolution.shardOf(cluster);
    if (shard || Date.now() >= deadline) return shard;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function headersFor(resolution: ReferenceResolution, request: IndexRequest, refs: readonly WorkspaceReference[]): Record<string, string> {
  return {
    authorization: resolution.authorization,
    ...(request.accept ? { accept: request.accept } : {}),
    ...(request.userAgent ? { 'user-agent': request.userAgent } : {}),
    [ONLY_HEADER]: onlyHeaderValue(refs),
  };
}

function restrictedPath(request: IndexRequest, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams();
  for (const name of KEPT_PARAMS) {
    const value = request.params.get(name);
    if (value !== null && (name !== 'timeoutSeconds' || extra.watch)) params.set(name, value);
  }
  for (const [name, value] of Object.entries(extra)) params.set(name, value);
  return `${request.path}${withQuery(params)}`;
}

/** One read of some referenced Workspaces on their parents' shard: a list in the client's shape. */
async function readReferenced(resolution: ReferenceResolution, request: IndexRequest, shard: FanOutShard, refs: readonly WorkspaceReference[]) {
  const answer = await getJson(shard.backend, restrictedPath(request), headersFor(resolution, request, refs));
  // The proxy's identity enters everywhere: anything but the list means the parent's shard cannot answer now.
  if (answer.status !== 200) throw serviceUnavailable('Not available.');
  return answer.body;
}

/** LIST: the referenced Workspaces as lists to merge, and the `@<shard>` revisions they were read at. */
export async function resolveReferences(
  resolution: ReferenceResolution,
  request: IndexRequest,
  refs: readonly WorkspaceReference[],
): Promise<{ bodies: Record<string, any>[]; rvs: Record<string, string> }> {
  // By shard name: one read per parent shard (and per BATCH workspaces), whatever object names the shard.
  const byShard = new Map<string, { shard: FanOutShard; group: WorkspaceReference[] }>();
  for (const ref of refs) {
    const shard = await shardFor(resolution, ref.parent);
    // A parent no shard hosts any more is being deleted with its children: nothing to show.
    if (!shard) continue;
    const entry = byShard.get(shard.name) ?? { shard, group: [] };
    byShard.set(shard.name, entry);
    entry.group.push(ref);
  }
  const reads = [...byShard.values()].flatMap(({ shard, group }) => {
    const batches = [];
    for (let at = 0; at < group.length; at += BATCH) batches.push(group.slice(at, at + BATCH));
    return batches.map(async (batch) => ({ shard: shard.name, body: await readReferenced(resolution, request, shard, batch) }));
  });
  const bodies: Record<string, any>[] = [];
  const rvs: Record<string, string> = {};
  for (const { shard, body } of await Promise.all(reads)) {
    bodies.push(body);
    const rv = String(body.metadata?.resourceVersion ?? '');
    const key = referencesRvKey(shard);
    // Several batches: the oldest revision is where following them all misses nothing.
    if (rv && (rvs[key] === undefined || Number(rv) < Number(rvs[key]))) rvs[key] = rv;
  }
  return { bodies, rvs };
}

/** A list's entries as watch event objects: each item, or each row in a Table of its own. */
export function eventObjects(list: Record<string, any>): Record<string, any>[] {
  if (list.kind === 'Table') {
    const { rows, ...table } = list;
    return ((rows ?? []) as unknown[]).map((row) => ({ ...table, metadata: { ...table.metadata }, rows: [row] }));
  }
  const kind = typeof list.kind === 'string' ? list.kind.replace(/List$/, '') : undefined;
  return ((list.items ?? []) as Record<string, any>[]).map((item) => ({ ...(kind ? { kind } : {}), ...(list.apiVersion ? { apiVersion: list.apiVersion } : {}), ...item }));
}

export interface FollowerOutput {
  /** Writes one event to the client (the object's resourceVersion set to the merged one). */
  emit(type: string, object: Record<string, any>): void;
  /** Ends the client's watch, after `event` (an ERROR) when given. */
  fail(event?: WatchLine): void;
}

interface Followed {
  /** What the client was last shown for it (to tell it DELETED when the reference goes). */
  last?: Record<string, any>;
  upstream?: http.ClientRequest;
}

/** WATCH: follows the referenced Workspaces of one client watch while their references stand. */
export class ReferenceFollower {
  private readonly followed = new Map<string, Followed>();
  private closed = false;

  constructor(
    private readonly resolution: ReferenceResolution,
    private readonly request: IndexRequest,
    /** The merged resourceVersion's parts, shared with the watch (this records `@<shard>` in it). */
    private readonly latest: Record<string, string>,
    private readonly out: FollowerOutput,
  ) {}

  /** A reference became reachable (or, `resumed`, was already shown before the watch resumed). */
  async added(ref: WorkspaceReference, resumed: boolean): Promise<void> {
    const key = referenceKey(ref);
    if (this.closed || this.followed.has(key)) return;
    const followed: Followed = {};
    this.followed.set(key, followed);
    const shard = await shardFor(this.resolution, ref.parent);
    if (!shard || this.followed.get(key) !== followed) return;
    const rvKey = referencesRvKey(shard.name);
    let from = resumed ? this.latest[rvKey] : undefined;
    if (from === undefined) {
      let list;
      try {
        list = await readReferenced(this.resolution, this.request, shard, [ref]);
      } catch {
        return this.out.fail();
      }
      if (this.followed.get(key) !== followed) return;
      for (const object of eventObjects(list)) {
        followed.last = object;
        this.out.emit('ADDED', object);
      }
      from = String(list.metadata?.resourceVersion ?? '');
      this.latest[rvKey] ??= from;
    }
    this.watch(shard, ref, followed, from);
  }

  /** A reference stopped being reachable: the client sees its Workspace DELETED. */
  removed(ref: WorkspaceReference): void {
    const key = referenceKey(ref);
    const followed = this.followed.get(key);
    if (!followed) return;
    this.followed.delete(key);
    followed.upstream?.destroy();
    if (followed.last) this.out.emit('DELETED', followed.last);
  }

  close(): void {
    this.closed = true;
    for (const followed of this.followed.values()) followed.upstream?.destroy();
    this.followed.clear();
  }

  private watch(shard: FanOutShard, ref: WorkspaceReference, followed: Followed, from: string): void {
    if (this.closed) return;
    const path = restrictedPath(this.request, { watch: 'true', ...(from ? { resourceVersion: from } : {}) });
    const current = () => !this.closed && this.followed.get(referenceKey(ref)) === followed;
    followed.upstream = shard.backend.request('GET', path, headersFor(this.resolution, this.request, [ref]), (answer) => {
      if (!current()) return answer.resume();
      if (answer.statusCode !== 200) {
        void collect(answer).then((status) => current() && this.out.fail({ type: 'ERROR', object: status }));
        return;
      }
      readEvents(
        answer,
        (event) => {
          if (!current() || event.type === 'BOOKMARK' || !event.object) return;
          if (event.type === 'ERROR') return this.out.fail(event);
          followed.last = event.type === 'DELETED' ? undefined : event.object;
          this.out.emit(event.type, event.object);
        },
        // The parent's shard ended its watch (timeout, restart): the client's ends too and resumes.
        () => current() && this.out.fail(),
      );
    });
    followed.upstream.on('error', () => current() && this.out.fail());
  }
}
