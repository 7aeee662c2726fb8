/**
 * FieldSet: a set of field paths, as server-side apply tracks ownership, with FieldsV1 encoding.
 * A path is a list of path elements, each already in FieldsV1 spelling: `f:<field>`, `k:<json of key fields>`,
 * `v:<json>`.
 */
import { canonicalJSON, jsonEqual } from '../canonical-json.js';
import { fieldType, isAtomicMap, itemType, listTypeOf, type TypeInfo } from './type-info.js';

export type PathElement = string;
export type Path = PathElement[];

export type FieldsV1 = { [key: string]: FieldsV1 };

export class FieldSet {
  private readonly paths = new Map<string, Path>();

  constructor(paths: Iterable<Path> = []) {
    for (const p of paths) this.add(p);
  }

  static key(p: Path): string {
    return JSON.stringify(p);
  }

  add(p: Path): this {
    this.paths.set(FieldSet.key(p), [...p]);
    return this;
  }

  delete(p: Path): boolean {
    return this.paths.delete(FieldSet.key(p));
  }

  has(p: Path): boolean {
    return this.paths.has(FieldSet.key(p));
  }

  get size(): number {
    return this.paths.size;
  }

  isEmpty(): boolean {
    return this.paths.size === 0;
  }

  toArray(): Path[] {
    return [...this.paths.values()].map((p) => [...p]);
  }

  [Symbol.iterator](): IterableIterator<Path> {
    return this.paths.values();
  }

  union(other: FieldSet): FieldSet {
    return new FieldSet([...this, ...other]);
  }

  difference(other: FieldSet): FieldSet {
    return new FieldSet([...this].filter((p) => !other.has(p)));
  }

  intersection(other: FieldSet): FieldSet {
    return new FieldSet([...this].filter((p) => other.has(p)));
  }

  equals(other: FieldSet): boolean {
    return this.size === other.size && [...this].every((p) => other.has(p));
  }

  /** True when some member path starts with `prefix` and is longer than it. */
  hasChildrenOf(prefix: Path): boolean {
    const pk = FieldSet.key(prefix).slice(0, -1);
    for (const k of this.paths.keys()) if (k.length > pk.length + 1 && k.startsWith(pk) && (prefix.length === 0 || k[pk.length] === ',')) return true;
    return false;
  }

  toFieldsV1(): FieldsV1 {
    const root: FieldsV1 = {};
    // Mark which tree nodes are members.
    const members = new Set<FieldsV1>();
    for (const p of this) {
      let node = root;
      for (const pe of p) node = node[pe] ??= {};
      members.add(node);
    }
    const finish = (node: FieldsV1): void => {
      const keys = Object.keys(node);
      for (const k of keys) finish(node[k]!);
      if (keys.length > 0 && members.has(node)) {
        const sorted: FieldsV1 = { '.': {} };
        for (const k of keys) sorted[k] = node[k]!;
        for (const k of keys) delete node[k];
        Object.assign(node, sorted);
      }
    };
    finish(root);
    return sortKeys(root);
  }

  static fromFieldsV1(f: FieldsV1 | null | undefined): FieldSet {
    const set = new FieldSet();
    const walk = (node: FieldsV1, path: Path): void => {
      const keys = Object.keys(node ?? {});
      if (keys.length === 0) {
        if (path.length > 0) set.add(path);
        return;
      }
      for (const k of keys) {
        if (k === '.') {
          if (path.length > 0) set.add(path);
        } else walk(node[k]!, [...path, k]);
      }
    };
    walk(f ?? {}, []);
    return set;
  }
}

function sortKeys(node: FieldsV1): FieldsV1 {
  const out: FieldsV1 = {};
  const keys = Object.keys(node).sort((a, b) => (a === '.' ? -1 : b === '.' ? 1 : a < b ? -1 : a > b ? 1 : 0));
  for (const k of keys) out[k] = sortKeys(node[k]!);
  return out;
}

/** Metadata fields SSA tracks; everything else under metadata is ignored (name, uid, resourceVersion, ...). */
export const TRACKED_METADATA = new Set(['labels', 'annotations', 'finalizers', 'ownerReferences']);
/** Top-level fields never tracked. */
const IGNORED_TOP = new Set(['apiVersion', 'kind']);

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Canonical JSON with sorted object keys, used for `k:` and `v:` elements and value comparison. */
// One canonical JSON for the whole engine; re-exported under the names the SSA code uses.
export { canonicalJSON, jsonEqual as deepEqual };

export function fieldPE(name: string): PathElement {
  return `f:${name}`;
}

export function keyPE(item: unknown, keys: string[]): PathElement {
  const obj: Record<string, unknown> = {};
  const src = isPlainObject(item) ? item : {};
  for (const k of [...keys].sort()) if (src[k] !== undefined) obj[k] = src[k];
  return `k:${canonicalJSON(obj)}`;
}

export function valuePE(v: unknown): PathElement {
  return `v:${canonicalJSON(v)}`;
}

export interface FromObjectOptions {
  /** Also record `.` for granular maps (Update semantics: a newly created map is owned as a node). */
  mapNodes?: boolean;
  /** Treat `obj` as a top-level object: skip apiVersion/kind and untracked metadata (default true). */
  topLevel?: boolean;
}

/**
 * The set of paths an object sets: leaves (scalars, atomic lists and maps, empty containers) plus the node of
 * every map-list and set-list item.
 */
export function fromObject(obj: unknown, typeInfo: TypeInfo, opts: FromObjectOptions = {}): FieldSet {
  const set = new FieldSet();
  walkObject(obj, typeInfo, [], opts.topLevel ?? true, opts.mapNodes ?? false, set);
  return set;
}

function walkObject(v: unknown, t: TypeInfo, path: Path, top: boolean, mapNodes: boolean, set: FieldSet): void {
  if (Array.isArray(v)) {
    const lt = listTypeOf(t);
    if (lt === 'atomic' || path.length === 0) {
      set.add(path);
      return;
    }
    if (v.length === 0) {
      set.add(path);
      return;
    }
    for (const item of v) {
      if (lt === 'set') set.add([...path, valuePE(item)]);
      else {
        const p = [...path, keyPE(item, t!.keys ?? [])];
        set.add(p);
        walkObject(item, itemType(t), p, false, mapNodes, set);
      }
    }
    return;
  }
  if (isPlainObject(v)) {
    if (isAtomicMap(t)) {
      set.add(path);
      return;
    }
    const keys = Object.keys(v).filter((k) => v[k] !== undefined && v[k] !== null);
    if (keys.length === 0) {
      if (path.length > 0) set.add(path);
      return;
    }
    if (mapNodes && path.length > 0 && (!t || t.kind === 'map') && !path[path.length - 1]!.startsWith('k:')) set.add(path);
    for (const k of keys) {
      if (top && IGNORED_TOP.has(k)) continue;
      if (top && k === 'metadata') {
        const meta = v[k];
        if (!isPlainObject(meta)) continue;
        for (const mk of Object.keys(meta)) {
          if (!TRACKED_METADATA.has(mk) || meta[mk] === undefined || meta[mk] === null) continue;
          const mt = fieldType(fieldType(t, 'metadata'), mk);
          walkObject(meta[mk], mt, [fieldPE('metadata'), fieldPE(mk)], false, mapNodes, set);
        }
        continue;
      }
      walkObject(v[k], fieldType(t, k), [...path, fieldPE(k)], false, mapNodes, set);
    }
    return;
  }
  if (path.length > 0) set.add(path);
}

/** Render a path as kube prints it: `.spec.containers[name="nginx"].image`, `.metadata.finalizers[="x"]`. */
export function pathString(p: Path): string {
  let out = '';
  for (const pe of p) {
    if (pe.startsWith('f:')) out += `.${pe.slice(2)}`;
    else if (pe.startsWith('k:')) {
      const obj = JSON.parse(pe.slice(2)) as Record<string, unknown>;
      out += `[${Object.keys(obj)
        .map((k) => `${k}=${canonicalJSON(obj[k])}`)
        .join(',')}]`;
    } else if (pe.startsWith('v:')) out += `[=${pe.slice(2)}]`;
    else if (pe.startsWith('i:')) out += `[${pe.slice(2)}]`;
    else out += `.${pe}`;
  }
  return out;
}
