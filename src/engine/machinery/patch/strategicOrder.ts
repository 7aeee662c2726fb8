/**
 * List bookkeeping for strategic merge patch: element kinds, merge-key matching and the element order rules of
 * k8s.io/apimachinery strategicpatch (design: "preserve order in strategic merge patch"). The order rules decide
 * where new and server-only items land, which kubectl users see in every `get -o yaml` after an apply.
 */
import { patchFormatError, patchNotApplicable } from './errors.js';
import { getOwn, goFormat, hasOwn, isJsonObject, type JsonObject } from './json.js';

export const DIRECTIVE = '$patch';

export function noMergeKey(item: JsonObject, mergeKey: string): Error {
  return patchFormatError(`map: ${goFormat(item)} does not contain declared merge key: ${mergeKey}`);
}

function notAMap(item: unknown): Error {
  return patchFormatError(`expected a map[string]interface {}, but received ${goFormat(item)}`);
}

type ElementKind = 'object' | 'string' | 'number' | 'boolean' | 'null';

/** The one kind shared by every element of the lists (a merged list must be uniform, and never a list of lists). */
export function elementKind(...lists: unknown[][]): ElementKind | undefined {
  let kind: ElementKind | undefined;
  for (const list of lists) {
    for (const item of list) {
      if (Array.isArray(item)) {
        if (kind === undefined) throw patchNotApplicable('lists of lists are not supported');
        throw notIdentical(lists);
      }
      const k: ElementKind = item === null ? 'null' : isJsonObject(item) ? 'object' : (typeof item as ElementKind);
      if (kind !== undefined && k !== kind) throw notIdentical(lists);
      kind = k;
    }
  }
  return kind;
}

function notIdentical(lists: unknown[][]): Error {
  return patchFormatError(`list element types are not identical: ${goFormat(lists)}`);
}

/** The merge-key value of a list element, checking it is a map that has one. */
export function mergeKeyOf(item: unknown, mergeKey: string): unknown {
  if (!isJsonObject(item)) throw notAMap(item);
  if (!hasOwn(item, mergeKey)) throw noMergeKey(item, mergeKey);
  return item[mergeKey];
}

/**
 * Where items are in a list: the first index of each merge-key value (maps) or value (primitives), so finding an
 * item costs one lookup instead of a scan. Map keys compare like `===` for every JSON value.
 */
export class ListIndex {
  private readonly first = new Map<unknown, number>();

  constructor(
    list: readonly unknown[],
    private readonly mergeKey: string,
  ) {
    list.forEach((v, i) => this.note(v, i));
  }

  /** Records that `value` sits at `at` (kept only if nothing with its key came before). */
  note(value: unknown, at: number): void {
    if (!this.mergeKey) {
      if (!this.first.has(value)) this.first.set(value, at);
    } else if (isJsonObject(value) && hasOwn(value, this.mergeKey)) {
      const key = value[this.mergeKey];
      if (!this.first.has(key)) this.first.set(key, at);
    }
  }

  /** Index of the first item with this merge-key value (for primitives: this value); -1 when absent. */
  byKey(key: unknown): number {
    return this.first.get(key) ?? -1;
  }

  /** Index of `item`: by its merge-key value for maps, by value for primitives; -1 when absent. */
  of(item: unknown): number {
    if (!this.mergeKey) return this.byKey(item);
    return isJsonObject(item) && hasOwn(item, this.mergeKey) ? this.byKey(item[this.mergeKey]) : -1;
  }
}

/** Primitive union that keeps the first occurrence of each value. */
export function dedupe(values: unknown[]): unknown[] {
  return [...new Set(values)];
}

/** Splits `merged` into the items named by `by` (the patch or $setElementOrder) and server-only items. */
export function partition(merged: unknown[], by: unknown[], mergeKey: string): [unknown[], unknown[]] {
  const named: unknown[] = [];
  const serverOnly: unknown[] = [];
  if (mergeKey) {
    const keys = new Set(by.filter(isJsonObject).filter((b) => hasOwn(b, mergeKey)).map((b) => b[mergeKey]));
    for (const item of merged) (keys.has(mergeKeyOf(item, mergeKey)) ? named : serverOnly).push(item);
  } else {
    const set = new Set(by);
    for (const item of merged) (set.has(item) ? named : serverOnly).push(item);
  }
  return [named, serverOnly];
}

function sortByOrder(items: unknown[], order: unknown[], mergeKey: string): unknown[] {
  if (mergeKey) [...items, ...order].forEach((v) => mergeKeyOf(v, mergeKey));
  const index = new ListIndex(order, mergeKey);
  return items
    .map((item) => ({ item, at: index.of(item) }))
    .sort((a, b) => (a.at >= 0 && b.at >= 0 ? a.at - b.at : 0))
    .map((x) => x.item);
}

/**
 * Final order of a merged list: patch items follow `patchOrder`, server-only items follow `serverOrder` (the
 * live list), and the two are interleaved so that relative positions in the live list survive: a server-only item
 * goes before a patch item only when both exist in the live list and it came first there.
 */
export function normalizeElementOrder(
  patchItems: unknown[],
  serverOnly: unknown[],
  patchOrder: unknown[],
  serverOrder: unknown[],
  mergeKey: string,
): unknown[] {
  const right = sortByOrder(patchItems, patchOrder, mergeKey);
  const left = sortByOrder(serverOnly, serverOrder, mergeKey);
  const inServerOrder = new ListIndex(serverOrder, mergeKey);
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (j >= right.length) {
      out.push(left[i++]);
    } else if (i >= left.length) {
      out.push(right[j++]);
    } else {
      const li = inServerOrder.of(left[i]);
      const ri = inServerOrder.of(right[j]);
      out.push(li >= 0 && ri >= 0 && li < ri ? left[i++] : right[j++]);
    }
  }
  return out;
}

function sameElement(a: unknown, b: unknown, mergeKey: string): boolean {
  return mergeKey ? mergeKeyOf(a, mergeKey) === mergeKeyOf(b, mergeKey) : a === b;
}

/**
 * The patch list must list its items in the relative order of $setElementOrder (deletions and other directive
 * items aside), otherwise the patch contradicts itself.
 */
export function checkSetElementOrder(patchList: unknown[], order: unknown[], mergeKey: string): void {
  if (order.length === 0 || patchList.length === 0) return;
  const items = mergeKey
    ? patchList.filter((item) => {
        if (!isJsonObject(item)) throw notAMap(item);
        return getOwn(item, DIRECTIVE) !== 'delete';
      })
    : patchList;
  let p = 0;
  let s = 0;
  while (p < items.length && s < order.length) {
    const item = items[p];
    if (isJsonObject(item) && hasOwn(item, DIRECTIVE)) {
      p++;
      continue;
    }
    if (sameElement(item, order[s], mergeKey)) p++;
    s++;
  }
  if (p < items.length) {
    throw patchFormatError(
      `The order in patch list:\n${goFormat(patchList)}\n doesn't match $setElementOrder list:\n${goFormat(order)}`,
    );
  }
}
