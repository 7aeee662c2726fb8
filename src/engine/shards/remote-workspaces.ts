/**
 * Workspaces whose LogicalCluster lives on another shard, seen from the shard holding the Workspace (kcp's
 * scheduling across shards): the cluster name and shard are written on the Workspace first (phase one), then the
 * LogicalCluster is created on that shard, which initializes it; this shard follows its phase into the Workspace
 * (polled with kcp's back-off: a fifth of the workspace's age, from 100 ms up to 2 s, or 10 s while initializers
 * other than the in-process one remain) and deletes it when the Workspace goes.
 */
import { nowTimestamp } from '../registry/object-rules.js';
import type { GenericStore } from '../registry/generic-store.js';
import type { KubeObject, ResourceType } from '../registry/types.js';
import { workspaceKey } from '../tenancy/cluster-paths.js';
import {
  CLUSTER_ANNOTATION,
  LOGICAL_CLUSTER_FINALIZER,
  PHASE_LABEL,
  SHARD_ANNOTATION,
  SHARD_HASH_ANNOTATION,
  shardHash,
} from '../machinery/kcp-names.js';
import type { ShardSpec } from '../tenancy/shard-placement.js';
import type { RemoteWorkspaceFollower } from '../tenancy/workspace-controller/index.js';
import { followLogicalCluster } from '../tenancy/workspace-progress.js';
import type { Workspace } from '../tenancy/workspace-resource.js';
import { scheduledWorkspaceMetadata, workspaceConditions, type RemoteScheduling, type WorkspaceScheduler } from '../tenancy/workspace-scheduler.js';
import { decodeStored } from '../registry/stored-object.js';
import type { Store } from '../storage/store.js';
import { statusMessage, type ShardClient } from './shard-client.js';
import type { ShardDirectory } from '../tenancy/shard-placement.js';

interface RemoteLogicalCluster extends KubeObject {
  spec?: { owner?: { uid?: string } };
  status?: { phase?: string; initializers?: string[]; terminators?: string[]; conditions?: unknown[] };
}

export interface RemoteWorkspacesDeps {
  store: Store;
  generic: GenericStore;
  workspaces: ResourceType;
  /** This shard's client to the others (root's own is made once it listens, so it is asked for when needed). */
  client(): ShardClient;
  shards: ShardDirectory;
}

const lcPath = (cluster: string) => `/clusters/${cluster}/apis/core.kcp.io/v1alpha1/logicalclusters`;

const WAITING_ON_INITIALIZERS_MAX_MS = 10_000;

/** kcp's re-check interval for a workspace waiting on its LogicalCluster: age/5, bounded. */
function backoff(ws: Workspace, maxMs = 2000): number {
  const created = Date.parse(ws.metadata?.creationTimestamp ?? '');
  const age = Number.isNaN(created) ? 0 : Date.now() - created;
  return Math.min(maxMs, Math.max(100, Math.floor(age / 5)));
}

export class RemoteWorkspaces implements RemoteScheduling, RemoteWorkspaceFollower {
  constructor(private readonly deps: RemoteWorkspacesDeps) {}

  async schedule(parent: string, ws: Workspace, placement: { shard: string; region?: string; spec: ShardSpec }, scheduler: WorkspaceScheduler): Promise<void> {
    const { generic, workspaces } = this.deps;
    const meta = ws.metadata!;
    const name = meta.name!;
    const ctx = { rt: workspaces, cluster: parent, namespace: '' };
    let cluster = meta.annotations?.[CLUSTER_ANNOTATION];
    if (!cluster || meta.annotations?.[SHARD_ANNOTATION] !== placement.shard) {
      // Phase one: the choice is written before the other shard is asked, so a retry (or a restart) asks that
      // shard for that cluster again instead of leaving an orphan there. The write brings the workspace back.
      cluster = scheduler.freshClusterName();
      const annotations = { ...meta.annotations, [CLUSTER_ANNOTATION]: cluster, [SHARD_ANNOTATION]: placement.shard, [SHARD_HASH_ANNOTATION]: shardHash(placement.shard) };
      generic.update(ctx, name, { ...ws, metadata: { ...meta, annotations } });
      return;
    }
    const base = placement.spec.baseURL;
    if (!base) return scheduler.markUnschedulable(parent, ws, `Shard ${placement.shard} has no spec.baseURL`);
    const external = placement.spec.externalURL || base;
    const { lc, path, initializers } = scheduler.remoteLogicalCluster(cluster, parent, ws, { shard: placement.shard, url: external });
    const created = await this.deps.client().call<RemoteLogicalCluster>('POST', `${base}${lcPath(cluster)}`, lc).catch((err: Error) => {
      scheduler.markUnschedulable(parent, ws, `creating LogicalCluster ${cluster} on shard ${placement.shard}: ${err.message}`);
      throw err;
    });
    if (created.status === 409) {
      const existing = await this.deps.client().call<RemoteLogicalCluster>('GET', `${base}${lcPath(cluster)}/cluster`);
      if (existing.status === 200 && existing.body.spec?.owner?.uid !== meta.uid) {
        // The name is someone else's there: choose again, as kcp does.
        const annotations = { ...meta.annotations };
        delete annotations[CLUSTER_ANNOTATION];
        generic.update(ctx, name, { ...ws, metadata: { ...meta, annotations } });
        return;
      }
    } else if (created.status !== 201 && created.status !== 200) {
      // Shown on the workspace (it stays Scheduling) and retried with the queue's back-off.
      const message = `creating LogicalCluster ${cluster} on shard ${placement.shard}: ${statusMessage(created)}`;
      scheduler.markUnschedulable(parent, ws, message);
      throw new Error(message);
    }
    // Phase two, on the workspace as it is now (it may have changed while the other shard answered).
    const row = this.deps.store.get(workspaceKey(parent, name));
    if (!row) return;
    const current = decodeStored(row) as Workspace;
    if (current.metadata?.uid !== meta.uid || current.spec?.cluster || current.metadata?.deletionTimestamp) return;
    const now = nowTimestamp();
    const phase = 'Initializing';
    const cm = current.metadata!;
    const next: Workspace = {
      ...current,
      metadata: scheduledWorkspaceMetadata(cm, phase, placement.region),
      spec: { ...current.spec, cluster, URL: `${external}/clusters/${path}` },
      status: {
        ...current.status,
        phase,
        conditions: workspaceConditions(initializers, now),
        ...(initializers.length ? { initializers } : {}),
      },
    };
    generic.update(ctx, name, next, { withStatus: true, current: { row, object: current } });
  }

  async follow(parent: string, ws: Workspace): Promise<{ requeueAfterMs: number } | undefined> {
    const target = this.target(ws);
    if (!target) return { requeueAfterMs: 2000 };
    const res = await this.deps.client().call<RemoteLogicalCluster>('GET', `${target.base}${lcPath(target.cluster)}/cluster`);
    if (res.status !== 200) return { requeueAfterMs: backoff(ws) };
    const lc = res.body;
    if (lc.status?.phase !== 'Initializing' && lc.status?.phase !== 'Ready') return { requeueAfterMs: backoff(ws) };
    const initializers = lc.status.phase === 'Ready' ? [] : (lc.status.initializers ?? []);
    const row = this.deps.store.get(workspaceKey(parent, ws.metadata!.name!));
    if (!row) return undefined;
    const current = decodeStored(row) as Workspace;
    if (current.metadata?.uid !== ws.metadata?.uid || current.metadata?.deletionTimestamp) return undefined;
    const next = followLogicalCluster(current, initializers, lc.status.conditions, nowTimestamp());
    if (next) {
      const ctx = { rt: this.deps.workspaces, cluster: parent, namespace: '' };
      this.deps.generic.update(ctx, ws.metadata!.name!, next, { withStatus: true, current: { row, object: current } });
    }
    // Ready only once the LogicalCluster itself is (its last initializer gone, the other shard has caught up).
    if (lc.status.phase === 'Ready') return undefined;
    // Waiting on an initializer's controller can take long: looked at less often then (at most every 10 s).
    return { requeueAfterMs: backoff(ws, initializers.length > 0 ? WAITING_ON_INITIALIZERS_MAX_MS : 2000) };
  }

  async reconcileDeletion(parent: string, ws: Workspace): Promise<{ requeueAfterMs: number } | undefined> {
    const ctx = { rt: this.deps.workspaces, cluster: parent, namespace: '' };
    const name = ws.metadata!.name!;
    const target = this.target(ws);
    if (target) {
      const url = `${target.base}${lcPath(target.cluster)}/cluster`;
      const got = await this.deps.client().call<RemoteLogicalCluster>('GET', url);
      if (got.status === 200 && got.body.spec?.owner?.uid === ws.metadata?.uid) {
        let lc = got.body;
        if (!lc.metadata?.deletionTimestamp) {
          const deleted = await this.deps.client().call<RemoteLogicalCluster>('DELETE', url);
          if (deleted.status === 404) return { requeueAfterMs: 0 };
          if (deleted.status !== 200 && deleted.status !== 202) throw new Error(`deleting LogicalCluster ${target.cluster} on its shard: ${statusMessage(deleted)}`);
          if (deleted.body.kind === 'LogicalCluster') lc = deleted.body;
        }
        this.showDeleting(parent, ws, lc.status?.terminators ?? []);
        return { requeueAfterMs: backoff(ws, 1000) };
      }
      if (got.status !== 404 && got.status !== 200) return { requeueAfterMs: 2000 };
    } else if (ws.metadata?.annotations?.[CLUSTER_ANNOTATION] && ws.spec?.cluster) {
      // The shard is not known (any more): nothing can be asked; keep the workspace until it is.
      return { requeueAfterMs: 5000 };
    }
    // Gone (or never created): the workspace may go too.
    const row = this.deps.store.get(workspaceKey(parent, name));
    if (!row) return undefined;
    const current = decodeStored(row) as Workspace;
    if (current.metadata?.uid !== ws.metadata?.uid) return undefined;
    const finalizers = (current.metadata?.finalizers ?? []).filter((f) => f !== LOGICAL_CLUSTER_FINALIZER);
    if (finalizers.length !== (current.metadata?.finalizers ?? []).length) {
      this.deps.generic.update(ctx, name, { ...current, metadata: { ...current.metadata, finalizers } }, { current: { row, object: current } });
    }
    return undefined;
  }

  /** Terminating while terminators remain, Deleting after, as for a local workspace. */
  private showDeleting(parent: string, ws: Workspace, terminators: string[]): void {
    const phase = terminators.length > 0 ? 'Terminating' : 'Deleting';
    if (ws.status?.phase === phase && JSON.stringify(ws.status?.terminators ?? []) === JSON.stringify(terminators)) return;
    const status: Workspace['status'] = { ...ws.status, phase, terminators };
    if (terminators.length === 0) delete status.terminators;
    const next: Workspace = { ...ws, metadata: { ...ws.metadata, labels: { ...(ws.metadata?.labels ?? {}), [PHASE_LABEL]: 'Deleting' } }, status };
    this.deps.generic.update({ rt: this.deps.workspaces, cluster: parent, namespace: '' }, ws.metadata!.name!, next, { withStatus: true });
  }

  /** The shard's base URL and the cluster name of a workspace placed elsewhere, if its Shard is known. */
  private target(ws: Workspace): { base: string; cluster: string } | undefined {
    const shardName = ws.metadata?.annotations?.[SHARD_ANNOTATION];
    const cluster = ws.spec?.cluster ?? ws.metadata?.annotations?.[CLUSTER_ANNOTATION];
    if (!shardName || !cluster) return undefined;
    const shard = this.deps.shards.shards().find((s) => s.metadata?.name === shardName);
    const base = (shard?.spec as ShardSpec | undefined)?.baseURL;
    return base ? { base, cluster } : undefined;
  }
}
