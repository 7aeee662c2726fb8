/**
 * kcp's APIBinding controller: resolves `spec.reference.export` (empty path = the binding's own workspace), checks
 * the export (found, identity, schemas), refuses naming conflicts (one owner per group/resource per workspace: a
 * local CRD or another binding that already serves it), and records what is bound in `status.boundResources` —
 * which is what the catalogs serve (bound-apis.ts). Phases go "" → Binding → Bound; Ready mirrors
 * InitialBindingCompleted. When an export points a resource at a new APIResourceSchema, every binding of the export
 * (from the binding index) follows; objects stay, stored under the same identity. Deleting a binding first deletes
 * its objects in the workspace, then drops the finalizer.
 */
import { deleteStoredObjects } from '../controllers/delete-stored-objects.js';
import { splitClusterKey, WorkQueue } from '../controllers/work-queue.js';
import { jsonEqual } from '../machinery/canonical-json.js';
import type { GenericStore, OpContext } from '../registry/generic-store.js';
import { nowTimestamp } from '../registry/object-rules.js';
import { decodeStored } from '../registry/stored-object.js';
import type { ResourceType } from '../registry/types.js';
import type { Store, WatchHandle } from '../storage/store.js';
import type { CustomResourceDefinition } from '../apiextensions/crd.js';
import type { BoundAPIs } from './bound-apis.js';
import { BindingIndex } from './binding-index.js';
import { conditionOf, setCondition, type ConditionChange } from './conditions.js';
import { BINDING_FINALIZER, BINDINGS, BINDINGS_PREFIX, boundStoragePrefix, EXPORTS_PREFIX, SCHEMAS_PREFIX } from './names.js';
import { pendingKeys, ROLLOUTS, rolloutRow } from './pending.js';
import type { APIBinding, APIExport, APIResourceSchema, BoundResource } from './types.js';

export interface BindingControllerDeps {
  store: Store;
  generic: GenericStore;
  /** The stored version (v1alpha2) of APIBinding. */
  bindingType: ResourceType;
  bound: BoundAPIs;
  resolvePath(path: string): string | undefined;
  pathOf(cluster: string): string | undefined;
  /** The CRDs of a cluster (the CRD catalogs' cached view). */
  crdsOf(cluster: string): CustomResourceDefinition[];
  /** Called when a cluster's CRDs may change: `listener(cluster)`. */
  onCRDChange(listener: (cluster: string) => void): void;
  /** A binding of `group` came or went in `cluster`: re-check the names of its CRDs. */
  recheckCRDs(cluster: string, group: string): void;
  onError?(controller: string, key: string, err: unknown): void;
}

type Status = NonNullable<APIBinding['status']>;

/** Queue keys of export jobs (`@export|<cluster>|<name>`); binding keys are `<cluster>|<name>`. */
const EXPORT_KEY = '@export|';

/**
 * Safety retry while the export, its identity or a schema is missing. Bindings waiting on an export are also kept
 * by export name and queued as soon as an export of that name changes, so this only catches what no export event
 * announces (the export's workspace created later, a schema created after the export).
 */
const WAIT_MS = 30_000;

export class BindingController {
  private readonly queue: WorkQueue;
  private readonly index: BindingIndex;
  private readonly watches: WatchHandle[] = [];
  /**
   * Export name (or `schema:<name>`) → keys of bindings waiting for an export of that name to appear or get its
   * identity, or for a schema of that name to appear.
   */
  private readonly waiting = new Map<string, Set<string>>();

  constructor(private readonly deps: BindingControllerDeps) {
    this.queue = new WorkQueue('apibinding', (key) => this.reconcile(key), deps.onError);
    this.index = new BindingIndex(deps.store);
  }

  start(): void {
    const { store, bound } = this.deps;
    const from = store.currentRevision();
    bound.onChange((cluster, resources, binding) => {
      this.queue.add(`${cluster}|${binding.metadata!.name}`);
      for (const group of new Set(resources.map((r) => r.slice(r.indexOf('.') + 1)))) this.deps.recheckCRDs(cluster, group);
    });
    // An export changed (schemas rolled forward, identity set): every binding of it follows.
    this.watches.push(
      store.watch(EXPORTS_PREFIX, from, (events) => {
        for (const e of events) {
          const rest = e.key.slice(EXPORTS_PREFIX.length);
          this.queue.add(`${EXPORT_KEY}${rest.replace('/', '|')}`);
          this.wake(rest.slice(rest.indexOf('/') + 1));
        }
      }),
    );
    this.watches.push(
      store.watch(SCHEMAS_PREFIX, from, (events) => {
        for (const e of events) if (e.type === 'ADDED') this.wake(`schema:${e.key.slice(e.key.lastIndexOf('/') + 1)}`);
      }),
    );
    // The same for other shards' exports and schemas, replicated here.
    bound.onReplicaChange((kind, cluster, name) => {
      if (kind === 'apiexports') {
        this.queue.add(`${EXPORT_KEY}${cluster}|${name}`);
        this.wake(name);
      } else if (kind === 'apiresourceschemas') this.wake(`schema:${name}`);
    });
    for (const key of pendingKeys((p) => store.list(p).items, ROLLOUTS)) this.queue.add(`${EXPORT_KEY}${key}`);
    // A CRD came or went: bindings of that workspace waiting on a naming conflict look again.
    this.deps.onCRDChange((cluster) => {
      for (const b of bound.bindingsIn(cluster)) {
        if (conditionOf(b.status?.conditions, 'BindingUpToDate')?.status !== 'True') this.queue.add(`${cluster}|${b.metadata!.name}`);
      }
    });
    for (const key of pendingKeys((p) => store.list(p).items, BINDINGS)) this.queue.add(key);
  }

  /** Queues the bindings waiting for `what`. */
  private wake(what: string): void {
    for (const key of this.waiting.get(what) ?? []) this.queue.add(key);
    this.waiting.delete(what);
  }

  stop(): void {
    for (const w of this.watches) w.cancel();
    this.queue.stop();
  }

  idle(): Promise<void> {
    return this.queue.idle();
  }

  private ctx(cluster: string): OpContext {
    return { rt: this.deps.bindingType, cluster, namespace: '' };
  }

  private reconcile(key: string) {
    if (key.startsWith(EXPORT_KEY)) return this.rollOut(key.slice(EXPORT_KEY.length));
    const { cluster, name } = splitClusterKey(key);
    const kv = this.deps.store.get(`${BINDINGS_PREFIX}${cluster}/${name}`);
    if (!kv) return undefined;
    const binding = decodeStored(kv) as APIBinding;
    if (binding.metadata?.deletionTimestamp) return this.cleanUp(cluster, binding);
    return this.bind(cluster, binding);
  }

  /**
   * Moves every binding of an export to its current resources, one after the other in this job, then forgets the
   * export's rollout row: a restart in the middle resumes from the row.
   */
  private rollOut(key: string) {
    const { cluster, name } = splitClusterKey(key);
    let retry: { requeueAfterMs: number } | undefined;
    for (const b of this.index.bindingsOf(cluster, name)) {
      const result = this.reconcile(`${b.cluster}|${b.binding}`);
      if (result) retry = result;
    }
    if (retry) return retry;
    const row = rolloutRow(cluster, name);
    if (this.deps.store.get(row)) this.deps.store.commit([{ type: 'delete', key: row }]);
    return undefined;
  }

  private bind(cluster: string, binding: APIBinding) {
    const { store, bound } = this.deps;
    const now = nowTimestamp();
    const status: Status = structuredClone(binding.status ?? {});
    status.phase ??= '';
    const set = (change: ConditionChange) => (status.conditions = setCondition(status.conditions, change, now));
    const key = `${cluster}|${binding.metadata!.name}`;
    const waitFor = (exportName: string) => {
      let set = this.waiting.get(exportName);
      if (!set) this.waiting.set(exportName, (set = new Set()));
      set.add(key);
    };
    const write = (retryMs?: number) => {
      const initial = conditionOf(status.conditions, 'InitialBindingCompleted');
      set({
        type: 'Ready',
        status: initial?.status ?? 'Unknown',
        reason: initial?.status === 'True' ? undefined : (initial?.reason ?? 'Binding'),
        message: initial?.status === 'True' ? undefined : initial?.message,
        severity: initial?.severity,
      });
      this.writeStatus(cluster, binding, status);
      return retryMs ? { requeueAfterMs: retryMs } : undefined;
    };

    const ref = binding.spec.reference.export;
    const exportPath = ref.path || this.deps.pathOf(cluster) || cluster;
    const exportCluster = ref.path ? this.deps.resolvePath(ref.path) : cluster;
    const found = exportCluster ? bound.exportOf(exportCluster, ref.name) : undefined;
    // Just started: another shard's export may not be replicated yet; a binding is not told it is gone meanwhile.
    if ((!exportCluster || !found) && !bound.replicaSynced()) return { requeueAfterMs: 250 };
    if (!exportCluster || !found) {
      set({ type: 'APIExportValid', status: 'False', reason: 'APIExportNotFound', message: `APIExport ${exportPath}|${ref.name} not found` });
      waitFor(ref.name);
      return write(WAIT_MS);
    }
    const exp = found.object;
    const identityHash = exp.status?.identityHash;
    if (!identityHash) {
      set({ type: 'APIExportValid', status: 'False', reason: 'MissingIdentityHash', message: `APIExport ${exportPath}|${ref.name} is missing status.identityHash` });
      waitFor(ref.name);
      return write(WAIT_MS);
    }
    const schemas: APIResourceSchema[] = [];
    for (const r of exp.spec?.resources ?? []) {
      const schema = bound.schema(exportCluster, r.schema);
      if (!schema && !bound.replicaSynced()) return { requeueAfterMs: 250 };
      if (!schema) {
        set({
          type: 'APIExportValid',
          status: 'False',
          reason: 'InternalError',
          message: `Invalid APIExport. Please contact the APIExport owner to resolve: APIResourceSchema ${JSON.stringify(r.schema)} not found`,
        });
        waitFor(`schema:${r.schema}`);
        return write(WAIT_MS);
      }
      schemas.push(schema);
    }
    set({ type: 'APIExportValid', status: 'True' });
    // exportPermissionClaims, appliedPermissionClaims and the claim conditions belong to the permission-claims
    // controller; this one keeps whatever it finds there.
    status.apiExportClusterName = exportCluster;
    if (status.phase === '') {
      status.phase = 'Binding';
      set({ type: 'InitialBindingCompleted', status: 'False', reason: 'WaitingForEstablished', message: 'Waiting for API(s) to be established', severity: 'Info' });
      binding = this.writeStatus(cluster, binding, status);
    }

    const conflicts = this.conflicts(cluster, binding.metadata!.name!, schemas);
    if (conflicts.length > 0) {
      const message = `Unable to bind APIs: ${conflicts.join(', ')}`;
      if (conditionOf(status.conditions, 'InitialBindingCompleted')?.status !== 'True') {
        set({ type: 'InitialBindingCompleted', status: 'False', reason: 'NamingConflicts', message });
      }
      set({ type: 'BindingUpToDate', status: 'False', reason: 'NamingConflicts', message });
      return write();
    }
    const before = new Map((status.boundResources ?? []).map((r) => [`${r.resource}.${r.group}`, r]));
    status.boundResources = schemas.map((schema): BoundResource => {
      const group = schema.spec.group;
      const resource = schema.spec.names.plural;
      const storage = schema.spec.versions.find((v) => v.storage)?.name;
      const versions = new Set(before.get(`${resource}.${group}`)?.storageVersions ?? []);
      if (storage) versions.add(storage);
      return { group, resource, schema: { name: schema.metadata!.name!, UID: schema.metadata!.uid!, identityHash }, storageVersions: [...versions] };
    });
    status.phase = 'Bound';
    set({ type: 'InitialBindingCompleted', status: 'True' });
    set({ type: 'BindingUpToDate', status: 'True' });
    return write();
  }

  /** What already serves one of the schemas' group/resources in the workspace (other bindings, local CRDs). */
  private conflicts(cluster: string, self: string, schemas: APIResourceSchema[]): string[] {
    const out: string[] = [];
    for (const schema of schemas) {
      const group = schema.spec.group;
      const resource = schema.spec.names.plural;
      const owner = this.deps.bound.owner(cluster, group, resource);
      if (owner && owner.binding !== self) {
        out.push(`naming conflict with APIBinding ${JSON.stringify(owner.binding)} which serves ${resource}.${group}`);
        continue;
      }
      const crd = this.deps
        .crdsOf(cluster)
        .find((c) => c.spec?.group === group && (c.status?.acceptedNames?.plural ?? c.spec.names.plural) === resource);
      if (crd) out.push(`naming conflict with CustomResourceDefinition ${JSON.stringify(crd.metadata?.name)} which serves ${resource}.${group}`);
    }
    return out;
  }

  private writeStatus(cluster: string, binding: APIBinding, status: Status): APIBinding {
    if (jsonEqual(status, binding.status ?? {})) return binding;
    return this.deps.generic.update(this.ctx(cluster), binding.metadata!.name!, { ...binding, status }, { subresource: 'status' }) as APIBinding;
  }

  /** Deletes the binding's objects in this workspace; once none are left, drops the finalizer. */
  private cleanUp(cluster: string, binding: APIBinding) {
    const { store, generic, bound } = this.deps;
    const finalizers = binding.metadata?.finalizers ?? [];
    if (!finalizers.includes(BINDING_FINALIZER)) return undefined;
    const name = binding.metadata!.name!;
    let remaining = 0;
    for (const r of binding.status?.boundResources ?? []) {
      const prefix = `/registry/${boundStoragePrefix(r.group, r.resource, r.schema.identityHash)}/${cluster}/`;
      const rt = bound.apisIn(cluster).find((a) => a.binding === name && a.group === r.group && a.resource === r.resource)?.types[0];
      if (!rt) {
        // The schema is gone, so the type cannot be served any more: remove the objects as they are.
        for (const item of store.list(prefix).items) store.commit([{ type: 'delete', key: item.key }]);
        continue;
      }
      remaining += deleteStoredObjects(store, generic, rt, cluster, prefix);
    }
    if (remaining > 0) return { requeueAfterMs: 1000 };
    generic.update(this.ctx(cluster), name, {
      ...binding,
      metadata: { ...binding.metadata, finalizers: finalizers.filter((f) => f !== BINDING_FINALIZER) },
    });
    return undefined;
  }
}
