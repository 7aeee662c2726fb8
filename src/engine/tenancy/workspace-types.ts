/**
 * WorkspaceType resolution as kcp's admission does it: a reference without a path is looked up in the workspace
 * and then up its parents (root last); a type "is" every type it transitively extends (its aliases); a parent's
 * `limitAllowedChildren` and a child's `limitAllowedParents` are checked against every alias, with kcp's messages.
 */
import { LRUCache } from 'lru-cache';
import { deepFreeze } from '../machinery/deep-freeze.js';
import type { KubeObject } from '../registry/types.js';
import type { Store, WatchHandle } from '../storage/store.js';
import type { ClusterPaths } from './cluster-paths.js';
import { PATH_ANNOTATION, ROOT_CLUSTER, splitPath } from '../machinery/kcp-names.js';
import { LocalPathIndex } from './path-index.js';

export const workspaceTypesPrefix = '/registry/tenancy.kcp.io/workspacetypes/';

export interface TypeReference {
  name: string;
  path?: string;
}

export interface WorkspaceTypeSpec {
  initializer?: boolean;
  terminator?: boolean;
  extend?: { with?: TypeReference[] };
  additionalWorkspaceLabels?: Record<string, string>;
  defaultChildWorkspaceType?: TypeReference;
  limitAllowedChildren?: { none?: boolean; types?: TypeReference[] };
  limitAllowedParents?: { none?: boolean; types?: TypeReference[] };
  defaultAPIBindings?: { path?: string; export: string }[];
  defaultAPIBindingLifecycle?: 'InitializeOnly' | 'Maintain';
}

export interface WorkspaceType extends KubeObject {
  spec?: WorkspaceTypeSpec;
}

/** A reference as kcp prints it: `path:name`, or the bare name without a path. */
export function referenceString(ref: TypeReference): string {
  return ref.path ? `${ref.path}:${ref.name}` : ref.name;
}

/** `<canonical path of its workspace>:<name>`: how kcp names a type (and its initializer). */
export function qualifiedName(t: WorkspaceType): string {
  return `${canonicalPathOf(t)}:${t.metadata!.name}`;
}

export function canonicalPathOf(t: WorkspaceType): string {
  return t.metadata?.annotations?.[PATH_ANNOTATION] ?? '';
}

/** A problem kcp reports as Forbidden during workspace admission. */
export class TypeResolutionError extends Error {}

/** kcp's answer for a reference to no type: with a path its lookup's NotFound wrapped in an InternalError. */
export function typeNotFound(ref: TypeReference): TypeResolutionError {
  if (ref.path) return new TypeResolutionError(`Internal error occurred: workspacetypes.tenancy.kcp.io "${referenceString(ref)}" not found`);
  return new TypeResolutionError(`workspace type "${referenceString(ref)}" cannot be resolved`);
}

/**
 * The WorkspaceTypes of the other shards of a deployment (kcp's cache server: types are replicated to every shard),
 * by the path or cluster name of their workspace.
 */
export interface RemoteWorkspaceTypes {
  workspaceType(path: string, name: string): KubeObject | undefined;
  /** Calls `listener` after a replicated type changed. */
  onTypeChange(listener: () => void): void;
}

/** Parsed types kept (a handful are used by nearly every workspace create: root's universal, organization, …). */
const CACHED_TYPES = 1024;
const NO_TYPE: WorkspaceType = Object.freeze({});

export class WorkspaceTypes {
  /**
   * `<cluster>/<name>` → the stored type, parsed once and frozen (NO_TYPE: none). Filled only while the watch that
   * keeps it right runs (between start and stop).
   */
  private readonly cache = new LRUCache<string, WorkspaceType>({ max: CACHED_TYPES });
  /** Each type's aliases, computed once per parsed type. */
  private readonly aliasCache = new WeakMap<WorkspaceType, WorkspaceType[]>();
  private watch?: WatchHandle;
  /** Paths of the types stored here, for workspaces whose path does not lead here through Workspace objects. */
  private readonly localPaths: LocalPathIndex;
  private remote?: RemoteWorkspaceTypes;
  private readonly listeners: Array<() => void> = [];

  constructor(
    private readonly store: Store,
    private readonly paths: ClusterPaths,
  ) {
    this.localPaths = new LocalPathIndex(store, workspaceTypesPrefix, (cluster) => paths.pathOf(cluster));
  }

  /** Types of other shards: found when none here matches. */
  useRemote(remote: RemoteWorkspaceTypes): void {
    this.remote = remote;
    remote.onTypeChange(() => {
      this.cache.clear();
      for (const l of this.listeners) l();
    });
  }

  /** Calls `listener` when a type of another shard changed (this shard's changes are seen by watching the store). */
  onRemoteChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  start(): void {
    this.watch = this.store.watch(workspaceTypesPrefix, this.store.currentRevision(), (events) => {
      // A change of any type may change another's aliases (extend.with): forget them all; types change rarely.
      if (events.length > 0) this.cache.clear();
    });
  }

  stop(): void {
    this.watch?.cancel();
    this.watch = undefined;
    this.localPaths.stop();
    this.cache.clear();
  }

  /**
   * The type `name` in the workspace at `path` (a path or a cluster name): this shard's, else another shard's (a
   * sharded deployment). Shared and frozen: never mutate it.
   */
  get(path: string, name: string): WorkspaceType | undefined {
    // The workspace tree decides where it can; the paths types carry only answer beyond it (another shard's part).
    const found = this.paths.locate(path);
    if ('missing' in found) return undefined;
    const cluster = 'cluster' in found ? found.cluster : this.remote ? this.localPaths.clusterOfPath(path) : undefined;
    const local = cluster ? this.getLocal(cluster, name) : undefined;
    if (local || !this.remote) return local;
    return this.remote.workspaceType(cluster ?? path, name) as WorkspaceType | undefined;
  }

  private getLocal(cluster: string, name: string): WorkspaceType | undefined {
    const key = `${cluster}/${name}`;
    let type = this.watch ? this.cache.get(key) : undefined;
    if (type === undefined) {
      const kv = this.store.get(`${workspaceTypesPrefix}${key}`);
      type = kv ? deepFreeze(JSON.parse(kv.value) as WorkspaceType) : NO_TYPE;
      if (this.watch) this.cache.set(key, type);
    }
    return type === NO_TYPE ? undefined : type;
  }

  /** kcp's resolveTypeRef: an explicit path, else the workspace and its parents, root as the last chance. */
  resolve(workspacePath: string, ref: TypeReference): WorkspaceType {
    if (ref.path) {
      const t = this.get(ref.path, ref.name);
      if (!t) throw typeNotFound(ref);
      return t;
    }
    let path: string | undefined = workspacePath;
    const tried = new Set<string>();
    while (path !== undefined && !tried.has(path)) {
      tried.add(path);
      const t = this.get(path, ref.name);
      if (t) return t;
      const { parent } = splitPath(path);
      path = parent ?? (path === ROOT_CLUSTER ? undefined : ROOT_CLUSTER);
    }
    throw typeNotFound(ref);
  }

  /** Every type `t` transitively extends, then `t` itself; a cycle or a missing base is an error with kcp's text. */
  aliases(t: WorkspaceType): WorkspaceType[] {
    const known = this.aliasCache.get(t);
    if (known) return known;
    const computed = Object.freeze(this.computeAliases(t)) as WorkspaceType[];
    // Cached with the (frozen, cached) type object: a changed type is a new object.
    if (Object.isFrozen(t)) this.aliasCache.set(t, computed);
    return computed;
  }

  private computeAliases(t: WorkspaceType): WorkspaceType[] {
    const seen = new Set<string>();
    const walk = (current: WorkspaceType, trail: string[]): WorkspaceType[] => {
      const self = qualifiedName(current);
      seen.add(self);
      const path = [...trail, self];
      const out: WorkspaceType[] = [];
      for (const base of current.spec?.extend?.with ?? []) {
        const name = referenceString(base);
        const cycleStart = path.indexOf(name);
        if (cycleStart >= 0) {
          throw new TypeResolutionError(`circular dependency detected in workspace type ${name}: ${path.slice(cycleStart).join(' -> ')}`);
        }
        if (seen.has(name)) continue;
        const baseType = base.path ? this.get(base.path, base.name) : undefined;
        if (!baseType) throw new TypeResolutionError(`unable to find inherited workspace type ${name}`);
        out.push(baseType, ...walk(baseType, path));
      }
      return out;
    };
    return [...walk(t, []), t];
  }

  /** Initializer names of a workspace of this type: every alias with `initializer: true`, extended types first. */
  initializers(aliases: WorkspaceType[]): string[] {
    const out = aliases.filter((a) => a.spec?.initializer).map(qualifiedName);
    if (aliases.some((a) => (a.spec?.defaultAPIBindings ?? []).length > 0)) out.push('system:apibindings');
    return [...new Set(out)];
  }

  terminators(aliases: WorkspaceType[]): string[] {
    return [...new Set(aliases.filter((a) => a.spec?.terminator).map(qualifiedName))];
  }

  /**
   * Whether a child of type `childType` (aliases `childAliases`) may live in a parent of type `parentType`; throws
   * kcp's messages otherwise.
   */
  checkPlacement(parentType: string, parentAliases: WorkspaceType[], childType: string, childAliases: WorkspaceType[]): void {
    const errors: string[] = [];
    const names = (list: WorkspaceType[]) => goList(list.map(qualifiedName));
    for (const child of childAliases) {
      const limit = child.spec?.limitAllowedParents;
      if (limit?.none) errors.push(`workspace type ${childType} cannot have any parent`);
      if (!limit || !limit.types || limit.types.length === 0) continue;
      if (!matchesAny(parentAliases, limit.types)) {
        const extending = qualifiedName(child) !== childType ? ` extends ${qualifiedName(child)}, which` : '';
        errors.push(
          `workspace type ${childType}${extending} only allows ${goList(limit.types.map(referenceString))} parent workspaces, ` +
            `but parent type ${parentType} only implements ${names(parentAliases)}`,
        );
      }
    }
    for (const parent of parentAliases) {
      const limit = parent.spec?.limitAllowedChildren;
      if (limit?.none) {
        errors.push(`workspace type ${parentType} cannot have any children`);
        continue;
      }
      if (!limit || !limit.types || limit.types.length === 0) continue;
      if (!matchesAny(childAliases, limit.types)) {
        const extending = qualifiedName(parent) !== parentType ? ` extends ${qualifiedName(parent)}, which` : '';
        errors.push(
          `workspace type ${parentType}${extending} only allows ${goList(limit.types.map(referenceString))} child workspaces, ` +
            `but child type ${childType} only implements ${names(childAliases)}`,
        );
      }
    }
    if (errors.length === 1) throw new TypeResolutionError(errors[0]);
    if (errors.length > 1) throw new TypeResolutionError(`[${errors.join(', ')}]`);
  }
}

function matchesAny(aliases: WorkspaceType[], allowed: TypeReference[]): boolean {
  const allowedNames = new Set(allowed.map(referenceString));
  return aliases.some((a) => allowedNames.has(qualifiedName(a)));
}

/** Go's `%v` of a sorted, de-duplicated string slice: `[a b c]`. */
function goList(items: string[]): string {
  return `[${[...new Set(items)].sort().join(' ')}]`;
}
