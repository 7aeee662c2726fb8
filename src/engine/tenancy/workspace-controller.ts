/**
 * The workspace lifecycle for every logical cluster, from one queue: Scheduling → (Initializing →) Ready, and on
 * deletion Terminating/Deleting until the workspace's logical cluster and everything in it are gone. Driven by the
 * storage watch on Workspaces and LogicalClusters; after a restart, pending work is found through marker keys
 * written with the objects (workspaces not yet Ready, LogicalClusters being deleted), never by a scan.
 */
import { WorkQueue } from '../controllers/work-queue.js';
import { deletionMarkerPrefix, nowTimestamp } from '../registry/object-rules.js';
import { WriteBatch, type GenericStore } from '../registry/generic-store.js';
import type { IndexWriter } from '../registry/index-writer.js';
import { decodeStored } from '../registry/stored-object.js';
import type { KubeObject } from '../registry/types.js';
import { hasKeys, type KeyValue, type Store, type StoreEvent, type WatchHandle } from '../storage/store.js';
import { logicalClusterKey, logicalClustersPrefix, workspaceKey, workspacesPrefix } from './cluster-paths.js';
import type { ClusterContentDeleter } from './cluster-deletion.js';
import { LOGICAL_CLUSTER_FINALIZER, PHASE_LABEL, SHARD_ANNOTATION, logicalClusterLabels } from './names.js';
import type { ShardDirectory } from '../shards/shard-directory.js';
import { annotationsForPhase, type Workspace } from './workspace-resource.js';
import { condition, workspaceConditions, type TenancyTypes, type WorkspaceScheduler } from './workspace-scheduler.js';

const pendingPrefix = '/kcpt/pending/workspaces/';

/** What the workspace controller asks of the shard-to-shard side (shards/remote-workspaces.ts). */
export interface RemoteWorkspaceFollower {
  /** Mirrors the remote LogicalCluster's progress onto `ws`; how soon to look again. */
  follow(parent: string, ws: Workspace): Promise<{ requeueAfterMs: number } | undefined>;
  /** Deletes the remote LogicalCluster and lets `ws` go once it is gone; how soon to look again. */
  reconcileDeletion(parent: string, ws: Workspace): Promise<{ requeueAfterMs: number } | undefined>;
}

interface LogicalClusterView extends KubeObject {
  spec?: { owner?: { cluster?: string; name?: string; uid?: string } };
  status?: { phase?: string; initializers?: string[]; terminators?: string[]; conditions?: unknown[] };
}

/** LogicalCluster conditions a Workspace mirrors: how its default APIBindings are doing. */
const MIRRORED_CONDITIONS = new Set(['APIBindingsInitialized', 'APIBindingsReconciled']);

function mirroredConditions(conditions: unknown[] | undefined): Record<string, unknown>[] {
  return ((conditions ?? []) as Record<string, unknown>[]).filter((c) => MIRRORED_CONDITIONS.has(String(c.type)));
}

function otherConditions(lc: LogicalClusterView, type: string): unknown[] {
  return (lc.status?.conditions ?? []).filter((c) => (c as { type?: string }).type !== type);
}

/**
 * `lc` as kcp's LogicalCluster controller keeps it while initializers leave: Ready once none is left, initializer
 * labels of those left, the owner trimmed once Ready. Undefined when nothing changes.
 */
function logicalClusterProgress(lc: LogicalClusterView, initializers: string[], now: string): LogicalClusterView | undefined {
  const phase = initializers.length === 0 ? 'Ready' : 'Initializing';
  const status = phase === 'Ready' && lc.status?.phase !== 'Ready'
    ? { ...lc.status, phase: 'Ready', conditions: [...otherConditions(lc, 'WorkspaceInitialized'), condition('WorkspaceInitialized', 'True', now)] }
    : lc.status;
  const metadata = {
    ...lc.metadata,
    labels: logicalClusterLabels(lc.metadata?.labels, phase, initializers),
    annotations: annotationsForPhase(lc.metadata?.annotations, phase),
  };
  if (status === lc.status && JSON.stringify(metadata) === JSON.stringify(lc.metadata)) return undefined;
  return { ...lc, metadata, status };
}

/**
 * `ws` showing its LogicalCluster's progress (initializers left, the default-bindings conditions kcp mirrors): Ready
 * once none is left. Undefined when it already shows it.
 */
export function followLogicalCluster(ws: Workspace, initializers: string[], lcConditions: unknown[] | undefined, now: string): Workspace | undefined {
  const phase = initializers.length === 0 ? 'Ready' : 'Initializing';
  // What the default-bindings initializer reports on the LogicalCluster shows on the Workspace too, as in kcp.
  const mirrored = mirroredConditions(lcConditions);
  const unchanged =
    phase === ws.status?.phase &&
    JSON.stringify(ws.status?.initializers ?? []) === JSON.stringify(initializers) &&
    JSON.stringify(mirroredConditions(ws.status?.conditions)) === JSON.stringify(mirrored);
  if (unchanged) return undefined;
  const status = { ...ws.status, phase, conditions: [...workspaceConditions(initializers, now), ...mirrored], initializers };
  if (initializers.length === 0) delete (status as { initializers?: string[] }).initializers;
  const metadata = {
    ...ws.metadata,
    labels: { ...(ws.metadata?.labels ?? {}), [PHASE_LABEL]: phase },
    annotations: annotationsForPhase(ws.metadata?.annotations, phase),
  };
  return { ...ws, metadata, status };
}

const isReady = (ws: KubeObject) => (ws.status as { phase?: string } | undefined)?.phase === 'Ready';

/**
 * Marker keys for workspaces not Ready yet, written in the same commit as the workspace, so a restart resumes
 * them without listing every workspace. Workspaces being deleted need none: the generic store's deletion marker
 * (written with the deletionTimestamp) already names them.
 */
export function workspacePendingWriter(store: Store): IndexWriter {
  // A workspace being deleted is not Ready either (Deleting), but its deletion marker already names it.
  const needsMarker = (ws: KubeObject) => !isReady(ws) && !ws.metadata?.deletionTimestamp;
  return (key, before, after) => {
    if (!key.startsWith(workspacesPrefix)) return [];
    const now = after !== undefined && needsMarker(after);
    // A removed workspace takes its marker along (also one written by an older kcpt for a deletion).
    if (after !== undefined && before !== undefined && needsMarker(before) === now) return [];
    const marker = `${pendingPrefix}${key.slice(workspacesPrefix.length)}`;
    // A new workspace has no marker yet (a removed one took its marker along): no lookup.
    const exists = before !== undefined && store.get(marker) !== undefined;
    // Read only as they are now (at start-up and when a Shard changes): no event history needed.
    if (now && !exists) return [{ type: 'create', key: marker, value: '{}', unlogged: true }];
    if (!now && exists) return [{ type: 'delete', key: marker, unlogged: true }];
    return [];
  };
}

const hostedPendingPrefix = '/kcpt/pending/logicalclusters/';
const isScheduling = (lc: KubeObject | undefined) => lc !== undefined && ((lc.status as { phase?: string } | undefined)?.phase ?? 'Scheduling') === 'Scheduling';

/**
 * A marker for a LogicalCluster still Scheduling (one another shard created here, not yet brought up), so a restart
 * finds it without listing every LogicalCluster. The local scheduler writes its LogicalClusters Initializing or Ready.
 */
export function hostedPendingWriter(store: Store): IndexWriter {
  return (key, before, after) => {
    if (!key.startsWith(logicalClustersPrefix)) return [];
    const now = isScheduling(after);
    if (isScheduling(before) === now) return [];
    const marker = `${hostedPendingPrefix}${key.slice(logicalClustersPrefix.length).split('/')[0]}`;
    // Only at a transition (a LogicalCluster created Scheduling, or leaving it): one lookup then.
    const exists = store.get(marker) !== undefined;
    if (now && !exists) return [{ type: 'create', key: marker, value: '{}', unlogged: true }];
    if (!now && exists) return [{ type: 'delete', key: marker, unlogged: true }];
    return [];
  };
}

/**
 * Whether a workspace's own change gives the controller something to do. One being deleted that already shows
 * Deleting/Terminating waits for its LogicalCluster, whose events bring it back (terminators leaving, the cluster
 * gone); its MODIFIED event is the controller's own write.
 */
function needsLook(ws: Workspace): boolean {
  if (!ws.metadata?.deletionTimestamp) return !isReady(ws);
  return ws.status?.phase !== 'Deleting' && ws.status?.phase !== 'Terminating';
}

/**
 * The commit that first marks a LogicalCluster deleted: the workspace controller wrote its workspace's Deleting
 * phase in that very commit (or a user deleted the cluster of a live workspace, which shows nothing of it).
 */
function isDeletionMark(e: StoreEvent, lc: LogicalClusterView): boolean {
  return e.type === 'MODIFIED' && Boolean(lc.metadata?.deletionTimestamp) && e.prevValue !== undefined && !e.prevValue.includes('"deletionTimestamp"');
}

export interface WorkspaceControllerDeps {
  store: Store;
  generic: GenericStore;
  types: TenancyTypes;
  scheduler: WorkspaceScheduler;
  deleter: ClusterContentDeleter;
  /** This server's Shard name. */
  shardName: string;
  /** The deployment's Shards: a change may make a waiting workspace schedulable. */
  shards: ShardDirectory;
  /** Following workspaces whose LogicalCluster another shard hosts. */
  remote?: RemoteWorkspaceFollower;
  onError?(controller: string, key: string, err: unknown): void;
}

export class WorkspaceController {
  private readonly queue: WorkQueue;
  private watches: WatchHandle[] = [];

  constructor(private readonly deps: WorkspaceControllerDeps) {
    const group = deps.store.group?.bind(deps.store);
    this.queue = new WorkQueue('workspace', (key) => this.reconcile(key), deps.onError, group);
  }

  start(): void {
    const { store } = this.deps;
    const from = store.currentRevision();
    this.watches.push(
      store.watch(workspacesPrefix, from, (events) => {
        for (let i = 0; i < events.length; i++) {
          const e = events[i]!;
          // Created and scheduled in one commit (ADDED then MODIFIED): a reconcile reads the final state anyway, so
          // whether it needs one is the MODIFIED's question.
          if (e.type === 'ADDED' && events[i + 1]?.type === 'MODIFIED' && events[i + 1]!.key === e.key) continue;
          const rest = e.key.slice(workspacesPrefix.length);
          if (e.type === 'DELETED') {
            // A child workspace finally gone may be what its parent's deletion was waiting for (the last one is).
            this.queue.add(`lg|${rest.split('/')[0]}`);
            continue;
          }
          // A new workspace is always Scheduling (status comes from its defaults): no need to parse it.
          if (e.type === 'ADDED' || needsLook(JSON.parse(e.value) as Workspace)) this.queue.add(`ws|${rest}`);
        }
      }),
      store.watch(logicalClustersPrefix, from, (events) => {
        for (const e of events) {
          const cluster = e.key.slice(logicalClustersPrefix.length).split('/')[0]!;
          // A LogicalCluster appears in the commit that schedules its workspace, which has nothing left to do then;
          // one still Scheduling was created by another shard (or a privileged user) and is looked at.
          if (e.type === 'ADDED') {
            if (e.value.includes('"phase":"Scheduling"') || !e.value.includes('"phase":')) this.queue.add(`hc|${cluster}`);
            continue;
          }
          const lc = JSON.parse(e.value) as LogicalClusterView;
          // Its last initializer gone: a LogicalCluster whose workspace is elsewhere turns Ready here.
          if (lc.status?.phase === 'Initializing' && !lc.status.initializers?.length && e.type === 'MODIFIED') this.queue.add(`hc|${cluster}`);
          const owner = lc.spec?.owner;
          if (owner?.cluster && owner.name && !isDeletionMark(e, lc)) this.queue.add(`ws|${owner.cluster}/${owner.name}`);
          if (e.type !== 'DELETED' && lc.metadata?.deletionTimestamp) this.queue.add(`lc|${cluster}`);
        }
      }),
    );
    // A Shard changed (labels, the unschedulable annotation): workspaces waiting for one may fit now. Only the
    // workspaces not yet Ready are looked at, through their markers.
    this.deps.shards.onChange(() => {
      if (this.watches.length === 0) return;
      for (const kv of store.list(pendingPrefix).items) this.queue.add(`ws|${kv.key.slice(pendingPrefix.length)}`);
    });
    // Work a restart interrupted: LogicalClusters other shards created here, workspaces not Ready yet, and those
    // being deleted.
    for (const kv of store.list(hostedPendingPrefix).items) this.queue.add(`hc|${kv.key.slice(hostedPendingPrefix.length)}`);
    for (const kv of store.list(pendingPrefix).items) this.queue.add(`ws|${kv.key.slice(pendingPrefix.length)}`);
    const wsMarkers = deletionMarkerPrefix(this.deps.types.workspaces.storagePrefix);
    for (const kv of store.list(wsMarkers).items) this.queue.add(`ws|${kv.key.slice(wsMarkers.length)}`);
    const lcMarkers = deletionMarkerPrefix(this.deps.types.logicalClusters.storagePrefix);
    for (const kv of store.list(lcMarkers).items) this.queue.add(`lc|${kv.key.slice(lcMarkers.length).split('/')[0]}`);
  }

  stop(): void {
    for (const w of this.watches) w.cancel();
    this.watches = [];
    this.queue.stop();
  }

  idle(): Promise<void> {
    return this.queue.idle();
  }

  private reconcile(key: string) {
    const [kind, rest] = [key.slice(0, 2), key.slice(3)];
    if (kind === 'lc') return this.reconcileClusterDeletion(rest);
    if (kind === 'hc') return this.reconcileHosted(rest);
    // A child of a cluster being deleted is gone: while others are still going, they will call again.
    if (kind === 'lg') return this.hasWorkspaces(rest) ? undefined : this.reconcileClusterDeletion(rest);
    const slash = rest.indexOf('/');
    return this.reconcileWorkspace(rest.slice(0, slash), rest.slice(slash + 1));
  }

  private hasWorkspaces(cluster: string): boolean {
    return hasKeys(this.deps.store, `${workspacesPrefix}${cluster}/`);
  }

  private get(key: string): KubeObject | undefined {
    const kv = this.deps.store.get(key);
    return kv ? decodeStored(kv) : undefined;
  }

  private reconcileWorkspace(parent: string, name: string) {
    const row = this.deps.store.get(workspaceKey(parent, name));
    if (!row) return undefined;
    const ws = decodeStored(row) as Workspace;
    // A workspace whose LogicalCluster another shard hosts is followed over the network.
    const elsewhere = this.hostedElsewhere(ws);
    if (ws.metadata?.deletionTimestamp) return elsewhere ? this.deps.remote!.reconcileDeletion(parent, ws) : this.reconcileDeletion(parent, ws, row);
    if (!ws.spec?.cluster) return this.deps.scheduler.schedule(parent, ws, row);
    if (ws.status?.phase === 'Initializing') return elsewhere ? this.deps.remote!.follow(parent, ws) : this.reconcileInitializing(parent, ws);
    return undefined;
  }

  private hostedElsewhere(ws: Workspace): boolean {
    const shard = ws.metadata?.annotations?.[SHARD_ANNOTATION];
    return shard !== undefined && shard !== this.deps.shardName && this.deps.remote !== undefined;
  }

  /**
   * A LogicalCluster created here by another shard for its workspace (`lc`'s owner is not a workspace of this
   * shard): brought up when it arrives, and made Ready once its initializers are gone (the owner's shard follows).
   */
  private reconcileHosted(cluster: string) {
    const row = this.deps.store.get(logicalClusterKey(cluster));
    if (!row) return undefined;
    const lc = decodeStored(row) as LogicalClusterView;
    const owner = lc.spec?.owner;
    if (lc.metadata?.deletionTimestamp || !owner?.cluster || !owner.name) return undefined;
    if (this.deps.store.get(workspaceKey(owner.cluster, owner.name))) return undefined;
    if (!lc.status?.phase || lc.status.phase === 'Scheduling') return this.deps.scheduler.hostLogicalCluster(cluster, row, lc);
    if (lc.status.phase !== 'Initializing') return undefined;
    const next = logicalClusterProgress(lc, lc.status.initializers ?? [], nowTimestamp());
    if (next) this.deps.generic.update({ rt: this.deps.types.logicalClusters, cluster, namespace: '' }, 'cluster', next, { withStatus: true });
    return undefined;
  }

  /** Mirrors the LogicalCluster's initializers; when none is left, both turn Ready in one commit. */
  private reconcileInitializing(parent: string, ws: Workspace): void {
    const { generic, types } = this.deps;
    const cluster = ws.spec!.cluster!;
    const lc = this.get(logicalClusterKey(cluster)) as LogicalClusterView | undefined;
    if (!lc) return;
    const initializers = lc.status?.initializers ?? [];
    const now = nowTimestamp();
    const batch = new WriteBatch();
    // The LogicalCluster follows in the same commit.
    const nextLc = logicalClusterProgress(lc, initializers, now);
    if (nextLc) generic.update({ rt: types.logicalClusters, cluster, namespace: '' }, 'cluster', nextLc, { batch, withStatus: true });
    const next = followLogicalCluster(ws, initializers, lc.status?.conditions, now);
    if (next) generic.update({ rt: types.workspaces, cluster: parent, namespace: '' }, ws.metadata!.name!, next, { batch, withStatus: true });
    generic.commitBatch(batch);
  }

  /** Deletes the workspace's LogicalCluster, shows Terminating/Deleting meanwhile, and lets go once it is gone. */
  private reconcileDeletion(parent: string, ws: Workspace, row: KeyValue) {
    const { generic, types } = this.deps;
    const name = ws.metadata!.name!;
    const cluster = ws.spec?.cluster;
    const lc = cluster ? (this.get(logicalClusterKey(cluster)) as LogicalClusterView | undefined) : undefined;
    const ours = lc && lc.spec?.owner?.uid === ws.metadata?.uid;
    if (lc && ours) {
      // Marking the LogicalCluster deleted and showing it on the workspace: one commit.
      const batch = new WriteBatch();
      let current = lc;
      if (!lc.metadata?.deletionTimestamp) {
        current = generic.delete({ rt: types.logicalClusters, cluster: cluster!, namespace: '' }, 'cluster', { batch }).object as LogicalClusterView;
      }
      const terminators = current.status?.terminators ?? [];
      const phase = terminators.length > 0 ? 'Terminating' : 'Deleting';
      if (ws.status?.phase !== phase || JSON.stringify(ws.status?.terminators ?? []) !== JSON.stringify(terminators)) {
        // The terminators still to run are mirrored from the LogicalCluster, as while the workspace was alive.
        const status: Workspace['status'] = { ...ws.status, phase, terminators };
        if (terminators.length === 0) delete status.terminators;
        // kcp's metadata reconciler labels every workspace being deleted `Deleting`, whatever its phase.
        const next: Workspace = {
          ...ws,
          metadata: { ...ws.metadata, labels: { ...(ws.metadata?.labels ?? {}), [PHASE_LABEL]: 'Deleting' } },
          status,
        };
        const current = { row, object: ws };
        generic.update({ rt: types.workspaces, cluster: parent, namespace: '' }, name, next, { batch, withStatus: true, current });
      }
      generic.commitBatch(batch);
      return undefined;
    }
    const finalizers = (ws.metadata?.finalizers ?? []).filter((f) => f !== LOGICAL_CLUSTER_FINALIZER);
    if (finalizers.length !== (ws.metadata?.finalizers ?? []).length) {
      generic.update({ rt: types.workspaces, cluster: parent, namespace: '' }, name, { ...ws, metadata: { ...ws.metadata, finalizers } });
    }
    return undefined;
  }

  /** A LogicalCluster being deleted: wait for its terminators, then remove its content and itself. */
  private reconcileClusterDeletion(cluster: string) {
    const row = this.deps.store.get(logicalClusterKey(cluster));
    const lc = row ? (decodeStored(row) as LogicalClusterView) : undefined;
    if (!row || !lc?.metadata?.deletionTimestamp) return undefined;
    if ((lc.status?.terminators ?? []).length > 0) return undefined;
    const progress = this.deps.deleter.run(cluster, row, lc);
    // Child workspaces report back through their own DELETED events; other finalizers are polled.
    return progress.done || progress.heldByOthers === 0 ? undefined : { requeueAfterMs: 2000 };
  }
}
