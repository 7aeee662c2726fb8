/**
 * Strategic merge patch (`application/strategic-merge-patch+json`), the patch kubectl apply (client-side), edit
 * and patch send for built-in kinds. Semantics follow k8s.io/apimachinery pkg/util/strategicpatch (server half,
 * v1.32): a JSON merge patch where lists tagged `merge` are merged by their merge key (or unioned, for primitive
 * lists), plus the directives
 *   `$patch: replace|delete` in a map or as a list item, `$retainKeys`, `$setElementOrder/<list>` and
 *   `$deleteFromPrimitiveList/<list>`.
 *
 * Departures, all in inputs kubectl never sends: values new to the object are normalised like the rest (nulls
 * dropped, directives applied, never stored literally), `$patch: replace` on a map the object lacks yields the
 * map, and format errors are 400 where kube answers 500.
 */
import { patchDecodeError, patchFormatError, withStatusErrors } from './errors.js';
import { cloneJson, getOwn, goFormat, hasOwn, isJsonObject, jsonTypeOf, setOwn, type JsonObject } from './json.js';
import { chargeListSteps, withListWorkBudget } from './list-work.js';
import { fieldSchema, isMergeList, isReplaceMap, type PatchSchema } from './schema.js';
import {
  checkSetElementOrder,
  dedupe,
  DIRECTIVE,
  elementKind,
  ListIndex,
  mergeKeyOf,
  noMergeKey,
  normalizeElementOrder,
  partition,
} from './strategicOrder.js';

const RETAIN_KEYS = '$retainKeys';
const SET_ELEMENT_ORDER = '$setElementOrder';
const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList';

/** Applies a strategic merge patch; returns a new object, `obj` and `patch` are never modified. */
export function applyStrategicMergePatch(obj: JsonObject, patch: unknown, schema: PatchSchema): JsonObject {
  return withStatusErrors(() => {
    if (!isJsonObject(patch)) {
      throw patchDecodeError(`a strategic merge patch must be a JSON object, got ${jsonTypeOf(patch)}`);
    }
    // A top-level `$patch: delete` empties the object, as upstream does; validation rejects the result later.
    return withListWorkBudget(() => mergeMap(cloneJson(obj), patch, schema) ?? {});
  });
}

function unknownPatchType(directive: unknown, map: JsonObject): Error {
  return patchFormatError(`unknown patch type: ${goFormat(directive)} in map: ${goFormat(map)}`);
}

/**
 * Merges `patch` into `original`, which is our own copy and is modified in place.
 * Returns undefined when the patch says `$patch: delete` (the caller drops the field).
 */
function mergeMap(original: JsonObject, patch: JsonObject, schema: PatchSchema | undefined): JsonObject | undefined {
  if (hasOwn(patch, DIRECTIVE)) {
    const directive = patch[DIRECTIVE];
    if (directive === 'delete') return undefined;
    if (directive !== 'replace') throw unknownPatchType(directive, patch);
    const content: JsonObject = {};
    for (const key of Object.keys(patch)) if (key !== DIRECTIVE) setOwn(content, key, patch[key]);
    return mergeMap({}, content, schema);
  }

  const consumed = new Set<string>();
  applyRetainKeys(original, patch, consumed);
  applySetElementOrder(original, patch, schema, consumed);
  const deletions: string[] = [];
  for (const key of Object.keys(patch)) {
    if (consumed.has(key)) continue;
    if (key.startsWith(DELETE_FROM_PRIMITIVE_LIST)) deletions.push(key);
    else mergeField(original, key, patch[key], fieldSchema(schema, key));
  }
  // After the additions, so an item both added and deleted ends up deleted whatever the key order.
  for (const key of deletions) deleteFromPrimitiveList(original, key, patch[key]);
  return original;
}

function setOrDrop(obj: JsonObject, key: string, value: unknown): void {
  if (value === undefined) delete obj[key];
  else setOwn(obj, key, value);
}

type Shape = 'object' | 'array' | 'scalar';
const shapeOf = (v: unknown): Shape => (Array.isArray(v) ? 'array' : isJsonObject(v) ? 'object' : 'scalar');

function mergeField(original: JsonObject, key: string, value: unknown, schema: PatchSchema | undefined): void {
  if (value === null) {
    delete original[key];
    return;
  }
  const current = getOwn(original, key);
  if (current === undefined || current === null || shapeOf(current) !== shapeOf(value)) {
    setOrDrop(original, key, normalizeNew(value, schema));
  } else if (isJsonObject(value)) {
    if (isReplaceMap(schema)) {
      setOrDrop(original, key, normalizeNew(value, schema));
    } else {
      // `$patch: delete` on a map the object has leaves it empty, as upstream does (a new one is dropped instead).
      setOwn(original, key, mergeMap(current as JsonObject, value, schema) ?? {});
    }
  } else if (Array.isArray(value)) {
    setOwn(original, key, mergeList(current as unknown[], value, schema));
  } else {
    setOwn(original, key, value);
  }
}

/** A patch value for a field the object does not have yet: the patch applied to nothing. */
function normalizeNew(value: unknown, schema: PatchSchema | undefined): unknown {
  if (isJsonObject(value)) return mergeMap({}, value, schema);
  if (Array.isArray(value)) return mergeList([], value, schema);
  return value;
}

function mergeList(original: unknown[], patch: unknown[], schema: PatchSchema | undefined): unknown[] {
  if (isMergeList(schema)) return mergeSlice(original, patch, schema?.items, schema?.patchMergeKey ?? '');
  // Atomic list: the patch's list replaces the live one. Directive items mean nothing here; drop them like kube.
  const out: unknown[] = [];
  for (const item of patch) {
    if (isJsonObject(item)) {
      if (!hasOwn(item, DIRECTIVE)) out.push(mergeMap({}, item, schema?.items));
    } else {
      out.push(cloneJson(item));
    }
  }
  return out;
}

function mergeSlice(
  original: unknown[],
  patch: unknown[],
  items: PatchSchema | undefined,
  mergeKey: string,
): unknown[] {
  if (original.length === 0 && patch.length === 0) return [];
  if (elementKind(original, patch) !== 'object') {
    const [named, serverOnly] = partition(dedupe([...original, ...patch]), patch, '');
    return normalizeElementOrder(named, serverOnly, patch, original, '');
  }
  if (!mergeKey) throw patchFormatError('cannot merge lists without merge key for type map');

  // Directive items first: `$patch: delete` removes live items, `$patch: replace` discards the live list.
  let live = original;
  const plain: JsonObject[] = [];
  const deleted = new Set<unknown>();
  let replace = false;
  for (const item of patch as JsonObject[]) {
    if (!hasOwn(item, DIRECTIVE)) {
      plain.push(item);
    } else if (item[DIRECTIVE] === 'delete') {
      if (!hasOwn(item, mergeKey)) throw noMergeKey(item, mergeKey);
      deleted.add(item[mergeKey]);
    } else if (item[DIRECTIVE] === 'replace') {
      replace = true;
    } else if (item[DIRECTIVE] === 'merge') {
      throw patchFormatError('merging lists cannot yet be specified in the patch');
    } else {
      throw unknownPatchType(item[DIRECTIVE], item);
    }
  }
  if (deleted.size > 0) live = live.filter((v) => !(isJsonObject(v) && hasOwn(v, mergeKey) && deleted.has(v[mergeKey])));
  if (replace) live = plain.splice(0).map((item) => mergeMap({}, item, items) as JsonObject);

  const merged = [...live];
  let index = new ListIndex(merged, mergeKey);
  for (const item of plain) {
    const key = mergeKeyOf(item, mergeKey);
    const at = index.byKey(key);
    if (at >= 0) {
      merged[at] = mergeMap(merged[at] as JsonObject, item, items);
      // A null merge-key value in the patch removes the key from the merged item: it no longer answers to it.
      const now = merged[at];
      if (!(isJsonObject(now) && hasOwn(now, mergeKey) && now[mergeKey] === key)) index = new ListIndex(merged, mergeKey);
    } else {
      merged.push(mergeMap({}, item, items));
      index.note(merged[merged.length - 1], merged.length - 1);
    }
  }
  const [named, serverOnly] = partition(merged, plain, mergeKey);
  return normalizeElementOrder(named, serverOnly, plain, live, mergeKey);
}

/** `$<prefix>/<field>` → `<field>`; anything else under the prefix is malformed. */
function directiveField(key: string, prefix: string, malformed: string): string {
  const field = key.slice(prefix.length + 1);
  if (key[prefix.length] !== '/' || field === '') throw patchFormatError(malformed);
  return field;
}

/** `$retainKeys`: fields of the live map not listed are cleared; the patch may only set listed fields. */
function applyRetainKeys(original: JsonObject, patch: JsonObject, consumed: Set<string>): void {
  if (!hasOwn(patch, RETAIN_KEYS)) return;
  consumed.add(RETAIN_KEYS);
  const list = patch[RETAIN_KEYS];
  if (!Array.isArray(list)) throw patchFormatError('invalid patch format of retainKeys');
  const retain = new Set(list);
  for (const key of Object.keys(patch)) {
    if (key === RETAIN_KEYS || patch[key] === null) continue;
    if (key.startsWith(DELETE_FROM_PRIMITIVE_LIST) || key.startsWith(SET_ELEMENT_ORDER)) continue;
    if (!retain.has(key)) throw patchFormatError('invalid patch format of retainKeys');
  }
  for (const key of Object.keys(original)) if (!retain.has(key)) delete original[key];
}

/** `$setElementOrder/<field>`: merges that list now and orders it as the directive says. */
function applySetElementOrder(
  original: JsonObject,
  patch: JsonObject,
  schema: PatchSchema | undefined,
  consumed: Set<string>,
): void {
  const malformed = 'invalid patch format of setElementOrder list';
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(SET_ELEMENT_ORDER)) continue;
    consumed.add(key);
    const field = directiveField(key, SET_ELEMENT_ORDER, malformed);
    const order = patch[key];
    const patchList = getOwn(patch, field);
    const current = getOwn(original, field);
    if (!Array.isArray(order)) throw patchFormatError(malformed);
    if (patchList !== undefined && !Array.isArray(patchList)) throw patchFormatError(malformed);
    if (current !== undefined && current !== null && !Array.isArray(current)) throw patchFormatError(malformed);
    const fs = fieldSchema(schema, field);
    const mergeKey = isMergeList(fs) ? (fs?.patchMergeKey ?? '') : '';
    checkSetElementOrder(patchList ?? [], order, mergeKey);

    if (patchList === undefined && !Array.isArray(current)) continue;
    consumed.add(field);
    const live = Array.isArray(current) ? current : [];
    const merged = patchList === undefined ? live : mergeList(live, patchList, fs);
    if (!isMergeList(fs) || merged.length === 0) {
      setOwn(original, field, merged);
      continue;
    }
    const [named, serverOnly] = partition(merged, order, mergeKey);
    const serverOrder = mergeKey && patchList !== undefined ? liveOrderAsKubeSeesIt(live, patchList, mergeKey) : live;
    setOwn(original, field, normalizeElementOrder(named, serverOnly, order, serverOrder, mergeKey));
  }
}

/**
 * The live list as upstream's ordering step sees it after merging a map list. In Go the merge edits the live
 * slice's backing array in place (a deletion shifts later items left and leaves the last slot stale, and appended
 * items overwrite the freed slots), and $setElementOrder then orders server-only items by that edited array, not
 * by the list as it was. kubectl apply results depend on it (an item kept by the server moves behind an added
 * one), so we replay the same edits on a copy.
 */
function liveOrderAsKubeSeesIt(live: unknown[], patchList: unknown[], mergeKey: string): unknown[] {
  const view = [...live];
  const current = [...live];
  const same = (value: unknown) => (v: unknown) => isJsonObject(v) && hasOwn(v, mergeKey) && v[mergeKey] === value;
  const present = new Map<unknown, number>();
  for (const v of current) if (isJsonObject(v) && hasOwn(v, mergeKey)) present.set(v[mergeKey], (present.get(v[mergeKey]) ?? 0) + 1);
  const items = patchList.filter(isJsonObject);
  const deletions = items.filter((i) => i[DIRECTIVE] === 'delete');
  // Each removal finds and shifts within the live list, kept as upstream does it: the whole pass is paid for
  // before any of it runs (its cost is known from the counts alone).
  let steps = 0;
  let length = current.length;
  const counted = new Set<unknown>();
  for (const item of deletions) {
    const count = counted.has(item[mergeKey]) ? 0 : (present.get(item[mergeKey]) ?? 0);
    counted.add(item[mergeKey]);
    steps += count * length;
    length -= count;
  }
  chargeListSteps(steps, `${deletions.length} deletions from a list of ${current.length} items`);
  for (const item of deletions) {
    const key = item[mergeKey];
    const count = present.get(key) ?? 0;
    if (count === 0) continue;
    present.delete(key);
    for (let at = current.findIndex(same(key)); at >= 0; at = current.findIndex(same(key))) {
      view.copyWithin(at, at + 1, current.length);
      current.splice(at, 1);
    }
  }
  if (items.some((i) => i[DIRECTIVE] === 'replace')) return view;
  for (const item of items.filter((i) => !hasOwn(i, DIRECTIVE))) {
    if (present.has(item[mergeKey])) continue;
    if (current.length < view.length) view[current.length] = item;
    current.push(item);
    if (hasOwn(item, mergeKey)) present.set(item[mergeKey], 1);
  }
  return view;
}

/** `$deleteFromPrimitiveList/<field>`: removes these values from a primitive list, whatever its strategy. */
function deleteFromPrimitiveList(original: JsonObject, key: string, values: unknown): void {
  const malformed = 'invalid patch format of primitive list';
  const field = directiveField(key, DELETE_FROM_PRIMITIVE_LIST, malformed);
  if (!Array.isArray(values)) throw patchFormatError(malformed);
  const current = getOwn(original, field);
  if (!Array.isArray(current)) return; // nothing to delete from
  if ([...current, ...values].some((v) => isJsonObject(v) || Array.isArray(v))) throw patchFormatError(malformed);
  const remove = new Set(values);
  setOwn(original, field, current.filter((v) => !remove.has(v)));
}
