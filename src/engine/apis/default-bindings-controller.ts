/**
 * The `system:apibindings` initializer, in-process (kcp's APIBinder) and its `Maintain` twin (kcp's
 * DefaultAPIBindingLifecycle controller). For a workspace whose type (or a type it extends) lists
 * `defaultAPIBindings`, it creates one APIBinding per export as the workspace's creator (who therefore needs `bind`),
 * waits until every one is bound, then removes `system:apibindings` from the LogicalCluster's status.initializers so
 * the workspace turns Ready. Problems (a missing export, a refused binding) stay on the LogicalCluster and its
 * Workspace as the `APIBindingsInitialized` condition while it retries.
 *
 * Cost: only clusters of such types are ever queued. A LogicalCluster event is looked at without parsing (its JSON
 * names the initializer or not); APIBinding and APIExport events queue only the clusters still waiting, and
 * `Maintain` workspaces are found through marker rows written with their LogicalCluster, never by a scan.
 */
import { WorkQueue } from '../controllers/work-queue.js';
import { nowTimestamp, type GenericStore } from '../registry/generic-store.js';
import type { IndexWriter } from '../registry/index-writer.js';
import { clusterAnnotation, decodeStored, objectKey } from '../registry/stored-object.js';
import { StatusError } from '../machinery/status.js';
import type { KubeObject, ResourceType } from '../registry/types.js';
import type { Store, WatchHandle } from '../storage/store.js';
import { logicalClusterKey, logicalClustersPrefix, workspaceKey, type ClusterPaths } from '../tenancy/cluster-paths.js';
import { logicalClusterMarkerWriter } from '../tenancy/pending-markers.js';
import { PATH_ANNOTATION, TYPE_ANNOTATION, splitPath } from '../tenancy/names.js';
import { workspaceTypesPrefix, type WorkspaceType, type WorkspaceTypes } from '../tenancy/workspace-types.js';
import {
  APIBINDINGS_INITIALIZER,
  BINDINGS_INITIALIZED,
  BINDINGS_RECONCILED,
  EXPORTS_MISSING,
  bindingErrors,
  defaultExportRefs,
  desiredBinding,
  inheritedSelector,
  isBound,
  maintainsBindings,
  setCondition,
  typeInvalid,
  waitingOnBindings,
  type Condition,
  type DefaultExportRef,
} from './default-bindings.js';
import type { APIBinding, APIExport } from './types.js';

/** `/kcpt/apibindings/maintained/<cluster>`: a workspace whose type keeps its default bindings (`Maintain`). */
const maintainedPrefix = '/kcpt/apibindings/maintained/';
/** Workspaces not Ready yet (the workspace controller's markers): where a restart finds initializations to resume. */
const pendingWorkspacesPrefix = '/kcpt/pending/workspaces/';
/**
 * `/kcpt/apibindings/initializing/<cluster>`: a LogicalCluster of this shard that lists the initializer. The markers
 * above live with the Workspace, on its parent's shard: a shard hosting the LogicalCluster of a workspace of another
 * shard finds its initializations to resume here.
 */
const initializingPrefix = '/kcpt/apibindings/initializing/';
const INITIALIZER_TEXT = `"${APIBINDINGS_INITIALIZER}"`;
const MAX_RETRY_MS = 30_000;

interface LogicalClusterView extends KubeObject {
  spec?: { createdBy?: { username: string; groups?: string[]; uid?: string; extra?: Record<string, string[]> } };
  status?: { phase?: string; initializers?: string[]; conditions?: Condition[] };
}

export interface DefaultAPIBindingsDeps {
  store: Store;
  generic: GenericStore;
  paths: ClusterPaths;
  workspaceTypes: WorkspaceTypes;
  logicalClusters: ResourceType;
  apiBindings: ResourceType;
  apiExports: ResourceType;
  /**
   * An APIExport of this shard or, in a sharded deployment, of another one (`shard` set), and how a path resolves
   * there too; absent: this shard's exports and paths only.
   */
  exportOf?(cluster: string, name: string): { object: APIExport; shard?: string } | undefined;
  resolvePath?(path: string): string | undefined;
  /** Calls `listener` when an export of another shard changed. */
  onRemoteExportChange?(listener: () => void): void;
  onError?(controller: string, key: string, err: unknown): void;
}

/**
 * Marks, in the LogicalCluster's own commit, the workspaces whose type maintains its default bindings, and drops
 * the mark with the LogicalCluster. Other LogicalClusters cost one annotation read on create.
 */
export function maintainedWorkspacesWriter(store: Store, workspaceTypes: WorkspaceTypes): IndexWriter {
  return (key, before, after) => {
    if (!key.startsWith(logicalClustersPrefix)) return [];
    const cluster = key.slice(logicalClustersPrefix.length).split('/')[0]!;
    const marker = `${maintainedPrefix}${cluster}`;
    if (!after) return store.get(marker) ? [{ type: 'delete', key: marker }] : [];
    if (before) return [];
    const aliases = aliasesOf(workspaceTypes, after.metadata?.annotations?.[TYPE_ANNOTATION]);
    return aliases && maintainsBindings(aliases) ? [{ type: 'create', key: marker, value: '{}' }] : [];
  };
}

const listsInitializer = (lc: KubeObject | undefined) =>
  lc !== undefined && ((lc.status as LogicalClusterView['status'])?.initializers ?? []).includes(APIBINDINGS_INITIALIZER);

/** Marks, in the LogicalCluster's own commit, one that lists the initializer; drops the mark when it no longer does. */
export function initializingClustersWriter(store: Store): IndexWriter {
  return logicalClusterMarkerWriter(store, initializingPrefix, listsInitializer);
}

function aliasesOf(types: WorkspaceTypes, qualified: string | undefined): WorkspaceType[] | undefined {
  if (!qualified) return undefined;
  const { parent, name } = splitPath(qualified);
  const type = parent ? types.get(parent, name) : undefined;
  if (!type) return undefined;
  try {
    return types.aliases(type);
  } catch {
    return undefined;
  }
}

export class DefaultAPIBindingsController {
  private readonly queue: WorkQueue;
  private readonly watches: WatchHandle[] = [];
  /** Clusters whose LogicalCluster still lists the initializer: the only ones binding and export events wake. */
  private readonly waiting = new Set<string>();
  private readonly attempts = new Map<string, number>();
  /** `<cluster>/<export path>|<export>`: bindings to another shard's export whose question was just asked. */
  private readonly asked = new Set<string>();

  constructor(private readonly deps: DefaultAPIBindingsDeps) {
    this.queue = new WorkQueue('default-apibindings', (cluster) => this.reconcile(cluster), deps.onError);
  }

  start(): void {
    const { store, apiBindings, apiExports } = this.deps;
    const from = store.currentRevision();
    const bindingsPrefix = `/registry/${apiBindings.storagePrefix}/`;
    this.watches.push(
      store.watch(logicalClustersPrefix, from, (events) => {
        for (const e of events) {
          const cluster = e.key.slice(logicalClustersPrefix.length).split('/')[0]!;
          if (e.type === 'DELETED') this.forget(cluster);
          else if (e.value.includes(INITIALIZER_TEXT)) this.queue.add(cluster);
        }
      }),
      store.watch(bindingsPrefix, from, (events) => {
        for (const e of events) {
          const cluster = e.key.slice(bindingsPrefix.length).split('/')[0]!;
          // A maintained workspace gets a deleted default binding back.
          if (this.waiting.has(cluster) || (e.type === 'DELETED' && store.get(`${maintainedPrefix}${cluster}`))) this.queue.add(cluster);
        }
      }),
      store.watch(`/registry/${apiExports.storagePrefix}/`, from, () => this.wakeAll()),
      store.watch(workspaceTypesPrefix, from, () => this.wakeAll()),
    );
    // Types and exports of other shards (a sharded deployment) arrive through the replica, not this store.
    const wakeWhileRunning = () => {
      if (this.watches.length > 0) this.wakeAll();
    };
    this.deps.workspaceTypes.onRemoteChange(wakeWhileRunning);
    this.deps.onRemoteExportChange?.(wakeWhileRunning);
    // Initializations a restart interrupted: among the workspaces not Ready yet.
    for (const kv of store.list(pendingWorkspacesPrefix).items) {
      const [parent, name] = kv.key.slice(pendingWorkspacesPrefix.length).split('/');
      const ws = store.get(workspaceKey(parent!, name!));
      const cluster = ws ? (JSON.parse(ws.value) as { spec?: { cluster?: string } }).spec?.cluster : undefined;
      if (cluster && store.get(logicalClusterKey(cluster))?.value.includes(INITIALIZER_TEXT)) this.queue.add(cluster);
    }
    for (const kv of store.list(initializingPrefix).items) this.queue.add(kv.key.slice(initializingPrefix.length));
  }

  stop(): void {
    for (const w of this.watches) w.cancel();
    this.watches.length = 0;
    this.queue.stop();
  }

  idle(): Promise<void> {
    return this.queue.idle();
  }

  /** An export or a type changed: what waits or is maintained may now go further. */
  private wakeAll(): void {
    for (const cluster of this.waiting) this.queue.add(cluster);
    for (const kv of this.deps.store.list(maintainedPrefix).items) this.queue.add(kv.key.slice(maintainedPrefix.length));
  }

  private forget(cluster: string): void {
    this.waiting.delete(cluster);
    this.attempts.delete(cluster);
    for (const key of this.asked) if (key.startsWith(`${cluster}/`)) this.asked.delete(key);
  }

  private retryLater(cluster: string) {
    const n = (this.attempts.get(cluster) ?? 0) + 1;
    this.attempts.set(cluster, n);
    return { requeueAfterMs: Math.min(500 * 2 ** n, MAX_RETRY_MS) };
  }

  private reconcile(cluster: string) {
    const { store } = this.deps;
    const kv = store.get(logicalClusterKey(cluster));
    const lc = kv ? (decodeStored(kv) as LogicalClusterView) : undefined;
    if (!lc || lc.metadata?.deletionTimestamp) return this.forget(cluster);
    const initializing = lc.status?.phase === 'Initializing' && (lc.status.initializers ?? []).includes(APIBINDINGS_INITIALIZER);
    if (initializing) this.waiting.add(cluster);
    else this.waiting.delete(cluster);
    const maintained = !initializing && store.get(`${maintainedPrefix}${cluster}`) !== undefined;
    if (!initializing && !maintained) return this.forget(cluster);

    const aliases = this.aliases(lc);
    if (typeof aliases === 'string') {
      if (initializing) this.setConditions(cluster, lc, typeInvalid(aliases));
      return this.retryLater(cluster);
    }
    const refs = defaultExportRefs(aliases, (t) => this.clusterOfType(t)).filter((r) => initializing || r.maintain);
    const type = initializing ? BINDINGS_INITIALIZED : BINDINGS_RECONCILED;
    const asks: Promise<void>[] = [];
    const errors = this.ensureBindings(cluster, lc, refs, initializing, asks);
    // The export's shard is asked whether the creator may bind it; then the binding is created again right away.
    if (asks.length > 0) return Promise.allSettled(asks).then(() => ({ requeueAfterMs: 1 }));
    if (errors.length > 0) {
      this.setConditions(cluster, lc, bindingErrors(type, errors));
      return this.retryLater(cluster);
    }
    this.attempts.delete(cluster);
    const incomplete = this.incomplete(cluster, refs);
    if (incomplete.length > 0) {
      this.setConditions(cluster, lc, waitingOnBindings(type, incomplete, initializing ? 'bound' : 'reconciled'));
      return undefined;
    }
    this.setConditions(cluster, lc, { type, status: 'True' }, initializing);
    return undefined;
  }

  /** The aliases of the LogicalCluster's type, or kcp's message when they cannot be had. */
  private aliases(lc: LogicalClusterView): WorkspaceType[] | string {
    const qualified = lc.metadata?.annotations?.[TYPE_ANNOTATION] ?? '';
    const { parent, name } = splitPath(qualified);
    const type = parent ? this.deps.workspaceTypes.get(parent, name) : undefined;
    if (!type) return `error getting WorkspaceType ${parent ?? ''}|${name}: workspacetypes.tenancy.kcp.io "${name}" not found`;
    try {
      return this.deps.workspaceTypes.aliases(type);
    } catch (err) {
      return `error resolving transitive set of workspace types: ${(err as Error).message}`;
    }
  }

  private clusterOfType(t: WorkspaceType): string {
    const annotations = t.metadata?.annotations ?? {};
    const path = annotations[PATH_ANNOTATION] ?? '';
    return annotations[clusterAnnotation] ?? this.resolvePath(path) ?? path;
  }

  private resolvePath(path: string): string | undefined {
    return this.deps.resolvePath ? this.deps.resolvePath(path) : this.deps.paths.resolve(path);
  }

  private exportOf(cluster: string, name: string): { object: APIExport; shard?: string } | undefined {
    if (this.deps.exportOf) return this.deps.exportOf(cluster, name);
    const object = this.getObject<APIExport>(this.deps.apiExports, cluster, name);
    return object && { object };
  }

  private getObject<T extends KubeObject>(rt: ResourceType, cluster: string, name: string): T | undefined {
    const kv = this.deps.store.get(objectKey(rt, cluster, '', name));
    return kv ? (decodeStored(kv) as T) : undefined;
  }

  /**
   * Creates (or, while initializing, updates the claims of) each default binding; returns kcp's error messages. A
   * binding to another shard's export refused for want of that shard's answer adds the question to `asks` instead,
   * once per two attempts (the answer is cached for a while, then asked again).
   */
  private ensureBindings(cluster: string, lc: LogicalClusterView, refs: DefaultExportRef[], initializing: boolean, asks: Promise<void>[]): string[] {
    const { generic, apiBindings } = this.deps;
    const errors: string[] = [];
    let exportsMissing = false;
    let parentBindings: APIBinding[] | undefined;
    for (const ref of refs) {
      const exportCluster = this.resolvePath(ref.path);
      const found = exportCluster ? this.exportOf(exportCluster, ref.export) : undefined;
      const exportObj = found?.object;
      if (!exportObj) {
        if (!exportsMissing) errors.push(EXPORTS_MISSING);
        exportsMissing = true;
        continue;
      }
      parentBindings ??= this.parentBindings(lc);
      const wanted = desiredBinding(cluster, ref, exportObj, (claim) => inheritedSelector(parentBindings!, ref, claim));
      const name = wanted.metadata!.name!;
      const existing = this.getObject<APIBinding>(apiBindings, cluster, name);
      const ctx = { rt: apiBindings, cluster, namespace: '', user: lc.spec?.createdBy && { groups: [], ...lc.spec.createdBy } };
      try {
        if (!existing) {
          generic.create(ctx, wanted);
        } else if (JSON.stringify(existing.spec?.permissionClaims ?? []) !== JSON.stringify(wanted.spec?.permissionClaims ?? [])) {
          // kcp keeps the claims of a default binding equal to the export's (while initializing, or when maintained).
          if (initializing || ref.maintain) generic.update(ctx, name, { ...existing, spec: { ...existing.spec, permissionClaims: wanted.spec?.permissionClaims } });
        }
      } catch (err) {
        const question = `${cluster}/${ref.path}|${ref.export}`;
        if (found.shard && err instanceof StatusError && err.code === 403 && !this.asked.has(question) && apiBindings.strategy.admitAhead) {
          this.asked.add(question);
          asks.push(apiBindings.strategy.admitAhead(wanted, ctx));
          continue;
        }
        this.asked.delete(question);
        errors.push((err as Error).message);
      }
    }
    return errors;
  }

  /** The parent workspace's bindings, for kcp's claim-selector inheritance. */
  private parentBindings(lc: LogicalClusterView): APIBinding[] {
    const { parent } = splitPath(lc.metadata?.annotations?.[PATH_ANNOTATION] ?? '');
    const parentCluster = parent ? this.deps.paths.resolve(parent) : undefined;
    if (!parentCluster) return [];
    const prefix = `/registry/${this.deps.apiBindings.storagePrefix}/${parentCluster}/`;
    return this.deps.store.list(prefix).items.map((kv) => decodeStored(kv) as APIBinding);
  }

  /** Default bindings not bound yet, named as kcp reports them. */
  private incomplete(cluster: string, refs: DefaultExportRef[]): string[] {
    const prefix = `/registry/${this.deps.apiBindings.storagePrefix}/${cluster}/`;
    const byExport = new Map<string, APIBinding>();
    for (const kv of this.deps.store.list(prefix).items) {
      const b = decodeStored(kv) as APIBinding;
      const exp = b.spec?.reference?.export;
      if (exp?.name) byExport.set(`${exp.path ?? ''}|${exp.name}`, b);
    }
    const out: string[] = [];
    for (const ref of refs) {
      const b = byExport.get(`${ref.path}|${ref.export}`);
      if (!b) out.push(`for APIExport ${ref.path}|${ref.export}`);
      else if (!isBound(b)) out.push(b.metadata!.name!);
    }
    return out;
  }

  /**
   * Writes `condition` on the LogicalCluster when it changes; with `finish`, also removes the initializer (the
   * workspace controller then turns the workspace Ready).
   */
  private setConditions(cluster: string, lc: LogicalClusterView, condition: Condition, finish = false): void {
    const status = lc.status ?? {};
    const conditions = setCondition(status.conditions ?? [], condition, nowTimestamp());
    const initializers = status.initializers ?? [];
    const removing = finish && initializers.includes(APIBINDINGS_INITIALIZER);
    if (!conditions && !removing) return;
    const next: LogicalClusterView['status'] = { ...status, conditions: conditions ?? status.conditions };
    if (removing) {
      const left = initializers.filter((i) => i !== APIBINDINGS_INITIALIZER);
      if (left.length > 0) next.initializers = left;
      else delete next.initializers;
    }
    this.deps.generic.update({ rt: this.deps.logicalClusters, cluster, namespace: '' }, 'cluster', { ...lc, status: next }, { withStatus: true });
    if (removing) this.forget(cluster);
  }
}
