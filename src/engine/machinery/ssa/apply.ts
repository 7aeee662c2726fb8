/**
 * Server-side apply: merging an applied configuration into a live object while tracking field ownership in
 * `metadata.managedFields`, following structured-merge-diff semantics.
 */
import {
  canonicalJSON,
  deepEqual,
  FieldSet,
  fromObject,
  isPlainObject,
  pathString as pathStringOf,
  type FieldsV1,
  type Path,
} from './fieldset.js';
import { fieldType, isAtomicMap, itemType, listTypeOf, type TypeInfo } from './type-info.js';

export interface ManagedFieldsEntry {
  manager?: string;
  operation?: 'Apply' | 'Update' | string;
  apiVersion?: string;
  time?: string;
  fieldsType?: string;
  fieldsV1?: FieldsV1;
  subresource?: string;
}

export interface Conflict {
  manager: string;
  operation: string;
  apiVersion: string;
  /** Human path, e.g. `.data.a`. */
  path: string;
  subresource?: string;
  /** Raw path elements. */
  rawPath: Path;
}

export class ApplyConflictError extends Error {
  constructor(readonly conflicts: Conflict[]) {
    super(`Apply failed with ${conflicts.length} conflict${conflicts.length === 1 ? '' : 's'}`);
    this.name = 'ApplyConflictError';
  }
}

export const BEFORE_FIRST_APPLY = 'before-first-apply';

type Obj = Record<string, unknown>;

interface Entry {
  meta: ManagedFieldsEntry;
  set: FieldSet;
}

function decode(managedFields: ManagedFieldsEntry[] | undefined): Entry[] {
  return (managedFields ?? []).map((m) => ({ meta: { ...m }, set: FieldSet.fromFieldsV1(m.fieldsV1) }));
}

function encode(entries: Entry[]): ManagedFieldsEntry[] {
  const out: ManagedFieldsEntry[] = [];
  for (const e of entries) {
    if (e.set.isEmpty()) continue;
    const m: ManagedFieldsEntry = {
      manager: e.meta.manager,
      operation: e.meta.operation,
      apiVersion: e.meta.apiVersion,
      time: e.meta.time,
      fieldsType: 'FieldsV1',
      fieldsV1: e.set.toFieldsV1(),
    };
    if (e.meta.subresource) m.subresource = e.meta.subresource;
    out.push(m);
  }
  return out;
}

function sameIdentity(a: ManagedFieldsEntry, b: ManagedFieldsEntry): boolean {
  if ((a.manager ?? '') !== (b.manager ?? '')) return false;
  if ((a.operation ?? '') !== (b.operation ?? '')) return false;
  if ((a.subresource ?? '') !== (b.subresource ?? '')) return false;
  // Apply entries are per manager; Update entries are also per apiVersion.
  if (a.operation === 'Update' && (a.apiVersion ?? '') !== (b.apiVersion ?? '')) return false;
  return true;
}

function clone<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}

function stripManagedFields(obj: Obj): Obj {
  const out = clone(obj);
  if (isPlainObject(out.metadata)) delete out.metadata.managedFields;
  return out;
}

function matchesKey(item: unknown, keyJSON: string): boolean {
  const key = JSON.parse(keyJSON) as Obj;
  if (!isPlainObject(item)) return false;
  return Object.keys(key).every((k) => deepEqual(item[k], key[k]));
}

/** Value at a path, or undefined. */
export function getAtPath(obj: unknown, path: Path): unknown {
  let cur: unknown = obj;
  for (const pe of path) {
    if (pe.startsWith('f:')) {
      if (!isPlainObject(cur)) return undefined;
      cur = cur[pe.slice(2)];
    } else if (pe.startsWith('k:')) {
      if (!Array.isArray(cur)) return undefined;
      cur = cur.find((it) => matchesKey(it, pe.slice(2)));
    } else if (pe.startsWith('v:')) {
      if (!Array.isArray(cur)) return undefined;
      const want = pe.slice(2);
      cur = cur.find((it) => canonicalJSON(it) === want);
    } else return undefined;
    if (cur === undefined) return undefined;
  }
  return cur;
}

/** Remove the node at a path (in place). */
export function removeAtPath(obj: unknown, path: Path): void {
  if (path.length === 0) return;
  const parent = getAtPath(obj, path.slice(0, -1));
  const pe = path[path.length - 1]!;
  if (pe.startsWith('f:') && isPlainObject(parent)) delete parent[pe.slice(2)];
  else if (pe.startsWith('k:') && Array.isArray(parent)) {
    const i = parent.findIndex((it) => matchesKey(it, pe.slice(2)));
    if (i >= 0) parent.splice(i, 1);
  } else if (pe.startsWith('v:') && Array.isArray(parent)) {
    const want = pe.slice(2);
    const i = parent.findIndex((it) => canonicalJSON(it) === want);
    if (i >= 0) parent.splice(i, 1);
  }
}

/** Merge `applied` into `live` following the list and map types. Returns a new value. */
export function mergeValues(live: unknown, applied: unknown, t: TypeInfo): unknown {
  if (applied === undefined) return clone(live);
  if (Array.isArray(applied)) {
    const lt = listTypeOf(t);
    if (lt === 'atomic' || !Array.isArray(live)) return clone(applied);
    if (lt === 'set') {
      const out = clone(live) as unknown[];
      const seen = new Set(out.map(canonicalJSON));
      for (const v of applied) if (!seen.has(canonicalJSON(v))) out.push(clone(v)), seen.add(canonicalJSON(v));
      return out;
    }
    const keys = t!.keys ?? [];
    const keyOf = (it: unknown): string => {
      const o: Obj = {};
      for (const k of [...keys].sort()) if (isPlainObject(it) && it[k] !== undefined) o[k] = it[k];
      return canonicalJSON(o);
    };
    const out = clone(live) as unknown[];
    for (const item of applied) {
      const k = keyOf(item);
      const i = out.findIndex((it) => keyOf(it) === k);
      if (i >= 0) out[i] = mergeValues(out[i], item, itemType(t));
      else out.push(clone(item));
    }
    return out;
  }
  if (isPlainObject(applied)) {
    if (isAtomicMap(t) || !isPlainObject(live)) return stripNulls(clone(applied));
    const out = clone(live);
    for (const [k, v] of Object.entries(applied)) {
      if (v === undefined) continue;
      if (v === null) {
        delete out[k];
        continue;
      }
      out[k] = mergeValues(out[k], v, fieldType(t, k));
    }
    return out;
  }
  return applied;
}

function stripNulls(v: unknown): unknown {
  if (isPlainObject(v)) {
    for (const k of Object.keys(v)) {
      if (v[k] === null) delete v[k];
      else stripNulls(v[k]);
    }
  } else if (Array.isArray(v)) v.forEach(stripNulls);
  return v;
}

function isItemPath(p: Path): boolean {
  const last = p[p.length - 1] ?? '';
  return last.startsWith('k:') || last.startsWith('v:');
}

export interface ApplyArgs {
  /** The live object, or null/undefined when the apply creates it. */
  live: Obj | null | undefined;
  applied: Obj;
  manager: string;
  /** The live object's managedFields (defaults to live.metadata.managedFields). */
  managedFields?: ManagedFieldsEntry[];
  typeInfo: TypeInfo;
  force?: boolean;
  /** RFC3339 timestamp for the entry. */
  now: string;
  apiVersion: string;
  subresource?: string;
}

export interface ApplyResult {
  object: Obj;
  managedFields: ManagedFieldsEntry[];
}

/**
 * Apply `applied` to `live` as `manager`. Throws ApplyConflictError when the applier sets a field that another
 * manager owns with a different value, unless `force`, which moves ownership to the applier.
 * The returned object has `metadata.managedFields` set to the returned list.
 */
export function applyObject(args: ApplyArgs): ApplyResult {
  const { applied, manager, typeInfo, force, now, apiVersion, subresource } = args;
  const live = args.live ? stripManagedFields(args.live) : null;
  const liveMF =
    args.managedFields ??
    (args.live && isPlainObject(args.live.metadata) ? (args.live.metadata.managedFields as ManagedFieldsEntry[] | undefined) : undefined);
  const entries = decode(liveMF);

  // Objects created without managers: attribute every field to before-first-apply.
  if (live && entries.length === 0) {
    const set = fromObject(live, typeInfo, { mapNodes: true });
    if (!set.isEmpty()) entries.push({ meta: { manager: BEFORE_FIRST_APPLY, operation: 'Update', apiVersion, time: now }, set });
  }

  const me: ManagedFieldsEntry = { manager, operation: 'Apply', apiVersion, time: now };
  if (subresource) me.subresource = subresource;
  const appliedSet = fromObject(applied, typeInfo);
  const mineIdx = entries.findIndex((e) => sameIdentity(e.meta, me));
  const previous = mineIdx >= 0 ? entries[mineIdx]!.set : new FieldSet();

  // Conflicts.
  const conflicts: Conflict[] = [];
  const conflictPaths = new Map<Entry, Path[]>();
  if (live) {
    for (const e of entries) {
      if (sameIdentity(e.meta, me)) continue;
      for (const p of appliedSet.intersection(e.set)) {
        if (isItemPath(p)) continue;
        if (deepEqual(getAtPath(live, p), getAtPath(applied, p))) continue;
        if (!conflictPaths.has(e)) conflictPaths.set(e, []);
        conflictPaths.get(e)!.push(p);
      }
    }
  }
  for (const [e, paths] of conflictPaths) {
    for (const p of [...paths].sort((a, b) => (pathStringOf(a) < pathStringOf(b) ? -1 : 1))) {
      conflicts.push({
        ...(e.meta.subresource ? { subresource: e.meta.subresource } : {}),
        manager: e.meta.manager ?? '',
        operation: e.meta.operation ?? '',
        apiVersion: e.meta.apiVersion ?? '',
        path: pathStringOf(p),
        rawPath: p,
      });
    }
  }
  if (conflicts.length > 0 && !force) throw new ApplyConflictError(conflicts);
  for (const [e, paths] of conflictPaths) for (const p of paths) e.set.delete(p);

  // Merge, then drop what the applier no longer sets and nobody else owns.
  const merged = (live ? mergeValues(live, stripTop(applied), typeInfo) : mergeValues(undefined, applied, typeInfo)) as Obj;
  let others = new FieldSet();
  for (const e of entries) if (!sameIdentity(e.meta, me)) others = others.union(e.set);
  const removed = previous.difference(appliedSet).difference(others);
  // Shallow paths first: a removed list item must still be found by its key fields.
  const ordered = removed.toArray().sort((a, b) => a.length - b.length);
  for (const p of ordered) {
    // Keep a list item when someone still owns fields inside it.
    if (isItemPath(p) && others.hasChildrenOf(p)) continue;
    removeAtPath(merged, p);
  }

  if (mineIdx >= 0) {
    entries[mineIdx]!.meta = me;
    entries[mineIdx]!.set = appliedSet;
  } else entries.push({ meta: me, set: appliedSet });

  const managedFields = encode(entries);
  if (!isPlainObject(merged.metadata)) merged.metadata = {};
  (merged.metadata as Obj).managedFields = managedFields;
  return { object: merged, managedFields };
}

function stripTop(applied: Obj): Obj {
  // apiVersion/kind of the applied config still describe the object; keep them.
  const out = clone(applied);
  if (isPlainObject(out.metadata)) delete out.metadata.managedFields;
  return out;
}

export interface UpdateArgs {
  /** The object before the write; null/undefined for create. */
  old: Obj | null | undefined;
  updated: Obj;
  manager: string;
  managedFields?: ManagedFieldsEntry[];
  typeInfo: TypeInfo;
  now: string;
  apiVersion: string;
  subresource?: string;
}

/**
 * Record a non-apply write (create, update, patch). The fields that were added or changed become owned by the
 * manager's Update entry and leave every other entry; removed fields leave every entry. Empty entries drop.
 */
export function recordUpdate(args: UpdateArgs): ManagedFieldsEntry[] {
  const { manager, typeInfo, now, apiVersion, subresource } = args;
  const oldObj = args.old ? stripManagedFields(args.old) : null;
  const newObj = stripManagedFields(args.updated);
  const mf =
    args.managedFields ??
    (args.old && isPlainObject(args.old.metadata) ? (args.old.metadata.managedFields as ManagedFieldsEntry[] | undefined) : undefined);
  const entries = decode(mf);

  const oldSet = oldObj ? fromObject(oldObj, typeInfo, { mapNodes: true }) : new FieldSet();
  const newSet = fromObject(newObj, typeInfo, { mapNodes: true });
  const added = newSet.difference(oldSet);
  const removedPaths = oldSet.difference(newSet);
  const modified = new FieldSet();
  for (const p of newSet.intersection(oldSet)) {
    if (isItemPath(p)) continue;
    if (newSet.hasChildrenOf(p)) continue;
    if (!deepEqual(getAtPath(oldObj, p), getAtPath(newObj, p))) modified.add(p);
  }
  const changed = added.union(modified);

  const me: ManagedFieldsEntry = { manager, operation: 'Update', apiVersion, time: now };
  if (subresource) me.subresource = subresource;
  let mine = entries.find((e) => sameIdentity(e.meta, me));
  for (const e of entries) {
    if (e === mine) continue;
    e.set = e.set.difference(changed).difference(removedPaths);
    // Drop ownership of anything under removed nodes as well.
    e.set = new FieldSet([...e.set].filter((p) => !removedPaths.toArray().some((r) => isPrefix(r, p))));
  }
  if (!changed.isEmpty()) {
    if (!mine) {
      mine = { meta: me, set: new FieldSet() };
      entries.push(mine);
    } else mine.meta = me;
    mine.set = mine.set.union(changed);
  }
  if (mine) mine.set = new FieldSet([...mine.set].filter((p) => !removedPaths.toArray().some((r) => isPrefix(r, p))));
  return encode(entries);
}

function isPrefix(prefix: Path, p: Path): boolean {
  if (prefix.length > p.length) return false;
  return prefix.every((pe, i) => p[i] === pe);
}
