/**
 * Field ownership for every write to every resource, as kube-apiserver's field manager keeps it: creates, updates
 * and non-apply patches record their manager's changes (`operation: Update`), server-side apply merges a
 * configuration and owns exactly its fields (`operation: Apply`), both in `metadata.managedFields`. The SSA
 * algorithms live in machinery/ssa; this module adds kube's request-level rules around them.
 */
import { compareValues } from '../machinery/ssa/compare.js';
import { FieldSet, FieldTrackingTooLarge, withPathBudget, type Path } from '../machinery/ssa/fieldset.js';
import { requestEntityTooLarge } from '../machinery/status.js';
import { applyConfig, Managers, recordUpdate, type ManagedFieldsEntry } from '../machinery/ssa/apply.js';
import { toFieldSet } from '../machinery/ssa/to-field-set.js';
import { typeFromOpenAPI, withObjectMeta, type TypeInfo } from '../machinery/ssa/type-info.js';
import { canonical, canonicalJSON } from '../machinery/canonical-json.js';
import { nowTimestamp } from './object-rules.js';
import { schemasOf } from './schemas.js';
import { clusterAnnotation } from './stored-object.js';
import { apiVersionOf, type KubeObject, type ResourceType } from './types.js';
import { UpdateFieldsCache } from './update-fields.js';
import { deepFreeze } from '../machinery/deep-freeze.js';

export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';
/** Manager of writes the server makes itself (controllers, bootstrap). */
export const SERVER_MANAGER = 'kcpt';
/** kubectl's server-side apply manager: the only one upgraded from client-side apply (kube's rule). */
const KUBECTL_APPLY_MANAGER = 'kubectl';

export interface WriteFields {
  manager: string;
  subresource?: string;
}

type Obj = Record<string, unknown>;

/** Create results remembered per resource type (see recordCreate). */
const CACHED_CREATE_SHAPES = 256;

export class FieldManager {
  private readonly types = new WeakMap<ResourceType, TypeInfo>();
  /**
   * Per type: shape of a created object (+ manager, subresource) → its managedFields, minus the time. First in,
   * first out (as the row cache): a hit on every create is one Map lookup, where lru-cache's get cost as much as
   * computing the shape.
   */
  private readonly createShapes = new WeakMap<ResourceType, Map<string, readonly ManagedFieldsEntry[]>>();
  /** Per type: update results by shape of change (update-fields.ts). */
  private readonly updates = new UpdateFieldsCache();


  /** The schema facts SSA needs for a resource type (list and map types), built once per type. */
  typeInfo(rt: ResourceType): TypeInfo {
    let t = this.types.get(rt);
    if (!t) {
      const schemas = schemasOf(rt);
      const root = rt.openapiSchemaName ? schemas[rt.openapiSchemaName] : undefined;
      t = root ? typeFromOpenAPI(root, schemas) : withObjectMeta(undefined);
      this.types.set(rt, t);
    }
    return t;
  }

  /**
   * Records a create or update on `obj` (in place). `old` is undefined for a create. The managedFields a client
   * sends are used as the starting point when they decode (so a client may edit them, or send `[{}]` to reset
   * them); otherwise the live object's are kept. Subresource writes always start from the live object's.
   */
  recordWrite(rt: ResourceType, old: KubeObject | undefined, obj: KubeObject, write: WriteFields): void {
    try {
      withPathBudget(() => this.trackWrite(rt, old, obj, write));
    } catch (err) {
      if (!(err instanceof FieldTrackingTooLarge)) throw err;
      // kube's UpdateNoErrors: managedFields that cannot be computed are removed, the write goes on.
      delete obj.metadata?.managedFields;
    }
  }

  private trackWrite(rt: ResourceType, old: KubeObject | undefined, obj: KubeObject, write: WriteFields): void {
    const sent = obj.metadata?.managedFields;
    if (!old && sent === undefined) return this.recordCreate(rt, obj, write);
    const before = old ? comparable(old) : undefined;
    const after = comparable(obj);
    const entries = this.updates.entries(
      rt,
      write,
      { before, after, sent, live: old?.metadata?.managedFields, now: nowTimestamp(), topLevelIgnored: ignoredTopLevel(rt, write.subresource) },
      (sentEntries, liveEntries, now) => {
        const live = Managers.decode(liveEntries) ?? new Managers();
        let base = live;
        if (!write.subresource) {
          if (Managers.isReset(sentEntries)) base = new Managers();
          else {
            const fromRequest = Managers.decode(sentEntries);
            if (fromRequest && fromRequest.size > 0) base = fromRequest;
          }
        }
        return recordUpdate({
          old: before,
          updated: after,
          managers: base,
          manager: write.manager,
          apiVersion: apiVersionOf(rt),
          subresource: write.subresource,
          now,
          typeInfo: this.typeInfo(rt),
          ignore: resetFieldsFilter(rt, write.subresource),
        }).encode();
      },
    );
    setManagedFields(obj, entries);
  }

  /**
   * A create that brings no managedFields: its one entry owns every field the object has, so it depends only on the
   * object's shape (its map keys, and lists in full: set and map lists are owned by value), the manager and the
   * subresource. Objects of one shape are created over and over (every workspace's LogicalCluster, namespace,
   * binding), so the field-set computation runs once per shape and later creates only stamp the time.
   */
  private recordCreate(rt: ResourceType, obj: KubeObject, write: WriteFields): void {
    let shapes = this.createShapes.get(rt);
    if (!shapes) this.createShapes.set(rt, (shapes = new Map()));
    const key = `${write.manager}\u0000${write.subresource ?? ''}\u0000${comparableShape(obj)}`;
    let entries = shapes.get(key);
    if (!entries) {
      const managers = recordUpdate({
        old: undefined,
        updated: comparable(obj),
        managers: new Managers(),
        manager: write.manager,
        apiVersion: apiVersionOf(rt),
        subresource: write.subresource,
        now: '',
        typeInfo: this.typeInfo(rt),
        ignore: resetFieldsFilter(rt, write.subresource),
      });
      // Keys in canonical order, `time` (last) included: each create's copy below stays in that order, so storage's
      // canonical serialization takes the entries as they are instead of sorting a copy of each.
      entries = deepFreeze(managers.encode().map((e) => canonical({ ...e, time: '' }) as ManagedFieldsEntry));
      if (shapes.size >= CACHED_CREATE_SHAPES) shapes.delete(shapes.keys().next().value!);
      shapes.set(key, entries);
    }
    const now = nowTimestamp();
    // The (frozen) fieldsV1 trees are shared by every object of the shape; only the entry itself is new.
    setManagedFields(obj, entries.map((e) => ({ ...e, time: now })));
  }

  /**
   * Server-side apply of `config` onto `live` (undefined: the apply creates the object). Returns the merged object
   * with its managedFields. Throws ApplyConflictError / UndeclaredFieldsError from the SSA machinery.
   */
  apply(rt: ResourceType, live: KubeObject | undefined, config: KubeObject, write: WriteFields & { force: boolean }): KubeObject {
    return applyWithinBudget(() => this.applyTracked(rt, live, config, write));
  }

  private applyTracked(rt: ResourceType, live: KubeObject | undefined, config: KubeObject, write: WriteFields & { force: boolean }): KubeObject {
    const typeInfo = this.typeInfo(rt);
    const liveManagers = Managers.decode(live?.metadata?.managedFields) ?? new Managers();
    const liveView = live ? comparable(live) : undefined;
    const upgrading = write.manager === KUBECTL_APPLY_MANAGER && live !== undefined && lastApplied(live) !== undefined;
    const result = applyConfig({
      live: liveView,
      config: comparable(config),
      managers: liveManagers,
      manager: write.manager,
      force: write.force,
      apiVersion: apiVersionOf(rt),
      subresource: write.subresource,
      now: nowTimestamp(),
      typeInfo,
      ignore: resetFieldsFilter(rt, write.subresource),
      allowedConflicts: upgrading ? allowedFromLastApplied(live!, typeInfo) : undefined,
    });
    const merged = result.object as KubeObject;
    let managedFields = result.managers.encode();
    // Re-applying the same configuration changes nothing, not even the entry's time (no new resourceVersion).
    if (live && !result.changed && sameIgnoringTime(managedFields, live.metadata?.managedFields)) {
      managedFields = live.metadata!.managedFields as ManagedFieldsEntry[];
    }
    setManagedFields(merged, managedFields);
    if (upgrading && lastApplied(merged) !== undefined) {
      merged.metadata!.annotations![LAST_APPLIED_ANNOTATION] = lastAppliedFrom(config);
    }
    return merged;
  }

  /**
   * `.spec.foo: field not declared in schema` for each field of a configuration the schema lacks: the configuration's
   * field set, within the same budget as the apply (until 2026-11-30 it was not: a 478 KB chain-shaped apply spent
   * 8 s here, every tenant's requests waiting, before the apply itself reached its 413).
   */
  undeclaredFields(rt: ResourceType, config: KubeObject): string[] {
    return applyWithinBudget(() => toFieldSet(comparable(config), this.typeInfo(rt)).undeclared);
  }
}

/** Field tracking for a server-side apply, within withPathBudget: past it, the apply is a 413. */
function applyWithinBudget<T>(fn: () => T): T {
  try {
    return withPathBudget(fn);
  } catch (err) {
    if (!(err instanceof FieldTrackingTooLarge)) throw err;
    throw requestEntityTooLarge(`Request entity too large: ${err.message}; server-side apply needs them, use an update or a merge patch instead`);
  }
}

/**
 * The object as field tracking sees it: without managedFields and without the `kcp.io/cluster` annotation the
 * server stamps on every object (nobody owns it; it is not part of what clients write).
 */
function comparable(obj: KubeObject): Obj {
  const meta = obj.metadata;
  if (!meta) return obj;
  const { managedFields: _mf, ...rest } = meta;
  const out: Obj = { ...obj, metadata: rest };
  if (rest.annotations && Object.hasOwn(rest.annotations, clusterAnnotation)) {
    const { [clusterAnnotation]: _c, ...annotations } = rest.annotations;
    if (Object.keys(annotations).length > 0) rest.annotations = annotations;
    else delete rest.annotations;
  }
  return out;
}

/**
 * What a field set can depend on: every map key (recursively), every list in full, and for other values only that
 * they are there. Two objects with the same shape own the same fields. A key is written as `<length>:<key>`, which
 * reads back unambiguously whatever characters it holds, at a third of what quoting it with JSON.stringify cost;
 * a value then starts with `{` (a map, up to its `}`), `[` (a list's JSON), `u` or `0`.
 */
function shapeOf(value: unknown): string {
  if (Array.isArray(value)) return JSON.stringify(value);
  if (value === null || typeof value !== 'object') return value === undefined ? 'u' : '0';
  let out = '{';
  for (const key of Object.keys(value)) out += `${key.length}:${key}${shapeOf((value as Obj)[key])}`;
  return `${out}}`;
}

/** `shapeOf(comparable(obj))`, without building the comparable view (a copy of the object and its metadata). */
function comparableShape(obj: KubeObject): string {
  const meta = obj.metadata as Obj | undefined;
  if (!meta) return shapeOf(obj);
  let out = '{';
  for (const key of Object.keys(obj)) {
    out += `${key.length}:${key}${key === 'metadata' ? metadataShape(meta) : shapeOf((obj as Obj)[key])}`;
  }
  return `${out}}`;
}

function metadataShape(meta: Obj): string {
  let out = '{';
  for (const key of Object.keys(meta)) {
    if (key === 'managedFields') continue;
    const value = meta[key];
    if (key === 'annotations' && value && typeof value === 'object' && !Array.isArray(value) && Object.hasOwn(value, clusterAnnotation)) {
      let annotations = '{';
      for (const name of Object.keys(value)) if (name !== clusterAnnotation) annotations += `${name.length}:${name}${shapeOf((value as Obj)[name])}`;
      if (annotations !== '{') out += `${key.length}:${key}${annotations}}`;
      continue;
    }
    out += `${key.length}:${key}${shapeOf(value)}`;
  }
  return `${out}}`;
}

function setManagedFields(obj: KubeObject, entries: ManagedFieldsEntry[]): void {
  const meta = (obj.metadata ??= {});
  if (entries.length > 0) meta.managedFields = entries;
  else delete meta.managedFields;
}

/**
 * Fields a write may not own: through the main resource, `status` when a status subresource exists (the strategy
 * keeps the stored status anyway); through `status`, everything but status.
 */
function resetFieldsFilter(rt: ResourceType, subresource: string | undefined): ((p: Path) => boolean) | undefined {
  if (subresource === 'status') return (p) => p[0] !== 'f:status';
  if (!subresource && rt.subresources?.status) return (p) => p[0] === 'f:status';
  return undefined;
}

/** The top-level keys whose fields resetFieldsFilter drops. */
function ignoredTopLevel(rt: ResourceType, subresource: string | undefined): ((key: string) => boolean) | undefined {
  if (subresource === 'status') return (key) => key !== 'status';
  if (!subresource && rt.subresources?.status) return (key) => key === 'status';
  return undefined;
}

function sameIgnoringTime(a: unknown, b: unknown): boolean {
  const strip = (list: unknown) =>
    Array.isArray(list) ? list.map((e) => ({ ...(e as ManagedFieldsEntry), time: undefined })) : [];
  return canonicalJSON(strip(a)) === canonicalJSON(strip(b));
}

function lastApplied(obj: KubeObject): string | undefined {
  const value = obj.metadata?.annotations?.[LAST_APPLIED_ANNOTATION];
  return value ? value : undefined;
}

/**
 * kubectl moving from client-side to server-side apply: fields recorded in the last-applied annotation that still
 * hold that value may be taken over without --force-conflicts.
 */
function allowedFromLastApplied(live: KubeObject, typeInfo: TypeInfo): FieldSet | undefined {
  let recorded: unknown;
  try {
    recorded = JSON.parse(lastApplied(live)!);
  } catch {
    return undefined;
  }
  if (typeof recorded !== 'object' || recorded === null || Array.isArray(recorded)) return undefined;
  const recordedView = comparable(recorded as KubeObject);
  const fields = toFieldSet(recordedView, typeInfo).set;
  const changedSince = compareValues(recordedView, comparable(live), typeInfo).modified;
  return fields.difference(changedSince);
}

/** The annotation value kube writes: the applied configuration without the annotation itself, as JSON + newline. */
function lastAppliedFrom(config: KubeObject): string {
  const copy = structuredClone(config);
  const annotations = copy.metadata?.annotations;
  if (annotations) delete annotations[LAST_APPLIED_ANNOTATION];
  return `${canonicalJSON(copy)}\n`;
}
