/**
 * One generic REST store for every resource type: get, list, create, update, delete, deletecollection on top of
 * the Store, with the fixed pipeline of k8s.io/apiserver (system metadata → generate name → namespace checks →
 * strategy prepare → validation → storage). Per-type policy lives in the ResourceType's strategy; watch is in
 * watch-stream.ts, patch in patch-handler.ts.
 */
import { randomUUID } from 'node:crypto';
import { generateName } from '../machinery/generate-name.js';
import {
  alreadyExists,
  badRequest,
  conflict,
  fieldErrors,
  forbidden,
  invalid,
  notFound,
  StatusError,
  type FieldError,
  qualifiedResource,
} from '../machinery/status.js';
import { objectTooLarge } from './object-size.js';
import { metadataTypeErrors, validateObjectMeta } from '../machinery/validation.js';
import {
  KeyExistsError,
  KeyNotFoundError,
  RevisionConflictError,
  type KeyValue,
  type Store,
  type WriteOp,
  type WriteResult,
} from '../storage/store.js';
import {
  checkTypeMeta,
  createDeletionMarker,
  deletionMarkerKey,
  fromStorage,
  nowTimestamp,
  protectedNamespaces,
  removeRow,
  specChanged,
  toStorage,
} from './object-rules.js';
import { FieldManager, SERVER_MANAGER } from './field-manager.js';
import { finalizersAfterDelete } from './gc-finalizers.js';
import { updateScopeOf } from './update-scopes.js';
import type { IndexChange, IndexWriter } from './index-writer.js';
import { clusterAnnotation, decodeStored, encodeStored, objectKey } from './stored-object.js';
import type { KubeObject, ResourceType, StrategyContext } from './types.js';
import type { CreateAdmission, WriteReview } from './write-admission.js';

export { deletionMarkerKey, deletionMarkerPrefix, fromStorage, nowTimestamp, toStorage } from './object-rules.js';

export interface OpContext extends StrategyContext {
  rt: ResourceType;
  namespace: string;
}

export interface WriteOptions {
  dryRun?: boolean;
  /** The subresource written: `status` and `finalize` change only their part; any subresource is recorded in managedFields. */
  subresource?: string;
  /** Who makes the write, recorded in managedFields (default: the server itself). */
  fieldManager?: string;
  /** Server-side apply already computed the object's managedFields: store them as they are. */
  fieldsApplied?: boolean;
  /**
   * A write the server makes itself may set status together with the rest of the object (a controller creating
   * a LogicalCluster already Ready). Clients never get this: for them status goes through its subresource.
   */
  withStatus?: boolean;
  /**
   * Only for a settler's update of the object its create is storing (see CreateFoldedWrites), with `current` and
   * `batch`: the server built `input` from the object the create pipeline has just checked, adding only fields it
   * owns, and hands it over (it is not copied). Type meta, system metadata, defaults, the write review and validation
   * are not run again; managedFields, generation, the cluster annotation and the stored encoding are computed as
   * for every update. Ignored anywhere else.
   */
  settled?: boolean;
  /** Collect the write's storage ops in this batch instead of committing them (see WriteBatch). */
  batch?: WriteBatch;
  /**
   * The stored row and the object decoded from it (as served, never modified), when the caller has just read them:
   * saves reading and parsing them again. The write still fails with a conflict if the row changed meanwhile.
   */
  current?: { row: KeyValue; object: KubeObject };
  /** The input is the caller's to give (a request body decoded for this write): changed in place, not copied. */
  ownsInput?: boolean;
}

/**
 * Several writes committed as one transaction: each write prepared with `{ batch }` adds its ops here, and
 * `GenericStore.commitBatch` commits them all (or none). Writes in a batch must not read each other's results, with
 * one exception: content may be created in a namespace the same batch creates (a workspace's namespaces and
 * their `default` ServiceAccounts are one commit).
 */
export class WriteBatch {
  readonly ops: WriteOp[] = [];
  /** Where each write's ops start in `ops`. */
  readonly starts: number[] = [];
  readonly onCommit: Array<(results: WriteResult[]) => void> = [];
  /** Per write (as `starts`): the object it stores, when it stores one through the pipeline (an update). */
  readonly objects: Array<KubeObject | undefined> = [];
  /** `<cluster>/<namespace>` of the Namespaces this batch creates. */
  readonly namespaces = new Set<string>();

  add(ops: WriteOp[], done: (first: WriteResult) => void, stored?: KubeObject): void {
    const at = this.ops.length;
    this.starts.push(at);
    this.objects.push(stored);
    this.ops.push(...ops);
    this.onCommit.push((results) => done(results[at]!));
  }

  get size(): number {
    return this.ops.length;
  }
}

export interface DeleteOptions {
  dryRun?: boolean;
  gracePeriodSeconds?: number;
  propagationPolicy?: string;
  /** Legacy form of propagationPolicy Orphan. */
  orphanDependents?: boolean;
  preconditions?: { uid?: string; resourceVersion?: string };
  /** Collect the delete's storage ops in this batch instead of committing them. */
  batch?: WriteBatch;
  /**
   * The object's stored row, when the caller has just read it (a LIST): saves reading it again; with the object the
   * caller decoded from it (as served, never modified: the delete changes a copy), saves parsing it again too.
   */
  current?: { row: KeyValue; object?: KubeObject };
  /**
   * A controller's own answer to the first mark, written in the marking row (as the server's field manager): what it
   * would otherwise write in the very next commit, read back from the mark it has just made. It may replace the
   * mark's top-level fields (metadata, status), not edit what they hold: that is shared with the stored object.
   */
  alsoOnMark?: (marked: KubeObject) => void;
  /**
   * The delete is the system's removal of the whole logical cluster (tenancy's cluster deleter, never a request): a
   * protected namespace (`default`, `kube-system`, …) that still holds something may then be marked as any other.
   */
  clusterDeletion?: boolean;
}

export type DeleteResult = { removed: true; object: KubeObject } | { removed: false; object: KubeObject };

const namespacesType = { group: '', resource: 'namespaces' };

export interface GenericStoreExtensions {
  /** Secondary keys committed together with every object write (see index-writer.ts). */
  indexWriters?: readonly IndexWriter[];
  /** A garbage collector runs, so DELETE may add the `orphan` and `foregroundDeletion` finalizers it removes. */
  garbageCollection?: boolean;
  /** Validating admission on create (write-admission.ts): may refuse, may add writes to the object's commit. */
  admission?: CreateAdmission;
  /** Who may write which field (write-admission.ts): every store has one, so no write goes around it. */
  authority: WriteReview;
}

/**
 * The writes a controller would make right after an object of one type is created (its first reconcile), prepared
 * against the object about to be stored (`row`: its key and value, revision 0). When the batch updates the object
 * itself, that update becomes the create's final value (WriteOp `firstValue`): one commit, the row written once,
 * watchers still see ADDED then MODIFIED. Returns undefined to leave the work to the controller.
 */
export type CreateFoldedWrites = (created: KubeObject, row: KeyValue) => WriteBatch | undefined;

export class GenericStore {
  readonly fields: FieldManager;
  /** Asked on every create, update and delete, whoever makes it: there is no write path around it. */
  readonly authority: WriteReview;
  private readonly settlers: Map<string, CreateFoldedWrites>;
  /**
   * Key of the object a settler is running for (see settle): its update's secondary-key ops would be thrown away
   * (the create's are computed from the final state), so update does not compute them.
   */
  private settling: string | undefined;

  /** Folds `settle`'s writes into the commit of every create of `rt` made outside a batch (see CreateFoldedWrites). */
  foldIntoCreatesOf(rt: ResourceType, settle: CreateFoldedWrites): void {
    this.settlers.set(rt.storagePrefix, settle);
  }

  constructor(
    readonly store: Store,
    /** The Namespace ResourceType, for existence checks on namespaced creates. */
    private readonly namespaceType: ResourceType,
    private readonly extensions: GenericStoreExtensions,
    /** The store whose field manager and settlers this one shares (see `over`). */
    shared?: GenericStore,
  ) {
    this.fields = shared?.fields ?? new FieldManager();
    this.settlers = shared?.settlers ?? new Map();
    this.authority = shared?.authority ?? extensions.authority;
  }

  /**
   * This pipeline (field manager, settlers, admission, index writers) over a view of the store: every read and write
   * it makes goes through `store`, which may hide objects and refuse writes (scoped-store.ts).
   */
  over(store: Store): GenericStore {
    return new GenericStore(store, this.namespaceType, this.extensions, this);
  }

  key(ctx: OpContext, name: string): string {
    return objectKey(ctx.rt, ctx.cluster, ctx.namespace, name);
  }

  getRaw(ctx: OpContext, name: string): KeyValue {
    const kv = this.store.get(this.key(ctx, name));
    if (!kv) throw notFound(ctx.rt, name);
    return kv;
  }

  get(ctx: OpContext, name: string): KubeObject {
    return fromStorage(ctx.rt, decodeStored(this.getRaw(ctx, name)));
  }

  create(ctx: OpContext, input: KubeObject, opts: WriteOptions = {}): KubeObject {
    return this.createStored(ctx, input, opts).object;
  }

  /**
   * create, also returning the bytes stored for the object as created (the text of its ADDED event, without
   * resourceVersion): an answer in JSON splices the revision into them instead of serializing the object again.
   * No `stored` for a dry run or a batched create (not committed yet).
   */
  createStored(ctx: OpContext, input: KubeObject, opts: WriteOptions = {}): { object: KubeObject; stored?: string } {
    const { rt } = ctx;
    const obj = opts.ownsInput ? input : structuredClone(input);
    checkTypeMeta(rt, obj);
    const meta = (obj.metadata ??= {});
    if (meta.resourceVersion) {
      throw invalid(rt, meta.name ?? '', [
        fieldErrors.invalid('metadata.resourceVersion', meta.resourceVersion, 'must be empty'),
      ]);
    }
    this.applyRequestNamespace(ctx, obj);
    let generated = false;
    if (!meta.name && meta.generateName) {
      meta.name = generateName(meta.generateName);
      generated = true;
    }
    // System-owned metadata is set by the server, whatever the client sent.
    meta.uid = randomUUID();
    meta.creationTimestamp = nowTimestamp();
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    if (rt.strategy.tracksGeneration) meta.generation = 1;
    else delete meta.generation;
    // A copy, then the key set (a literal with a spread and a computed key costs more); a sent value keeps its place.
    const annotations: Record<string, string> = meta.annotations ? { ...meta.annotations } : {};
    annotations[clusterAnnotation] = ctx.cluster;
    meta.annotations = annotations;
    if (rt.strategy.hasStatusSubresource && rt.strategy.tracksGeneration && !opts.withStatus) delete obj.status;
    rt.strategy.defaults?.(obj, ctx);
    // Ownership is recorded for what the client sent (after defaulting), before the strategy adds server state.
    if (!opts.fieldsApplied) this.fields.recordWrite(rt, undefined, obj, { manager: opts.fieldManager ?? SERVER_MANAGER });
    const refusal = this.authority.review({ group: rt.group, resource: rt.resource, cluster: ctx.cluster, ctx, object: obj });
    this.authority.stamp(rt.group, rt.resource, ctx.cluster, obj);
    rt.strategy.prepareForCreate?.(obj, ctx);
    this.validate(ctx, obj, undefined);
    if (refusal) throw refusal;
    if (rt.namespaced && !opts.batch?.namespaces.has(`${ctx.cluster}/${ctx.namespace}`)) this.checkNamespaceAcceptsContent(ctx);
    // What admission reads, named (a spread of the whole request context cost more than the rest of the call).
    const attributes = { rt, cluster: ctx.cluster, namespace: ctx.namespace, user: ctx.user, object: obj, dryRun: Boolean(opts.dryRun) };
    const admitted = this.extensions.admission?.validateCreate(attributes) ?? [];
    if (opts.dryRun) {
      delete meta.resourceVersion;
      return { object: obj };
    }
    const key = this.key(ctx, meta.name!);
    const value = encodeStored(toStorage(rt, obj));
    const tooLarge = objectTooLarge(value, `${qualifiedResource(rt)} "${meta.name}"`);
    if (tooLarge) throw tooLarge;
    const ops = (!opts.batch && this.settle(ctx, key, value, obj, admitted)) || [
      { type: 'create', key, value },
      ...this.indexOps(key, undefined, obj),
      ...admitted,
    ];
    if (opts.batch) {
      if (rt.storagePrefix === this.namespaceType.storagePrefix) opts.batch.namespaces.add(`${ctx.cluster}/${meta.name}`);
      opts.batch.add(ops, (result) => (meta.resourceVersion = String(result.revision)));
      return { object: obj };
    }
    try {
      const [result] = this.store.commit(ops);
      // The client is answered with the object as created: the revision of its ADDED.
      meta.resourceVersion = String(ops[0]!.type === 'create' && ops[0]!.firstValue !== undefined ? result.revision - 1 : result.revision);
      return { object: obj, stored: value };
    } catch (err) {
      if (err instanceof KeyExistsError && err.key === this.key(ctx, meta.name!)) {
        throw alreadyExists(rt, meta.name!, generated ? 1 : undefined);
      }
      throw err;
    }
  }

  /**
   * A create's ops with the settler's writes for the object folded in (see CreateFoldedWrites), or undefined when there
   * are none. The object's secondary keys are those of its final state: an index writer reading the store would
   * not see what the create itself adds.
   */
  private settle(ctx: OpContext, key: string, value: string, obj: KubeObject, admitted: WriteOp[]): WriteOp[] | undefined {
    const settle = this.settlers.get(ctx.rt.storagePrefix);
    if (!settle) return undefined;
    const created = { ...obj, metadata: { ...obj.metadata, resourceVersion: '0' } };
    let batch: WriteBatch | undefined;
    this.settling = key;
    try {
      batch = settle(created, { key, value, revision: 0, createRevision: 0 });
    } finally {
      this.settling = undefined;
    }
    if (!batch) return undefined;
    // The settler's update of the object (the object it stores, its op, and no index ops: see `settling`).
    const group = batch.starts.findIndex((at) => batch.ops[at]!.type === 'update' && batch.ops[at]!.key === key);
    if (group < 0) return [{ type: 'create', key, value }, ...this.indexOps(key, undefined, obj), ...admitted, ...batch.ops];
    const [from, to] = [batch.starts[group]!, batch.starts[group + 1] ?? batch.ops.length];
    const final = (batch.ops[from] as { value: string }).value;
    // Index writers get the object as the pipeline hands it to storage, as on every other write.
    const finalObject = batch.objects[group] ?? fromStorage(ctx.rt, decodeStored({ value: final, revision: 0 }));
    return [
      { type: 'create', key, value: final, firstValue: value },
      ...this.indexOps(key, undefined, finalObject),
      ...admitted,
      ...batch.ops.slice(0, from),
      ...batch.ops.slice(to),
    ];
  }

  /**
   * PUT semantics. `input` is the full new object. With `subresource: 'status'` only `.status` is taken from it.
   * `expectedRevision` (from a patch) pins the base revision the change was computed from.
   */
  update(ctx: OpContext, name: string, input: KubeObject, opts: WriteOptions = {}, expectedRevision?: number): KubeObject {
    const { rt } = ctx;
    const held = opts.current?.row.key === this.key(ctx, name) ? opts.current : undefined;
    if (opts.settled && held && opts.batch && held.row.key === this.settling) return this.settledUpdate(ctx, input, held, opts.batch);
    const current = held?.row ?? this.getRaw(ctx, name);
    const old = held?.object ?? fromStorage(rt, decodeStored(current));
    let obj = opts.ownsInput ? input : structuredClone(input);
    checkTypeMeta(rt, obj);
    const meta = (obj.metadata ??= {});
    if (meta.name && meta.name !== name) {
      throw badRequest(`the name of the object (${meta.name}) does not match the name on the URL (${name})`);
    }
    meta.name = name;
    this.applyRequestNamespace(ctx, obj);
    // kube reads "" and "0" alike as no resourceVersion: an unconditional update, which only some kinds allow. (A
    // create's settler updates the object at the pseudo-revision 0 before it is stored.)
    const sentVersion = meta.resourceVersion === '0' && current.revision !== 0 ? '' : meta.resourceVersion;
    if (sentVersion) {
      if (sentVersion !== String(current.revision)) throw conflict(rt, name);
    } else if (expectedRevision === undefined && !rt.strategy.allowUnconditionalUpdate) {
      throw resourceVersionRequired(rt, name);
    }
    if (expectedRevision !== undefined && expectedRevision !== current.revision) throw conflict(rt, name);
    if (meta.uid && meta.uid !== old.metadata!.uid) {
      throw conflict(rt, name, `Precondition failed: UID in precondition: ${meta.uid}, UID in object meta: ${old.metadata!.uid}`);
    }

    const applied = opts.fieldsApplied ? meta.managedFields : undefined;
    const subresource = opts.subresource;
    const scope = updateScopeOf(subresource);
    obj = scope.take(rt, obj, old, ctx, opts);
    if (opts.fieldsApplied) {
      if (applied === undefined) delete obj.metadata!.managedFields;
      else obj.metadata!.managedFields = applied;
    } else {
      this.fields.recordWrite(rt, old, obj, { manager: opts.fieldManager ?? SERVER_MANAGER, subresource });
    }
    const refusal = this.authority.review({ group: rt.group, resource: rt.resource, cluster: ctx.cluster, ctx, subresource, object: obj, old });
    if (scope.main) {
      this.authority.stamp(rt.group, rt.resource, ctx.cluster, obj);
      rt.strategy.prepareForUpdate?.(obj, old, ctx);
    }
    const objMeta = obj.metadata!;
    objMeta.annotations = { ...(objMeta.annotations ?? {}), [clusterAnnotation]: ctx.cluster };
    this.validate(ctx, obj, old);
    if (refusal) throw refusal;
    if (rt.strategy.tracksGeneration && specChanged(old, obj)) {
      objMeta.generation = (old.metadata!.generation ?? 0) + 1;
    }
    const encoded = encodeStored(toStorage(rt, obj));
    if (encoded === current.value) return old; // a no-op write keeps the resourceVersion and emits no event
    const tooLarge = objectTooLarge(encoded, `${qualifiedResource(rt)} "${name}"`);
    if (tooLarge) throw tooLarge;
    if (opts.dryRun) {
      objMeta.resourceVersion = String(current.revision);
      return obj;
    }
    const key = this.key(ctx, name);
    const ops: WriteOp[] = [{ type: 'update', key, value: encoded, expectedRevision: current.revision }];
    const finished = objMeta.deletionTimestamp && this.blockers(rt, obj).length === 0;
    if (finished) {
      ops.push({ type: 'delete', key });
      const marker = this.store.get(deletionMarkerKey(key));
      if (marker) ops.push(removeRow(marker));
    }
    if (!(opts.batch && key === this.settling)) ops.push(...this.indexOps(key, old, finished ? undefined : obj));
    if (opts.batch) {
      opts.batch.add(ops, (result) => (objMeta.resourceVersion = String(result.revision)), finished ? undefined : obj);
      return obj;
    }
    const results = this.commitOrConflict(ctx, name, ops);
    objMeta.resourceVersion = String(results[0].revision);
    return obj;
  }

  /**
   * WriteOptions.settled: what every update records, and nothing the create just checked. `obj` becomes the stored
   * object (its metadata is replaced, never edited in place: it may be shared with the created object).
   */
  private settledUpdate(ctx: OpContext, obj: KubeObject, held: { row: KeyValue; object: KubeObject }, batch: WriteBatch): KubeObject {
    const { rt } = ctx;
    const old = held.object;
    const meta = (obj.metadata = { ...obj.metadata });
    this.fields.recordWrite(rt, old, obj, { manager: SERVER_MANAGER });
    meta.annotations = { ...(meta.annotations ?? {}), [clusterAnnotation]: ctx.cluster };
    if (rt.strategy.tracksGeneration && specChanged(old, obj)) meta.generation = (old.metadata!.generation ?? 0) + 1;
    const encoded = encodeStored(toStorage(rt, obj));
    const tooLarge = objectTooLarge(encoded, `${qualifiedResource(rt)} "${meta.name}"`);
    if (tooLarge) throw tooLarge;
    // No index ops: the create's are computed from this final state (see `settling`).
    batch.add([{ type: 'update', key: held.row.key, value: encoded, expectedRevision: held.row.revision }], (result) => (meta.resourceVersion = String(result.revision)), obj);
    return obj;
  }

  /**
   * A controller lets go of its finalizer on an object being deleted. When it was the last thing holding the object,
   * the object goes in one delete, as kube's store does when an update empties the finalizers: watchers see only
   * DELETED (carrying the object as last stored) and none of update's pipeline runs for a state nobody will read.
   * Otherwise it is an ordinary update (and the object stays). `current` is the stored row `obj` was read from: the
   * delete is conditional on its revision. `removal`: what its index writers are told when it is removed. Returns
   * whether the object is removed.
   */
  releaseFinalizer(
    ctx: OpContext,
    current: KeyValue,
    obj: KubeObject,
    finalizer: string,
    opts: { batch?: WriteBatch; removal?: IndexChange } = {},
  ): boolean {
    const meta = obj.metadata ?? {};
    const finalizers = (meta.finalizers ?? []).filter((f) => f !== finalizer);
    const next = { ...obj, metadata: { ...meta, finalizers } };
    if (!meta.deletionTimestamp || this.blockers(ctx.rt, next).length > 0) {
      this.update(ctx, meta.name!, next, { batch: opts.batch });
      return false;
    }
    const ops: WriteOp[] = [{ type: 'delete', key: current.key, expectedRevision: current.revision }];
    const marker = this.store.get(deletionMarkerKey(current.key));
    if (marker) ops.push(removeRow(marker));
    ops.push(...this.indexOps(current.key, obj, undefined, opts.removal));
    if (opts.batch) opts.batch.add(ops, () => {});
    else this.commitOrConflict(ctx, meta.name!, ops);
    return true;
  }

  /** Commits every write collected in `batch` as one transaction; storage errors (a key that exists) fail all. */
  commitBatch(batch: WriteBatch): void {
    if (batch.size === 0) return;
    const results = this.store.commit(batch.ops);
    for (const done of batch.onCommit) done(results);
  }

  delete(ctx: OpContext, name: string, opts: DeleteOptions = {}): DeleteResult {
    const { rt } = ctx;
    const held = opts.current?.row.key === this.key(ctx, name) ? opts.current : undefined;
    const current = held?.row ?? this.getRaw(ctx, name);
    // The stored object, parsed once: `before` stays as stored (index writers compare it with the mark), and the
    // delete changes `obj`, whose metadata is its own; the strategies' prepareForDelete and alsoOnMark replace
    // status and metadata rather than edit them.
    const before = held?.object ?? fromStorage(rt, decodeStored(current));
    const obj: KubeObject = { ...before, metadata: { ...before.metadata } };
    const meta = obj.metadata!;
    const pre = opts.preconditions;
    if (pre?.uid && pre.uid !== meta.uid) {
      throw conflict(rt, name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${meta.uid}`);
    }
    if (pre?.resourceVersion && pre.resourceVersion !== meta.resourceVersion) {
      throw conflict(
        rt,
        name,
        `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${meta.resourceVersion}`,
      );
    }
    const refusal = this.authority.reviewDelete({ group: rt.group, resource: rt.resource, cluster: ctx.cluster, ctx, object: obj });
    if (refusal) throw refusal;
    rt.strategy.admitDelete?.(obj, ctx);
    if (rt.resource === 'namespaces' && ctx.rt.group === '' && protectedNamespaces.has(name) && !opts.clusterDeletion) {
      throw forbidden(namespacesType, name, 'this namespace may not be deleted');
    }
    // With a collector running, the propagation policy becomes a GC finalizer; a repeated DELETE may swap it.
    const gcFinalizers = this.extensions.garbageCollection ? finalizersAfterDelete(meta.finalizers ?? [], opts) : undefined;
    if (gcFinalizers) {
      if (gcFinalizers.length > 0) meta.finalizers = gcFinalizers;
      else delete meta.finalizers;
    }
    const marker = deletionMarkerKey(current.key);
    if (this.blockers(rt, obj).length > 0) {
      // Something still has to clean up: mark the object and let the finalizers' owners finish the job.
      const wasDeleting = Boolean(meta.deletionTimestamp);
      if (wasDeleting && !gcFinalizers) return { removed: false, object: obj };
      if (!wasDeleting) {
        // kube's markAsDeleting (no kind here deletes gracefully): the first mark bumps a tracked generation,
        // and the grace period is always 0.
        meta.deletionTimestamp = nowTimestamp();
        meta.deletionGracePeriodSeconds = 0;
        if (typeof meta.generation === 'number' && meta.generation > 0) meta.generation += 1;
        rt.strategy.prepareForDelete?.(obj);
        if (opts.alsoOnMark) {
          // A shallow copy will do: alsoOnMark replaces top-level fields and never edits what they hold, and the
          // subtrees both sides share are what lets the field manager's change shape skip them.
          const marked = { ...obj };
          opts.alsoOnMark(obj);
          this.fields.recordWrite(rt, marked, obj, { manager: SERVER_MANAGER });
        }
      }
      if (opts.dryRun) return { removed: false, object: obj };
      const ops: WriteOp[] = [
        { type: 'update', key: current.key, value: encodeStored(toStorage(rt, obj)), expectedRevision: current.revision },
      ];
      // A new marker, or a touched one when the GC finalizers changed, tells controllers to look again.
      if (!this.store.get(marker)) ops.push(createDeletionMarker(marker, meta.finalizers ?? []));
      else if (wasDeleting) ops.push({ type: 'update', key: marker, value: '{}' });
      ops.push(...this.indexOps(current.key, before, obj));
      if (opts.batch) {
        opts.batch.add(ops, (result) => (obj.metadata!.resourceVersion = String(result.revision)));
        return { removed: false, object: obj };
      }
      const [result] = this.commitOrConflict(ctx, name, ops);
      // obj.metadata, not meta: prepareForDelete and alsoOnMark may have replaced it.
      obj.metadata!.resourceVersion = String(result.revision);
      return { removed: false, object: obj };
    }
    if (opts.dryRun) return { removed: true, object: obj };
    // Also reached by an object already being deleted whose only finalizer was a GC one this DELETE dropped.
    const ops: WriteOp[] = [{ type: 'delete', key: current.key, expectedRevision: current.revision }];
    const markerRow = meta.deletionTimestamp ? this.store.get(marker) : undefined;
    if (markerRow) ops.push(removeRow(markerRow));
    ops.push(...this.indexOps(current.key, obj, undefined));
    if (opts.batch) {
      opts.batch.add(ops, (result) => (obj.metadata!.resourceVersion = String(result.revision)));
      return { removed: true, object: obj };
    }
    const [result] = this.commitOrConflict(ctx, name, ops);
    meta.resourceVersion = String(result.revision);
    return { removed: true, object: obj };
  }

  /** The secondary-key ops every index writer asks for with this change (also for writes made past the pipeline). */
  indexOps(key: string, before: KubeObject | undefined, after: KubeObject | undefined, change?: IndexChange): WriteOp[] {
    const writers = this.extensions.indexWriters;
    const ops: WriteOp[] = [];
    if (!writers) return ops;
    // A loop, not flatMap: a dozen writers run on every write and nearly all answer [] (flatMap cost ~10× as much).
    for (const write of writers) for (const op of write(key, before, after, change)) ops.push(op);
    return ops;
  }

  private blockers(rt: ResourceType, obj: KubeObject): string[] {
    return [...(obj.metadata?.finalizers ?? []), ...(rt.strategy.deletionBlockers?.(obj) ?? [])];
  }

  private commitOrConflict(ctx: OpContext, name: string, ops: WriteOp[]) {
    try {
      return this.store.commit(ops);
    } catch (err) {
      if (err instanceof RevisionConflictError) throw conflict(ctx.rt, name);
      if (err instanceof KeyNotFoundError) throw notFound(ctx.rt, name);
      throw err;
    }
  }

  private applyRequestNamespace(ctx: OpContext, obj: KubeObject): void {
    const meta = obj.metadata!;
    if (!ctx.rt.namespaced) {
      delete meta.namespace;
      return;
    }
    if (meta.namespace && meta.namespace !== ctx.namespace) {
      throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    meta.namespace = ctx.namespace;
  }

  private validate(ctx: OpContext, obj: KubeObject, old: KubeObject | undefined): void {
    const { rt } = ctx;
    // Metadata of the wrong shape first: the update rules below read finalizers as a list.
    const shape = metadataTypeErrors(obj.metadata ?? {});
    if (shape.length > 0) throw invalid(rt, obj.metadata?.name ?? obj.metadata?.generateName ?? '', shape);
    const errors: FieldError[] = validateObjectMeta(obj.metadata ?? {}, {
      namespaced: rt.namespaced,
      nameValidation: rt.strategy.nameValidation ?? 'subdomain',
      isCreate: old === undefined,
      typesChecked: true,
    });
    if (old) {
      const added = (obj.metadata?.finalizers ?? []).filter((f) => !(old.metadata?.finalizers ?? []).includes(f));
      if (old.metadata?.deletionTimestamp && added.length > 0) {
        errors.push(
          fieldErrors.forbidden(
            'metadata.finalizers',
            `no new finalizers can be added if the object is being deleted, found new finalizers ${JSON.stringify(added)}`,
          ),
        );
      }
      errors.push(...(rt.strategy.validateUpdate?.(obj, old, ctx) ?? []));
    }
    errors.push(...(rt.strategy.validate?.(obj, ctx, old) ?? []));
    if (errors.length > 0) throw invalid(rt, obj.metadata?.name ?? obj.metadata?.generateName ?? '', errors);
    rt.strategy.admit?.(obj, old, ctx);
  }

  private checkNamespaceAcceptsContent(ctx: OpContext): void {
    const kv = this.store.get(objectKey(this.namespaceType, ctx.cluster, '', ctx.namespace));
    if (!kv) throw notFound(namespacesType, ctx.namespace);
    // Without the key anywhere in its text the namespace is not being deleted: no need to parse it.
    if (!kv.value.includes('"deletionTimestamp"')) return;
    const ns = JSON.parse(kv.value) as KubeObject;
    if (ns.metadata?.deletionTimestamp) {
      throw new StatusError(
        403,
        'Forbidden',
        `${ctx.rt.group ? `${ctx.rt.resource}.${ctx.rt.group}` : ctx.rt.resource} is forbidden: unable to create new content in namespace ${ctx.namespace} because it is being terminated`,
        {
          group: ctx.rt.group,
          kind: ctx.rt.resource,
          causes: [
            {
              reason: 'NamespaceTerminating',
              message: `namespace ${ctx.namespace} is being terminated`,
              field: 'metadata.namespace',
            },
          ],
        },
      );
    }
  }
}

/**
 * kube's refusal of an update without a resourceVersion: it names the resource (plural), not the kind, and prints
 * the version as Go prints the uint64 it parsed (`0x0`).
 */
function resourceVersionRequired(rt: ResourceType, name: string) {
  return invalid({ group: rt.group, kind: rt.resource }, name, [
    { type: 'FieldValueInvalid', field: 'metadata.resourceVersion', detail: 'Invalid value: 0x0: must be specified for an update' },
  ]);
}
