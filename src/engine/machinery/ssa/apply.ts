/**
 * Server-side apply and update tracking over managed fields, following structured-merge-diff's Updater:
 * - an Update (create, PUT, non-apply patch) gives its manager every field it added or changed, and takes
 *   those fields and every removed one away from all other managers;
 * - an Apply merges the configuration into the live object, makes its manager own exactly the configuration's
 *   fields, removes what it applied before and nobody owns any more, and fails with conflicts when it changes
 *   a field another manager owns (unless forced, which takes the field over).
 * Objects are passed without `metadata.managedFields`; the managers travel separately.
 */
import { setOwnValue } from '../own-properties.js';
import { compareValues } from './compare.js';
import { FieldSet, pathString, type Path } from './fieldset.js';
import { listItemElement } from './list-items.js';
import { managerId, Managers, type Manager } from './managers.js';
import { mergeValues } from './pair-walk.js';
import { toFieldSet } from './to-field-set.js';
import { fieldType, isAtomicMap, listTypeOf, type TypeInfo } from './type-info.js';

export { Managers, type ManagedFieldsEntry } from './managers.js';

export interface Conflict {
  manager: string;
  operation: string;
  apiVersion: string;
  subresource?: string;
  /** As upstream prints it, e.g. `.spec.containers[name="nginx"].image`. */
  path: string;
  rawPath: Path;
}

export class ApplyConflictError extends Error {
  constructor(readonly conflicts: Conflict[]) {
    super(`Apply failed with ${conflicts.length} conflict${conflicts.length === 1 ? '' : 's'}`);
    this.name = 'ApplyConflictError';
  }
}

/** The applied configuration names fields the schema does not have. */
export class UndeclaredFieldsError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.length === 1 ? problems[0] : ['errors:', ...problems.map((p) => `  ${p}`)].join('\n'));
    this.name = 'UndeclaredFieldsError';
  }
}

export const BEFORE_FIRST_APPLY = 'before-first-apply';

type Obj = Record<string, unknown>;

export interface TrackingContext {
  typeInfo: TypeInfo;
  apiVersion: string;
  /** RFC 3339 time for entries this write touches. */
  now: string;
  subresource?: string;
  /** Fields this write may not own (a subresource's reset fields, server-owned annotations). */
  ignore?: (path: Path) => boolean;
}

function withoutIgnored(set: FieldSet, ignore: TrackingContext['ignore']): FieldSet {
  return ignore ? set.filter((p) => !ignore(p)) : set;
}

export interface UpdateArgs extends TrackingContext {
  /** The object before the write (`{}` or undefined for a create). */
  old: Obj | undefined;
  updated: Obj;
  managers: Managers;
  manager: string;
}

/** Records a non-apply write; returns the new managers (the input is not modified). */
export function recordUpdate(args: UpdateArgs): Managers {
  const managers = args.managers.clone();
  const cmp = compareValues(args.old ?? {}, args.updated, args.typeInfo);
  const changed = withoutIgnored(cmp.added.union(cmp.modified), args.ignore);
  const removed = withoutIgnored(cmp.removed, args.ignore);
  // Every manager, this one's earlier entry included, loses what the write changed or removed.
  for (const [, m] of managers.entries()) m.set = m.set.difference(changed).difference(removed);
  managers.prune();
  const me: Manager = { manager: args.manager, operation: 'Update', apiVersion: args.apiVersion, set: changed };
  if (args.subresource) me.subresource = args.subresource;
  const previous = managers.get(managerId(me));
  if (!changed.isEmpty()) {
    me.set = previous ? previous.set.union(changed) : changed;
    me.time = args.now;
    managers.put(me);
  }
  return managers;
}

export interface ApplyArgs extends TrackingContext {
  /** The live object, or undefined when the apply creates it. */
  live: Obj | undefined;
  config: Obj;
  managers: Managers;
  manager: string;
  force?: boolean;
  /**
   * Fields whose conflicts may be taken over without force (kubectl's upgrade from client-side apply: fields of
   * the last-applied annotation that still hold the value it recorded).
   */
  allowedConflicts?: FieldSet;
}

export interface ApplyResult {
  object: Obj;
  managers: Managers;
  /** False when the merged object equals the live one (a re-apply of the same configuration). */
  changed: boolean;
}

/** Applies a configuration as `manager`. Throws ApplyConflictError or UndeclaredFieldsError. */
export function applyConfig(args: ApplyArgs): ApplyResult {
  const { typeInfo, manager } = args;
  const live = args.live ?? {};
  let managers = args.managers;
  // Objects written before anyone tracked fields: what is there belongs to before-first-apply.
  if (args.live && managers.size === 0) {
    managers = recordUpdate({ ...args, subresource: undefined, old: {}, updated: args.live, managers, manager: BEFORE_FIRST_APPLY });
  }
  managers = managers.clone();

  const { set, undeclared } = toFieldSet(args.config, typeInfo);
  if (undeclared.length > 0) throw new UndeclaredFieldsError(undeclared);
  const me: Manager = { manager, operation: 'Apply', apiVersion: args.apiVersion, set: withoutIgnored(set, args.ignore), time: args.now };
  if (args.subresource) me.subresource = args.subresource;
  const myId = managerId(me);
  const lastSet = managers.get(myId)?.set;
  managers.put({ ...me, set: me.set.clone() });

  let merged = mergeValues(live, args.config, typeInfo) as Obj;
  if (lastSet) merged = pruneUnowned(merged, lastSet, managers, typeInfo);

  const cmp = compareValues(live, merged, typeInfo);
  const changed = withoutIgnored(cmp.added.union(cmp.modified), args.ignore);
  const removed = withoutIgnored(cmp.removed, args.ignore);
  const conflicts: Conflict[] = [];
  const taken = new Map<Manager, FieldSet>();
  for (const [id, m] of managers.entries()) {
    if (id === myId) continue;
    const overlap = m.set.intersection(changed);
    if (overlap.isEmpty()) continue;
    taken.set(m, overlap);
    for (const p of overlap.sorted()) {
      if (args.allowedConflicts?.has(p)) continue;
      conflicts.push({
        manager: m.manager,
        operation: m.operation,
        apiVersion: m.apiVersion,
        ...(m.subresource ? { subresource: m.subresource } : {}),
        path: pathString(p),
        rawPath: p,
      });
    }
  }
  if (conflicts.length > 0 && !args.force) throw new ApplyConflictError(conflicts);
  for (const [m, overlap] of taken) m.set = m.set.difference(overlap);
  for (const [id, m] of managers.entries()) if (id !== myId) m.set = m.set.difference(removed);
  managers.prune();
  const unchanged = cmp.added.isEmpty() && cmp.modified.isEmpty() && cmp.removed.isEmpty();
  return { object: merged ?? {}, managers, changed: !unchanged };
}

/**
 * Removes from `merged` what the applier set last time, no longer sets, and nobody owns now. A container in that
 * set goes once nothing but a list item's key fields is left in it; a container nobody owns that pruning emptied
 * goes too (labels: {} is not left behind).
 */
function pruneUnowned(merged: Obj, lastSet: FieldSet, managers: Managers, typeInfo: TypeInfo): Obj {
  // Grown in place: a union per manager copied what was owned so far each time, quadratic in the managers.
  const owned = new FieldSet();
  for (const [, m] of managers.entries()) for (const path of m.set) owned.add(path);
  const drop = lastSet.difference(owned);
  if (drop.isEmpty()) return merged;
  const REMOVE = Symbol('remove');

  const prune = (value: unknown, t: TypeInfo, path: Path, keyFields: readonly string[]): unknown => {
    if (!drop.hasPrefixOf(path)) return value;
    const dropped = drop.has(path);
    let children: unknown[] | Obj;
    let removedAny = false;
    let meaningful: number;
    if (Array.isArray(value) && t?.kind === 'list' && listTypeOf(t) !== 'atomic') {
      const keys = listTypeOf(t) === 'map' ? (t.keys ?? []) : [];
      const items: unknown[] = [];
      value.forEach((item, i) => {
        const kept = prune(item, t.elem, [...path, listItemElement(item, t, i)], keys);
        if (kept === REMOVE) removedAny = true;
        else items.push(kept);
      });
      children = items;
      meaningful = items.length;
    } else if (isObj(value) && !(t && (t.kind === 'scalar' || t.kind === 'list' || isAtomicMap(t)))) {
      const fields: Obj = {};
      meaningful = 0;
      for (const [k, v] of Object.entries(value)) {
        const kept = keyFields.includes(k) ? v : prune(v, fieldType(t, k), [...path, `f:${k}`], []);
        if (kept === REMOVE) {
          removedAny = true;
          continue;
        }
        setOwnValue(fields, k, kept);
        if (!keyFields.includes(k)) meaningful++;
      }
      children = fields;
    } else {
      return dropped ? REMOVE : value;
    }
    if (path.length > 0 && meaningful === 0 && (dropped || (removedAny && !owned.has(path)))) return REMOVE;
    return children;
  };
  const result = prune(merged, typeInfo, [], []);
  return (result === REMOVE ? {} : result) as Obj;
}

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
