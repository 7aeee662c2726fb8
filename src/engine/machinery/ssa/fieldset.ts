/**
 * FieldSet: a set of field paths, as server-side apply tracks ownership, with FieldsV1 encoding.
 * A path is a list of path elements, each already in FieldsV1 spelling: `f:<field>`, `k:<json of key fields>`,
 * `v:<json>`.
 */
import { canonicalJSON } from '../canonical-json.js';

export type PathElement = string;
export type Path = PathElement[];

export type FieldsV1 = { [key: string]: FieldsV1 };

/**
 * The most path elements field tracking takes in for one write (each member of a set keeps its whole path, so an
 * object or fieldsV1 shaped as a deep chain with leaves at every level holds elements quadratic in its size).
 * Ownership of every field of a 1.5 MB object by several managers stays far below it.
 */
export const MAX_TRACKED_PATH_ELEMENTS = 1 << 21;

/** Thrown by `add` once the running write's budget (withPathBudget) is spent. */
export class FieldTrackingTooLarge extends Error {
  constructor() {
    super(`field tracking of this object takes more than ${MAX_TRACKED_PATH_ELEMENTS} path elements`);
  }
}

// Writes are tracked synchronously, one at a time: the budget of the one being tracked (none outside).
let pathBudget = Number.POSITIVE_INFINITY;

/** Runs `fn` (one write's field tracking) with a fresh budget of MAX_TRACKED_PATH_ELEMENTS path elements. */
export function withPathBudget<T>(fn: () => T): T {
  const outer = pathBudget;
  pathBudget = MAX_TRACKED_PATH_ELEMENTS;
  try {
    return fn();
  } finally {
    pathBudget = outer;
  }
}

export class FieldSet {
  private readonly paths = new Map<string, Path>();
  /** Keys of every proper prefix of a member, built on the first hasChildrenOf and dropped by add/delete. */
  private prefixes: Set<string> | undefined;

  constructor(paths: Iterable<Path> = []) {
    for (const p of paths) this.add(p);
  }

  /**
   * Map key of a path. Elements are joined with NUL, which cannot occur inside one: `k:`/`v:` elements are JSON text
   * (NUL is escaped there) and `f:` names come from JSON object keys, where kube's names never hold it.
   */
  static key(p: Path): string {
    return p.join('\u0000');
  }

  add(p: Path): this {
    if ((pathBudget -= p.length) < 0) {
      pathBudget = 0;
      throw new FieldTrackingTooLarge();
    }
    this.paths.set(FieldSet.key(p), p);
    this.prefixes = undefined;
    return this;
  }

  delete(p: Path): boolean {
    this.prefixes = undefined;
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

  clone(): FieldSet {
    const copy = new FieldSet();
    for (const [k, p] of this.paths) copy.paths.set(k, p);
    return copy;
  }

  filter(keep: (p: Path) => boolean): FieldSet {
    return new FieldSet([...this].filter(keep));
  }

  /** Members in a stable order (by their rendering), for deterministic messages. */
  sorted(): Path[] {
    return [...this].sort((a, b) => (pathString(a) < pathString(b) ? -1 : pathString(a) > pathString(b) ? 1 : 0));
  }

  /** True when `prefix` itself or some path below it is a member. */
  hasPrefixOf(prefix: Path): boolean {
    return this.has(prefix) || this.hasChildrenOf(prefix);
  }

  union(other: FieldSet): FieldSet {
    const out = this.clone();
    for (const [k, p] of other.paths) out.paths.set(k, p);
    return out;
  }

  difference(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [k, p] of this.paths) if (!other.paths.has(k)) out.paths.set(k, p);
    return out;
  }

  intersection(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [k, p] of this.paths) if (other.paths.has(k)) out.paths.set(k, p);
    return out;
  }

  equals(other: FieldSet): boolean {
    return this.size === other.size && [...this].every((p) => other.has(p));
  }

  /** True when some member path starts with `prefix` and is longer than it. */
  hasChildrenOf(prefix: Path): boolean {
    if (prefix.length === 0) return this.paths.size > 0;
    // An index of prefixes, not a scan of the members: pruning an apply asks this for every path of the object, and
    // a scan per question was quadratic (8,000 dropped fields under 8,000 owners' held the loop for seconds).
    if (!this.prefixes) {
      this.prefixes = new Set();
      for (const p of this.paths.values()) {
        let key = '';
        for (let i = 0; i < p.length - 1; i++) this.prefixes.add((key = i === 0 ? p[0]! : `${key}\u0000${p[i]}`));
      }
    }
    return this.prefixes.has(FieldSet.key(prefix));
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

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
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
