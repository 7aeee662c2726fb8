/**
 * Walks two values of one schema type side by side, the way structured-merge-diff's merging walker does: maps are
 * zipped by key, granular lists are zipped by item identity (key fields, or the value for sets), everything else
 * (scalars, atomic lists and maps, containers empty on both sides) is a leaf. Merge and Compare are both this walk
 * with different hooks, so they agree on what a "field" is.
 */
import { jsonEqual } from '../canonical-json.js';
import { setOwnValue } from '../own-properties.js';
import { listItemElement } from './list-items.js';
import type { Path, PathElement } from './fieldset.js';
import { fieldType, isAtomicMap, itemType, listTypeOf, type TypeInfo } from './type-info.js';

export interface PairHooks {
  /** A leaf: returns the merged value (undefined = absent). `lhs`/`rhs` undefined = absent on that side. */
  leaf(lhs: unknown, rhs: unknown, path: Path): unknown;
  /** After the children of a container node were walked (not called for leaves). */
  node?(lhs: unknown, rhs: unknown, path: Path): void;
}

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isEmptyMap(v: unknown): boolean {
  return v === undefined || v === null || (isObj(v) && Object.keys(v).length === 0);
}

function isEmptyList(v: unknown): boolean {
  return v === undefined || v === null || (Array.isArray(v) && v.length === 0);
}

/** How a node is walked: by its schema, or (untyped) by its value. Shape mismatches are leaves. */
function shapeOf(t: TypeInfo, lhs: unknown, rhs: unknown): 'leaf' | 'map' | 'list' {
  const present = [lhs, rhs].filter((v) => v !== undefined && v !== null);
  if (t === undefined) {
    // Untyped (preserve-unknown-fields): objects are granular maps, lists are atomic.
    return present.length > 0 && present.every(isObj) ? 'map' : 'leaf';
  }
  if (t.kind === 'list') {
    if (listTypeOf(t) === 'atomic' || !present.every(Array.isArray)) return 'leaf';
    return isEmptyList(lhs) && isEmptyList(rhs) ? 'leaf' : 'list';
  }
  if (t.kind === 'struct' || t.kind === 'map') {
    if (isAtomicMap(t) || !present.every(isObj)) return 'leaf';
    return isEmptyMap(lhs) && isEmptyMap(rhs) ? 'leaf' : 'map';
  }
  return 'leaf';
}

export function walkPair(lhs: unknown, rhs: unknown, t: TypeInfo, hooks: PairHooks, path: Path = []): unknown {
  const shape = shapeOf(t, lhs, rhs);
  if (shape === 'leaf') return hooks.leaf(lhs, rhs, path);
  const out = shape === 'map' ? walkMap(lhs as Obj | undefined, rhs as Obj | undefined, t, hooks, path) : walkList(lhs as unknown[], rhs as unknown[], t, hooks, path);
  hooks.node?.(lhs, rhs, path);
  return out;
}

function walkMap(lhs: Obj | null | undefined, rhs: Obj | null | undefined, t: TypeInfo, hooks: PairHooks, path: Path): unknown {
  const out: Obj = {};
  const visit = (key: string, l: unknown, r: unknown) => {
    const v = walkPair(l, r, fieldType(t, key), hooks, [...path, `f:${key}`]);
    if (v !== undefined) setOwnValue(out, key, v);
  };
  const left = lhs ?? {};
  const right = rhs ?? {};
  for (const key of Object.keys(left)) visit(key, left[key], Object.hasOwn(right, key) ? right[key] : undefined);
  for (const key of Object.keys(right)) if (!Object.hasOwn(left, key)) visit(key, undefined, right[key]);
  return Object.keys(out).length > 0 ? out : undefined;
}

interface Indexed {
  order: PathElement[];
  items: Map<PathElement, unknown>;
}

/** Items by identity, first occurrence wins (repeated items collapse, as upstream). */
function indexItems(list: unknown[] | null | undefined, t: TypeInfo): Indexed {
  const order: PathElement[] = [];
  const items = new Map<PathElement, unknown>();
  (list ?? []).forEach((item, i) => {
    const pe = listItemElement(item, t, i);
    if (items.has(pe)) return;
    items.set(pe, item);
    order.push(pe);
  });
  return { order, items };
}

/**
 * Zips two granular lists. The output keeps the live order unless the applied list reorders shared items, in
 * which case their relative order follows the applied list; new items are placed where the applied list has them.
 */
function walkList(lhs: unknown[] | undefined, rhs: unknown[] | undefined, t: TypeInfo, hooks: PairHooks, path: Path): unknown {
  const elem = itemType(t);
  const left = indexItems(lhs, t);
  const right = indexItems(rhs, t);
  const shared = right.order.filter((pe) => left.items.has(pe));
  let nextShared: PathElement | undefined = shared.shift();
  const out: unknown[] = [];
  const merge = (pe: PathElement, l: unknown, r: unknown) => {
    const v = walkPair(l, r, elem, hooks, [...path, pe]);
    if (v !== undefined) out.push(v);
  };
  let lI = 0;
  let rI = 0;
  while (lI < left.order.length || rI < right.order.length) {
    const before = lI + rI;
    if (lI < left.order.length && rI < right.order.length) {
      const pe = left.order[lI]!;
      if (pe === right.order[rI]) {
        merge(pe, left.items.get(pe), right.items.get(pe));
        lI++;
        rI++;
        nextShared = shared.shift();
        continue;
      }
      // A shared item the applied list wants later: it is merged when the applied side reaches it.
      if (right.items.has(pe) && nextShared !== undefined && nextShared !== pe) {
        lI++;
        continue;
      }
    }
    if (lI < left.order.length) {
      const pe = left.order[lI]!;
      if (!right.items.has(pe)) {
        merge(pe, left.items.get(pe), undefined);
        lI++;
        continue;
      }
    }
    if (rI < right.order.length) {
      const pe = right.order[rI]!;
      merge(pe, left.items.get(pe), right.items.get(pe));
      rI++;
      if (nextShared === pe) nextShared = shared.shift();
    }
    if (lI + rI === before) lI++; // a shared live item already merged from the applied side
  }
  return out.length > 0 ? out : undefined;
}

/** structured-merge-diff's Merge: the applied value wins at every leaf; containers merge. */
export function mergeValues(live: unknown, applied: unknown, t: TypeInfo): unknown {
  return walkPair(live, applied, t, { leaf: (l, r) => copy(r !== undefined ? r : l) });
}

function copy(v: unknown): unknown {
  return typeof v === 'object' && v !== null ? structuredClone(v) : v;
}

export { jsonEqual };
