/**
 * Objects the server creates itself, in the same shape every time, in a logical cluster that has nothing yet (a new
 * workspace's `default` and `kube-system` namespaces, their `default` ServiceAccounts, the creator's
 * `workspace-admin` binding). Each shape goes through the full create pipeline once (defaulting, managedFields,
 * validation, admission, canonical encoding) as a dry run; the stored text it gives is kept with holes where the
 * cluster, uid, creation time and the caller's variable strings go. Later creates of that shape fill the holes and
 * add the row to a WriteBatch: the stored bytes are exactly those the pipeline would have written, for a fraction
 * of the CPU (the pipeline cost ~100 µs per object, five times per workspace).
 *
 * Only for a cluster the batch itself brings to life: admission there has nothing to refuse (no quota, no object
 * cap before the LogicalCluster exists) and no namespace can be terminating.
 */
import { setOwnValue } from '../machinery/own-properties.js';
import { randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { nowTimestamp, toStorage } from './object-rules.js';
import { clusterAnnotation, encodeStored, objectKey } from './stored-object.js';
import { WriteBatch, type GenericStore, type OpContext } from './generic-store.js';
import type { KubeObject, ResourceType } from './types.js';

/** Stand-ins the dry run is made with; none can appear in an object by accident. */
const SAMPLE_CLUSTER = 'kcpttemplatezzzz';
const SAMPLE_UID = '00000000-0000-4000-8000-6b6370742d75';
const SAMPLE_TIME = '1970-01-01T00:00:42Z';
const slotSample = (name: string) => `kcpt-template-slot-${name}-end`;

type Hole = { kind: 'cluster' | 'uid' | 'time' } | { kind: 'slot'; name: string };

interface Template {
  /** Literal text around the holes: parts.length === holes.length + 1. */
  parts: string[];
  holes: Hole[];
}

export interface TemplateCreate {
  rt: ResourceType;
  cluster: string;
  namespace: string;
  /**
   * The object as a client would send it, the same for every create of this shape except for `{{name}}` strings,
   * which take the value of `slots[name]`.
   */
  object: KubeObject;
  slots?: Record<string, string>;
  /** As WriteOptions.withStatus: the server sets status together with the rest. */
  withStatus?: boolean;
}

const slotPattern = /^\{\{([a-z0-9]+)\}\}$/;
/** Shapes kept (a shape per workspace type and creator identity shape, in practice a handful). */
const MAX_TEMPLATES = 128;

/** A path to string leaves: keys, with `*` for any key or list index. */
export type LeafPath = readonly string[];

/** Leaf paths compiled into a tree, so that a walk visits only what they lead to. */
export interface SlotPaths {
  leaf: boolean;
  any?: SlotPaths;
  keys: Map<string, SlotPaths>;
}

export function slotPaths(paths: readonly LeafPath[]): SlotPaths {
  const root: SlotPaths = { leaf: false, keys: new Map() };
  for (const path of paths) {
    let node = root;
    for (const key of path) {
      const next = key === '*' ? node.any : node.keys.get(key);
      if (next) node = next;
      else {
        const created: SlotPaths = { leaf: false, keys: new Map() };
        if (key === '*') node.any = created;
        else node.keys.set(key, created);
        node = created;
      }
    }
    node.leaf = true;
  }
  return root;
}

/**
 * `object` with the strings at `paths` turned into slots, for a TemplateCreate: what varies from one create to the
 * next becomes a hole, everything else (keys, list lengths, other values) picks the template. Only the maps and
 * lists on the way to a slot are copied; the rest is shared with `object`.
 */
export function withSlots(object: KubeObject, paths: SlotPaths): { object: KubeObject; slots: Record<string, string> } {
  const found: Found = { slots: {}, count: 0 };
  return { object: slotted(object, paths, found) as KubeObject, slots: found.slots };
}

interface Found {
  slots: Record<string, string>;
  count: number;
}

/** withSlots' walk: a plain function with its state passed in (as closures it cost 10–11 µs per LogicalCluster, now 4–5). */
function slotted(value: unknown, node: SlotPaths, found: Found): unknown {
  if (typeof value === 'string') {
    if (!node.leaf) return value;
    const name = `s${found.count++}`;
    found.slots[name] = value;
    return `{{${name}}}`;
  }
  if (!value || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const out: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) {
      const child = node.keys.get(String(i)) ?? node.any;
      out[i] = child ? slotted(value[i], child, found) : value[i];
    }
    return out;
  }
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const v = (value as Record<string, unknown>)[key];
    const child = node.keys.get(key) ?? node.any;
    setOwnValue(out, key, child ? slotted(v, child, found) : v);
  }
  return out;
}

export class ObjectTemplates {
  private readonly templates = new LRUCache<string, { template: Template | null }>({ max: MAX_TEMPLATES });
  private readonly texts = new WeakMap<KubeObject, string>();
  /** Frozen object → (type, namespace, status) head → its cache key (see idOf). */
  private readonly ids = new WeakMap<KubeObject, Map<string, string>>();

  constructor(private readonly generic: GenericStore) {}

  /** Adds the create to `batch` (same result, events and index rows as `generic.create(…, { batch })`). */
  create(req: TemplateCreate, batch: WriteBatch): void {
    const { rt, cluster, namespace } = req;
    const template = this.templateFor(req);
    if (!template) {
      this.generic.create({ rt, cluster, namespace }, fill(req.object, req.slots ?? {}), { batch, withStatus: req.withStatus });
      return;
    }
    const name = req.object.metadata!.name!;
    const time = nowTimestamp();
    const uid = randomUUID();
    let value = template.parts[0]!;
    for (let i = 0; i < template.holes.length; i++) {
      const hole = template.holes[i]!;
      if (hole.kind === 'slot') value += jsonText(req.slots![hole.name]!);
      else value += hole.kind === 'cluster' ? cluster : hole.kind === 'uid' ? uid : time;
      value += template.parts[i + 1]!;
    }
    const key = objectKey(rt, cluster, namespace, name);
    const stored = JSON.parse(value) as KubeObject;
    if (rt.resource === 'namespaces' && rt.group === '') batch.namespaces.add(`${cluster}/${name}`);
    batch.add([{ type: 'create', key, value }, ...this.generic.indexOps(key, undefined, stored)], () => {});
  }

  private templateFor(req: TemplateCreate): Template | null {
    const id = this.idOf(req);
    let entry = this.templates.get(id);
    if (entry === undefined) {
      entry = { template: this.build(req) };
      this.templates.set(id, entry);
    }
    return entry.template;
  }

  /**
   * The cache key of a create's shape. For a frozen object the same string is handed back each time: a fresh
   * concatenation of the object's JSON had to be hashed and compared in full on every lookup (~2 % of a
   * workspace's creation CPU for its five template writes).
   */
  private idOf(req: TemplateCreate): string {
    const head = `${req.rt.storagePrefix}|${req.namespace}|${req.withStatus ? 's' : ''}|`;
    if (!Object.isFrozen(req.object)) return head + JSON.stringify(req.object);
    let ids = this.ids.get(req.object);
    if (!ids) this.ids.set(req.object, (ids = new Map()));
    let id = ids.get(head);
    if (id === undefined) {
      id = head + this.textOf(req.object);
      // Bounded: a constant is created in a handful of namespaces, not in every one.
      if (ids.size < 16) ids.set(head, id);
    }
    return id;
  }

  /**
   * The object's JSON, remembered for objects callers pass again and again (frozen, so the text stays true): most
   * shapes are constants, and serializing one cost as much as filling its template.
   */
  private textOf(object: KubeObject): string {
    if (!Object.isFrozen(object)) return JSON.stringify(object);
    let text = this.texts.get(object);
    if (text === undefined) this.texts.set(object, (text = JSON.stringify(object)));
    return text;
  }

  /** The dry run; null (use the pipeline every time) when it fails or does not split cleanly into text and holes. */
  private build(req: TemplateCreate): Template | null {
    try {
      return this.split(req);
    } catch {
      // Refused with stand-in values (a real create may still pass): such a shape always takes the pipeline.
      return null;
    }
  }

  private split(req: TemplateCreate): Template | null {
    const samples: Record<string, string> = {};
    const slotNames = new Set<string>();
    collectSlots(req.object, slotNames);
    for (const name of slotNames) samples[name] = slotSample(name);
    const ctx: OpContext = { rt: req.rt, cluster: SAMPLE_CLUSTER, namespace: req.namespace };
    const scratch = new WriteBatch();
    // A namespaced object is made in a namespace the real batch creates too.
    scratch.namespaces.add(`${SAMPLE_CLUSTER}/${req.namespace}`);
    const obj = this.generic.create(ctx, fill(req.object, samples), { dryRun: true, batch: scratch, withStatus: req.withStatus });
    const meta = obj.metadata!;
    const generated = [meta.uid!, meta.creationTimestamp!];
    meta.uid = SAMPLE_UID;
    meta.creationTimestamp = SAMPLE_TIME;
    for (const entry of (meta.managedFields ?? []) as Array<{ time?: string }>) if (entry.time !== undefined) entry.time = SAMPLE_TIME;
    const text = encodeStored(toStorage(req.rt, obj));
    // The uid and time must live only where they were replaced, the cluster only in its annotation.
    if (meta.annotations?.[clusterAnnotation] !== SAMPLE_CLUSTER || generated.some((g) => text.includes(g))) return null;
    const markers: Array<[string, Hole]> = [
      [SAMPLE_CLUSTER, { kind: 'cluster' }],
      [SAMPLE_UID, { kind: 'uid' }],
      [SAMPLE_TIME, { kind: 'time' }],
      ...[...slotNames].map((name): [string, Hole] => [samples[name]!, { kind: 'slot', name }]),
    ];
    const parts: string[] = [];
    const holes: Hole[] = [];
    let from = 0;
    for (;;) {
      let next: { at: number; marker: string; hole: Hole } | undefined;
      for (const [marker, hole] of markers) {
        const at = text.indexOf(marker, from);
        if (at >= 0 && (!next || at < next.at)) next = { at, marker, hole };
      }
      if (!next) break;
      parts.push(text.slice(from, next.at));
      holes.push(next.hole);
      from = next.at + next.marker.length;
    }
    parts.push(text.slice(from));
    // Every slot must land in a plain JSON string (its text unescaped), never in a managedFields key or a name.
    if (holes.filter((h) => h.kind === 'slot').length !== slotNames.size) return null;
    return { parts, holes };
  }
}

/** Characters JSON.stringify writes escaped: quote, backslash, controls, lone surrogates (checked as any surrogate). */
const needsEscape = /["\\\u0000-\u001f\ud800-\udfff]/;

/** A string's text as it appears inside a JSON string literal. */
function jsonText(value: string): string {
  if (!needsEscape.test(value)) return value;
  const quoted = JSON.stringify(value);
  return quoted.slice(1, -1);
}

function collectSlots(value: unknown, into: Set<string>): void {
  if (typeof value === 'string') {
    const m = slotPattern.exec(value);
    if (m) into.add(m[1]!);
  } else if (Array.isArray(value)) {
    for (const v of value) collectSlots(v, into);
  } else if (value && typeof value === 'object') {
    for (const v of Object.values(value)) collectSlots(v, into);
  }
}

/** A copy of `value` with `{{name}}` strings replaced by `slots[name]`. */
function fill<T>(value: T, slots: Record<string, string>): T {
  if (typeof value === 'string') {
    const m = slotPattern.exec(value);
    return (m ? slots[m[1]!] : value) as T;
  }
  if (Array.isArray(value)) return value.map((v) => fill(v, slots)) as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v, slots)])) as T;
  }
  return value;
}
