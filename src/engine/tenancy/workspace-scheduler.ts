/**
 * Scheduling a Workspace, kcp's two commits folded into one: pick the logical cluster name, create its
 * LogicalCluster (path, type, owner, initializers), run the in-process initializers right away (`root:universal`
 * creates the `default` and `kube-system` namespaces, each with its `default` ServiceAccount), give a non-privileged creator the `workspace-admin` binding,
 * and move the Workspace to Initializing, or straight to Ready when no initializer is left, with spec.cluster and
 * spec.URL set.
 */
import { deepFreeze } from '../machinery/deep-freeze.js';
import { nowTimestamp } from '../registry/object-rules.js';
import { WriteBatch, type GenericStore } from '../registry/generic-store.js';
import type { KubeObject, ResourceType } from '../registry/types.js';
import type { KeyValue, Store } from '../storage/store.js';
import { logicalClusterKey, type ClusterPaths } from './cluster-paths.js';
import {
  APIS_ANNOTATION,
  CLUSTER_ANNOTATION,
  LOGICAL_CLUSTER_FINALIZER,
  OWNER_ANNOTATION,
  PATH_ANNOTATION,
  PHASE_LABEL,
  REQUIRED_GROUPS_ANNOTATION,
  SHARD_ANNOTATION,
  SHARD_HASH_ANNOTATION,
  TENANCY_GROUP,
  TYPE_ANNOTATION,
  joinPath,
  logicalClusterLabels,
  newClusterName,
  shardHash,
} from '../machinery/kcp-names.js';
import { defaultServiceAccountObject } from '../controllers/service-account-controller.js';
import { ObjectTemplates, slotPaths, withSlots } from '../registry/object-templates.js';
import { placeWorkspace, type Placement, type ShardDirectory, type ShardSpec } from './shard-placement.js';
import { annotationsForPhase, type Workspace } from './workspace-resource.js';
import { qualifiedName, type WorkspaceType, type WorkspaceTypes } from './workspace-types.js';

export const LOGICAL_CLUSTER_DELETION_FINALIZER = 'core.kcp.io/logicalcluster-deletion';
export const UNIVERSAL_INITIALIZER = 'root:universal';
/** What kcp's config/universal bootstrap creates in every universal workspace (frozen: templates remember their text). */
const UNIVERSAL_NAMESPACES = ['default', 'kube-system'].map((name) => [name, deepFreeze({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } })] as const);
const DEFAULT_SERVICE_ACCOUNT = deepFreeze(defaultServiceAccountObject());
/** kcp gives the creator cluster-admin in the new workspace. */
const WORKSPACE_ADMIN_BINDING = deepFreeze({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRoleBinding',
  metadata: { name: 'workspace-admin' },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
  subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: '{{user}}' }],
});

/** What differs between the LogicalClusters of two workspaces of one type created by users of one shape. */
const LOGICAL_CLUSTER_VARIABLES = slotPaths([
  ...[PATH_ANNOTATION, TYPE_ANNOTATION, OWNER_ANNOTATION, REQUIRED_GROUPS_ANNOTATION].map((a) => ['metadata', 'annotations', a]),
  ['spec', 'owner', 'name'],
  ['spec', 'owner', 'cluster'],
  ['spec', 'owner', 'uid'],
  ['spec', 'createdBy', 'username'],
  ['spec', 'createdBy', 'uid'],
  ['spec', 'createdBy', 'groups', '*'],
  ['spec', 'createdBy', 'extra', '*', '*'],
  ['status', 'URL'],
  ['status', 'conditions', '*', 'lastTransitionTime'],
]);

export interface TenancyTypes {
  workspaces: ResourceType;
  logicalClusters: ResourceType;
  namespaces: ResourceType;
  clusterRoleBindings: ResourceType;
  serviceAccounts: ResourceType;
}

export interface SchedulerDeps {
  store: Store;
  generic: GenericStore;
  types: TenancyTypes;
  paths: ClusterPaths;
  workspaceTypes: WorkspaceTypes;
  /** `https://host:port` clients use. */
  externalUrl(): string;
  /** This server's Shard name (`root` for the root shard). */
  shardName: string;
  /** The deployment's Shards, to place workspaces among. */
  shards: ShardDirectory;
  /** Places a workspace on another shard (absent: every workspace is placed here). */
  remote?: RemoteScheduling;
}

/** The part of scheduling that talks to other shards (shards/remote-workspaces.ts); the scheduler hands itself over. */
export interface RemoteScheduling {
  schedule(parent: string, ws: Workspace, placement: { shard: string; region?: string; spec: ShardSpec }, scheduler: WorkspaceScheduler): Promise<void>;
}

export function condition(type: string, status: 'True' | 'False', now: string, reason?: string, message?: string, severity?: string) {
  return { type, status, lastTransitionTime: now, ...(reason ? { reason } : {}), ...(message ? { message } : {}), ...(severity ? { severity } : {}) };
}

/** `Initializers still exist: [a b]`, Go's rendering of the list. */
export function initializersMessage(initializers: string[]): string {
  return `Initializers still exist: [${initializers.join(' ')}]`;
}

export function workspaceConditions(initializers: string[], now: string): Record<string, unknown>[] {
  return [
    condition('WorkspaceScheduled', 'True', now),
    initializers.length > 0
      ? condition('WorkspaceInitialized', 'False', now, 'InitializerExists', initializersMessage(initializers), 'Info')
      : condition('WorkspaceInitialized', 'True', now),
  ];
}

/** The creator recorded in the owner annotation (kcp's UserInfo JSON), if any. */
function ownerOf(ws: Workspace): { username: string; groups?: string[]; uid?: string; extra?: Record<string, string[]> } | undefined {
  const raw = ws.metadata?.annotations?.[OWNER_ANNOTATION];
  if (!raw) return undefined;
  try {
    const info = JSON.parse(raw) as { username?: string };
    return info.username ? (info as { username: string }) : undefined;
  } catch {
    return undefined;
  }
}

function ownedBy(lc: KubeObject, parent: string, ws: Workspace): boolean {
  const owner = (lc.spec as { owner?: { cluster?: string; name?: string; uid?: string } } | undefined)?.owner;
  return owner?.cluster === parent && owner?.name === ws.metadata?.name && owner?.uid === ws.metadata?.uid;
}

export class WorkspaceScheduler {
  /** The same objects in every new workspace, written from their stored text (object-templates.ts). */
  private readonly templates: ObjectTemplates;

  private readonly shardHash: string;

  constructor(private readonly deps: SchedulerDeps) {
    this.templates = new ObjectTemplates(deps.generic);
    this.shardHash = shardHash(deps.shardName);
  }

  /**
   * Schedules `ws` (living in `parent`); throws when its type can no longer be resolved. `stored` is the row `ws` was
   * decoded from, just read by the caller (same synchronous turn), so the update neither reads nor parses it again.
   */
  schedule(parent: string, ws: Workspace, stored?: KeyValue): void | Promise<void> {
    // kcp picks a shard first; with none matching, the workspace waits in Scheduling and says why.
    const placement = this.placement(ws);
    if ('unschedulable' in placement) return this.markUnschedulable(parent, ws, placement.unschedulable);
    if (placement.shard !== this.deps.shardName) {
      if (!this.deps.remote) return this.markUnschedulable(parent, ws, `Shard ${placement.shard} cannot be reached from this shard`);
      return this.deps.remote.schedule(parent, ws, placement, this);
    }
    this.deps.generic.commitBatch(this.scheduled(parent, ws, placement, stored));
  }

  /**
   * For the POST creating `ws` in `parent` (`stored`: the row about to be written): the writes scheduling it, to go
   * in the create's commit. Undefined when the controller must do it after the create: no shard fits (the workspace
   * waits in Scheduling, saying why), a cluster name is asked for (it may belong to someone else), or its type no
   * longer resolves (the controller reports it).
   */
  scheduleOnCreate(parent: string, ws: Workspace, stored: KeyValue): WriteBatch | undefined {
    if (ws.metadata?.annotations?.[CLUSTER_ANNOTATION]) return undefined;
    const placement = this.placement(ws);
    // Another shard is asked over the network: the controller does that, after the create.
    if ('unschedulable' in placement || placement.shard !== this.deps.shardName) return undefined;
    try {
      return this.scheduled(parent, ws, placement, stored);
    } catch {
      return undefined;
    }
  }

  /** The shard already chosen for `ws` (its annotation, phase one of kcp's scheduling), else a new choice. */
  private placement(ws: Workspace): Placement {
    const chosen = ws.metadata?.annotations?.[SHARD_ANNOTATION];
    if (chosen === this.deps.shardName) return { shard: chosen, spec: {} };
    if (!chosen) return placeWorkspace(this.deps.shards.shards(), ws);
    const shard = this.deps.shards.shards().find((s) => s.metadata?.name === chosen);
    return shard ? { shard: chosen, spec: (shard.spec ?? {}) as ShardSpec } : { unschedulable: `Shard ${chosen} is not known in root` };
  }

  /** The batch moving `ws` to Initializing or Ready on `placement`, with its LogicalCluster and first objects. */
  private scheduled(parent: string, ws: Workspace, placement: { region?: string }, stored?: KeyValue): WriteBatch {
    const { generic, types, paths, workspaceTypes } = this.deps;
    const name = ws.metadata!.name!;
    const typeRef = ws.spec?.type;
    const type = typeRef?.path ? workspaceTypes.get(typeRef.path, typeRef.name) : undefined;
    if (!type) throw new Error(`workspace type ${typeRef?.path}:${typeRef?.name} cannot be resolved`);
    const aliases = workspaceTypes.aliases(type);
    let cluster = ws.metadata?.annotations?.[CLUSTER_ANNOTATION];
    let existing = cluster ? this.readLogicalCluster(cluster) : undefined;
    // A name taken by a LogicalCluster that is not ours is given up, as kcp does.
    if (!cluster || (existing && !ownedBy(existing, parent, ws))) {
      cluster = this.freshClusterName();
      existing = undefined;
    }
    const path = joinPath(paths.pathOf(parent) ?? parent, name);
    const now = nowTimestamp();
    const batch = new WriteBatch();

    let initializers = workspaceTypes.initializers(aliases);
    let terminators = workspaceTypes.terminators(aliases);
    const inProcess = initializers.includes(UNIVERSAL_INITIALIZER);
    if (!existing) {
      if (inProcess) {
        // root:universal runs here: kcp's universal bootstrap (namespaces `default` and `kube-system`), created in
        // the same commit.
        initializers = initializers.filter((i) => i !== UNIVERSAL_INITIALIZER);
        for (const [name, object] of UNIVERSAL_NAMESPACES) {
          this.templates.create({ rt: types.namespaces, cluster, namespace: '', object }, batch);
          this.templates.create({ rt: types.serviceAccounts, cluster, namespace: name, object: DEFAULT_SERVICE_ACCOUNT }, batch);
        }
      }
      const lc = withSlots(this.logicalCluster(cluster, parent, path, ws, type, aliases, initializers, terminators, now), LOGICAL_CLUSTER_VARIABLES);
      this.templates.create({ rt: types.logicalClusters, cluster, namespace: '', withStatus: true, ...lc }, batch);
      const owner = ownerOf(ws);
      if (owner) this.workspaceAdminBinding(cluster, owner.username, batch);
    } else {
      const status = existing.status as { initializers?: string[]; terminators?: string[] } | undefined;
      initializers = status?.initializers ?? initializers;
      terminators = status?.terminators ?? terminators;
    }

    const phase = initializers.length > 0 ? 'Initializing' : 'Ready';
    const meta = ws.metadata!;
    const next: Workspace = {
      ...ws,
      metadata: scheduledWorkspaceMetadata(meta, phase, placement.region, {
        ...(meta.annotations ?? {}),
        [SHARD_ANNOTATION]: this.deps.shardName,
        [SHARD_HASH_ANNOTATION]: this.shardHash,
        [CLUSTER_ANNOTATION]: cluster,
      }),
      spec: { ...ws.spec, cluster, URL: `${this.deps.externalUrl()}/clusters/${path}` },
      // kcp mirrors the LogicalCluster's initializers and terminators on the Workspace.
      status: {
        ...ws.status,
        phase,
        conditions: workspaceConditions(initializers, now),
        ...(initializers.length ? { initializers } : {}),
        ...(terminators.length ? { terminators } : {}),
      },
    };
    if (initializers.length === 0) delete next.status!.initializers;
    if (terminators.length === 0) delete next.status!.terminators;
    // Settled (inside the create's commit): `next` is `ws`, just admitted, plus what scheduling owns.
    generic.update({ rt: types.workspaces, cluster: parent, namespace: '' }, name, next, { batch, withStatus: true, current: stored && { row: stored, object: ws }, settled: true });
    return batch;
  }

  /**
   * The LogicalCluster of `ws` (in `parent`) for another shard to create as `cluster`: every initializer of its type
   * still listed (that shard runs `root:universal` itself), no status (that shard writes it).
   */
  remoteLogicalCluster(cluster: string, parent: string, ws: Workspace, target: { shard: string; url: string }): { lc: KubeObject; path: string; phase: string; initializers: string[] } {
    const typeRef = ws.spec?.type;
    const type = typeRef?.path ? this.deps.workspaceTypes.get(typeRef.path, typeRef.name) : undefined;
    if (!type) throw new Error(`workspace type ${typeRef?.path}:${typeRef?.name} cannot be resolved`);
    const aliases = this.deps.workspaceTypes.aliases(type);
    const initializers = this.deps.workspaceTypes.initializers(aliases);
    const terminators = this.deps.workspaceTypes.terminators(aliases);
    const path = joinPath(this.deps.paths.pathOf(parent) ?? parent, ws.metadata!.name!);
    const lc = this.logicalCluster(cluster, parent, path, ws, type, aliases, initializers, terminators, nowTimestamp(), target);
    delete lc.status;
    return { lc, path, phase: initializers.length > 0 ? 'Initializing' : 'Ready', initializers };
  }

  /**
   * A LogicalCluster another shard created here for its workspace (`row`, decoded as `lc`, has no status yet): what
   * scheduling does for a local one, in one commit: the in-process `root:universal` initializer, the creator's
   * `workspace-admin` binding, and the status (Initializing, or Ready when no initializer is left).
   */
  hostLogicalCluster(cluster: string, row: KeyValue, lc: KubeObject): void {
    const { generic, types } = this.deps;
    const spec = (lc.spec ?? {}) as { initializers?: string[]; terminators?: string[]; createdBy?: { username?: string } };
    let initializers = spec.initializers ?? [];
    const terminators = spec.terminators ?? [];
    const batch = new WriteBatch();
    if (initializers.includes(UNIVERSAL_INITIALIZER)) {
      initializers = initializers.filter((i) => i !== UNIVERSAL_INITIALIZER);
      for (const [name, object] of UNIVERSAL_NAMESPACES) {
        this.templates.create({ rt: types.namespaces, cluster, namespace: '', object }, batch);
        this.templates.create({ rt: types.serviceAccounts, cluster, namespace: name, object: DEFAULT_SERVICE_ACCOUNT }, batch);
      }
    }
    if (spec.createdBy?.username) this.workspaceAdminBinding(cluster, spec.createdBy.username, batch);
    const phase = initializers.length > 0 ? 'Initializing' : 'Ready';
    const now = nowTimestamp();
    const next: KubeObject = {
      ...lc,
      metadata: {
        ...lc.metadata,
        labels: logicalClusterLabels(lc.metadata?.labels, phase, initializers),
        annotations: annotationsForPhase(lc.metadata?.annotations, phase),
      },
      status: logicalClusterStatus(phase, `${this.deps.externalUrl()}/clusters/${cluster}`, initializers, terminators, now),
    };
    generic.update({ rt: types.logicalClusters, cluster, namespace: '' }, 'cluster', next, { batch, withStatus: true, current: { row, object: lc } });
    generic.commitBatch(batch);
  }

  private logicalCluster(
    cluster: string,
    parent: string,
    path: string,
    ws: Workspace,
    type: WorkspaceType,
    aliases: WorkspaceType[],
    initializers: string[],
    terminators: string[],
    now: string,
    target = { shard: this.deps.shardName, url: this.deps.externalUrl() },
  ): KubeObject {
    const wsMeta = ws.metadata!;
    const annotations: Record<string, string> = {
      [PATH_ANNOTATION]: path,
      [TYPE_ANNOTATION]: qualifiedName(type),
      [SHARD_ANNOTATION]: target.shard,
    };
    for (const key of [OWNER_ANNOTATION, REQUIRED_GROUPS_ANNOTATION]) {
      const v = wsMeta.annotations?.[key];
      if (v !== undefined) annotations[key] = v;
    }
    if (aliases.some((a) => qualifiedName(a) === UNIVERSAL_INITIALIZER)) annotations[APIS_ANNOTATION] = TENANCY_GROUP;
    const owner = ownerOf(ws);
    const phase = initializers.length > 0 ? 'Initializing' : 'Ready';
    return {
      apiVersion: 'core.kcp.io/v1alpha1',
      kind: 'LogicalCluster',
      // kcp's LogicalCluster metadata: phase and initializer labels, the owner trimmed once Ready.
      metadata: {
        name: 'cluster',
        labels: logicalClusterLabels(undefined, phase, initializers),
        annotations: annotationsForPhase(annotations, phase),
        finalizers: [LOGICAL_CLUSTER_DELETION_FINALIZER],
      },
      spec: {
        directlyDeletable: false,
        owner: { apiVersion: 'tenancy.kcp.io/v1alpha1', resource: 'workspaces', name: wsMeta.name, cluster: parent, uid: wsMeta.uid },
        ...(owner ? { createdBy: owner } : {}),
        ...(initializers.length ? { initializers } : {}),
        ...(terminators.length ? { terminators } : {}),
      },
      status: logicalClusterStatus(phase, `${target.url}/clusters/${cluster}`, initializers, terminators, now),
    };
  }

  /** WorkspaceScheduled=False/Unschedulable with kcp's reason; written only when it changes. */
  markUnschedulable(parent: string, ws: Workspace, message: string): void {
    const conditions = (ws.status?.conditions ?? []).filter((c) => c.type !== 'WorkspaceScheduled');
    const had = ws.status?.conditions?.find((c) => c.type === 'WorkspaceScheduled');
    if (had?.status === 'False' && had.message === message) return;
    const scheduled = condition('WorkspaceScheduled', 'False', nowTimestamp(), 'Unschedulable', message, 'Error');
    const next: Workspace = { ...ws, status: { ...ws.status, phase: 'Scheduling', conditions: [scheduled, ...conditions] } };
    this.deps.generic.update({ rt: this.deps.types.workspaces, cluster: parent, namespace: '' }, ws.metadata!.name!, next, { withStatus: true });
  }

  private workspaceAdminBinding(cluster: string, username: string, batch: WriteBatch): void {
    const rt = this.deps.types.clusterRoleBindings;
    this.templates.create({ rt, cluster, namespace: '', object: WORKSPACE_ADMIN_BINDING, slots: { user: username } }, batch);
  }

  private readLogicalCluster(cluster: string): KubeObject | undefined {
    const kv = this.deps.store.get(logicalClusterKey(cluster));
    return kv ? (JSON.parse(kv.value) as KubeObject) : undefined;
  }

  freshClusterName(): string {
    for (;;) {
      const name = newClusterName();
      if (!this.deps.store.get(logicalClusterKey(name))) return name;
    }
  }
}

/** A LogicalCluster's status as the scheduler writes it: its phase, where it is served, whether initializers remain. */
function logicalClusterStatus(phase: string, url: string, initializers: string[], terminators: string[], now: string): Record<string, unknown> {
  return {
    phase,
    URL: url,
    conditions: [
      initializers.length > 0
        ? condition('WorkspaceInitialized', 'False', now, 'InitializerExists', initializersMessage(initializers), 'Info')
        : condition('WorkspaceInitialized', 'True', now),
    ],
    ...(initializers.length ? { initializers } : {}),
    ...(terminators.length ? { terminators } : {}),
  };
}

/**
 * A scheduled Workspace's metadata, placed here or on another shard: its phase label (and the shard's region), the
 * phase's annotations, and the finalizer that holds it until its LogicalCluster is gone.
 */
export function scheduledWorkspaceMetadata(
  meta: NonNullable<Workspace['metadata']>,
  phase: string,
  region: string | undefined,
  annotations: Record<string, string> | undefined = meta.annotations,
): NonNullable<Workspace['metadata']> {
  return {
    ...meta,
    labels: { ...(meta.labels ?? {}), [PHASE_LABEL]: phase, ...(region !== undefined ? { region } : {}) },
    annotations: annotationsForPhase(annotations, phase),
    finalizers: [...new Set([...(meta.finalizers ?? []), LOGICAL_CLUSTER_FINALIZER])],
  };
}
