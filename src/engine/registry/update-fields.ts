/**
 * managedFields of updates, computed once per shape of change. An update's new managedFields depend only on the
 * managers it starts from (minus their times), on which fields it adds, changes and removes, and on who writes;
 * controllers make the same change to objects of the same shape over and over (a workspace's Scheduling → Ready
 * update, a status condition flipping), and the field-set work (decoding fieldsV1 into path sets, the
 * structured-merge-diff comparison, set algebra, encoding) costs far more than describing the change. The
 * description (`changeShape`) keeps everything the comparison can see: map keys, every list in full where it
 * differs, scalars only as "same" or "changed", so two writes with one description get one result.
 *
 * Times are the only values carried over from the input managers into the result; the cached result names them by
 * position (tokens), and each write puts in its own times and sorts the list as Managers.encode would.
 */
import { LRUCache } from 'lru-cache';
import { compareEntries, MAX_UPDATE_MANAGERS, type ManagedFieldsEntry } from '../machinery/ssa/managers.js';
import { deepFreeze } from '../machinery/deep-freeze.js';
import type { ResourceType } from './types.js';

/** Change shapes remembered per resource type. */
const CACHED_UPDATE_SHAPES = 256;
/** Stands for a time in a cached result: `<token>now`, `<token>s<i>` (sent entry i), `<token>l<i>` (live entry i). */
const TIME_TOKEN = '\u0000time:';

type Obj = Record<string, unknown>;

export interface UpdateWrite {
  manager: string;
  subresource?: string;
}

/**
 * Computes managedFields from the request's entries (`sent`), the live object's (`live`) and the write's time, as
 * FieldManager.recordWrite's uncached path does.
 */
export type ComputeEntries = (sent: unknown, live: unknown, now: string) => ManagedFieldsEntry[];

export class UpdateFieldsCache {
  private readonly byType = new WeakMap<ResourceType, LRUCache<string, readonly ManagedFieldsEntry[]>>();

  /**
   * The managedFields of a write changing `before` into `after` (both as field tracking sees them), `compute`d once
   * per change shape. `topLevelIgnored` names the top-level fields the write may not own (their changes cannot
   * matter, and leaving them out keeps changing timestamps in status conditions from making every shape new).
   */
  entries(
    rt: ResourceType,
    write: UpdateWrite,
    change: { before: Obj | undefined; after: Obj; sent: unknown; live: unknown; now: string; topLevelIgnored?: (key: string) => boolean },
    compute: ComputeEntries,
  ): ManagedFieldsEntry[] {
    const { sent, live, now } = change;
    const sentKey = entriesKey(sent);
    // A settled write hands the live list on as the one it sends (the scheduler's Ready update): one key for both.
    const liveKey = live === sent ? sentKey : entriesKey(live);
    if (sentKey === undefined || liveKey === undefined) return compute(sent, live, now);
    let cache = this.byType.get(rt);
    if (!cache) this.byType.set(rt, (cache = new LRUCache({ max: CACHED_UPDATE_SHAPES })));
    const key = `${write.manager}\u0000${write.subresource ?? ''}\u0000${sentKey}\u0000${liveKey}\u0000${changeShape(change.before ?? {}, change.after, change.topLevelIgnored)}`;
    let shaped = cache.get(key);
    if (!shaped) {
      const computed = compute(withTimeTokens(sent, 's'), withTimeTokens(live, 'l'), `${TIME_TOKEN}now`);
      // Only times may come from the inputs; anything else would make the result depend on more than the key.
      if (!computed.every((e) => e.time === undefined || e.time.startsWith(TIME_TOKEN))) return compute(sent, live, now);
      shaped = computed.map((e) => Object.freeze(deepFreeze({ ...e })));
      cache.set(key, shaped);
    }
    return shaped.map((e) => (e.time === undefined ? { ...e } : { ...e, time: timeOf(e.time, sent, live, now) })).sort(compareEntries);
  }
}

/**
 * What of a managedFields list its managers depend on, times left out; undefined when the list is not cached (not a
 * list of objects, or long enough that Update entries could be folded into `ancient-changes`, which goes by time).
 */
function entriesKey(entries: unknown): string | undefined {
  if (entries === undefined || entries === null) return String(entries);
  if (!Array.isArray(entries) || entries.length >= MAX_UPDATE_MANAGERS) return undefined;
  let out = '[';
  for (const e of entries) {
    if (typeof e !== 'object' || e === null || Array.isArray(e)) return undefined;
    const { time, ...rest } = e as ManagedFieldsEntry;
    out += `${typeof time === 'string' ? 't' : '-'}${JSON.stringify(rest)},`;
  }
  return `${out}]`;
}

function withTimeTokens(entries: unknown, side: 's' | 'l'): unknown {
  if (!Array.isArray(entries)) return entries;
  return entries.map((e: ManagedFieldsEntry, i) => (typeof e.time === 'string' ? { ...e, time: `${TIME_TOKEN}${side}${i}` } : e));
}

function timeOf(token: string, sent: unknown, live: unknown, now: string): string {
  const ref = token.slice(TIME_TOKEN.length);
  if (ref === 'now') return now;
  const list = (ref[0] === 's' ? sent : live) as ManagedFieldsEntry[];
  return list[Number(ref.slice(1))]!.time!;
}

/**
 * A description of the change from `before` to `after` that determines which fields it adds, modifies and removes
 * under any schema: maps by key; equal values as `=`; differing scalars as `~`; lists and anything present on one
 * side only by their shape, lists in full (set and map lists own their items by value).
 */
export function changeShape(before: unknown, after: unknown, topLevelIgnored?: (key: string) => boolean): string {
  if (before === after) return '=';
  if (before === undefined) return `+${shapeOf(after)}`;
  if (after === undefined) return `-${shapeOf(before)}`;
  if (isObj(before) && isObj(after)) {
    let out = '{';
    for (const key of Object.keys(before)) {
      if (topLevelIgnored?.(key)) continue;
      out += `${JSON.stringify(key)}:${changeShape(before[key], Object.hasOwn(after, key) ? after[key] : undefined)},`;
    }
    for (const key of Object.keys(after)) {
      if (Object.hasOwn(before, key) || topLevelIgnored?.(key)) continue;
      out += `${JSON.stringify(key)}:+${shapeOf(after[key])},`;
    }
    return `${out}}`;
  }
  const scalar = (v: unknown) => v !== null && typeof v !== 'object';
  if (scalar(before) && scalar(after)) return '~';
  const [b, a] = [shapeOf(before), shapeOf(after)];
  if (Array.isArray(before) && Array.isArray(after) && b === a) return '=';
  return `~${b}|${a}`;
}

/** Map keys recursively, lists in full, `n` for null and `0` for any other scalar. */
function shapeOf(value: unknown): string {
  if (value === null) return 'n';
  if (Array.isArray(value)) return JSON.stringify(value);
  if (typeof value !== 'object') return '0';
  let out = '{';
  for (const key of Object.keys(value)) out += `${JSON.stringify(key)}:${shapeOf((value as Obj)[key])},`;
  return `${out}}`;
}

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
