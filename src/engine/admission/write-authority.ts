/**
 * Who may write which field: the one admission step every write goes through. The generic store asks it on every
 * create, update (PUT, each patch type, apply, every subresource) and delete, whoever calls the store — the API, the
 * virtual workspaces, other shards (as `system:masters`), the server's own controllers — and snapshot restore asks it
 * for every object it recreates. It follows kcp's admission plugins (ReservedMetadata, PathAnnotation, LogicalCluster,
 * LogicalClusterDeletionFinalizer, Workspace, ReservedCRDGroups and the system CRD authorizer) with their messages:
 *
 * - labels and annotations in the `kcp.io` (and `internal.kcpt.dev`) domain: reserved-metadata.ts;
 * - `kcp.io/path` is derived, never taken from a client: on a LogicalCluster the system writes it from the workspace
 *   tree; every other object that carries it (APIExports, APIBindings and WorkspaceTypes always do) gets its
 *   workspace's path stamped on every write;
 * - a LogicalCluster is the system's: created, deleted (unless `spec.directlyDeletable`), its spec and its status
 *   changed by the system only; an initializer (terminator) may remove itself from its status list through its
 *   virtual workspace (a WriteGrant);
 * - the status of APIExports and APIBindings is written by the system only;
 * - a Workspace's `spec.cluster` and `spec.URL` by the system only;
 * - Shards exist in root only; CRDs may not take kcp's own API groups.
 *
 * "The system" is the server itself (no user, or a write it makes on a user's behalf), `system:masters` (the shard
 * admin, and other shards) and kcp's logical-cluster admin and workspace bootstrapper groups; `system:kcp:admin` may
 * also write the admin-reserved keys; everyone else, a workspace's own admin included, is a tenant.
 */
import {
  EXTERNAL_LOGICAL_CLUSTER_ADMIN_GROUP,
  KCP_ADMIN_GROUP,
  LOGICAL_CLUSTER_ADMIN_GROUP,
  MASTERS_GROUP,
  WORKSPACE_BOOTSTRAPPER_GROUP,
} from '../machinery/user-groups.js';
import { record } from '../machinery/field-values.js';
import { forbidden, invalid, type StatusError } from '../machinery/status.js';
import { jsonEqual } from '../registry/stored-object.js';
import type { KubeObject, StrategyContext, WriteGrant } from '../registry/types.js';
import type { DeleteAttempt, WriteAttempt, WriteReview } from '../registry/write-admission.js';
import { PATH_ANNOTATION, ROOT_CLUSTER } from '../machinery/kcp-names.js';
import { annotationTier, labelTier, reservedChange, type Tier } from './reserved-metadata.js';

export type { Tier as Clearance } from './reserved-metadata.js';


const SYSTEM_GROUPS = [MASTERS_GROUP, LOGICAL_CLUSTER_ADMIN_GROUP, EXTERNAL_LOGICAL_CLUSTER_ADMIN_GROUP, WORKSPACE_BOOTSTRAPPER_GROUP];

/** How far a writer is cleared (kcp's userClearance; a write the server makes on a user's behalf is the server's). */
export function clearanceOf(ctx: Pick<StrategyContext, 'user' | 'onBehalfOfUser'>): Tier {
  if (!ctx.user || ctx.onBehalfOfUser) return 'system';
  const groups = ctx.user.groups;
  if (SYSTEM_GROUPS.some((g) => groups.includes(g))) return 'system';
  return groups.includes(KCP_ADMIN_GROUP) ? 'admin' : 'tenant';
}

/** Kinds whose status only the system writes (kcp's system CRD authorizer; the authorizer asks this too). */
const SYSTEM_STATUS = new Set(['apis.kcp.io/apiexports', 'apis.kcp.io/apibindings']);

export function statusWrittenBySystem(group: string, resource: string): boolean {
  return SYSTEM_STATUS.has(`${group}/${resource}`);
}

/** Kinds that always carry their workspace's path (kcp's PathAnnotation list, and APIBindings as kcpt names them). */
const PATH_STAMPED = new Set(['apis.kcp.io/apiexports', 'apis.kcp.io/apibindings', 'tenancy.kcp.io/workspacetypes']);

/** API groups of kcp's own kinds, which share their storage with any CRD of the same group and resource. */
function reservedCRDGroup(group: string): boolean {
  return group.endsWith('apis.kcp.io') || group === 'core.kcp.io' || group === 'tenancy.kcp.io';
}

type Refusal = StatusError | undefined;

interface KindRules {
  /** Decided for every clearance, the system's included. */
  always?(w: WriteAttempt): Refusal;
  /** Decided for writers below the system's clearance. */
  write?(w: WriteAttempt, clearance: Tier): Refusal;
  remove?(w: DeleteAttempt, clearance: Tier): Refusal;
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const nameOf = (obj: KubeObject | undefined) => obj?.metadata?.name ?? '';

/** The first top-level field of `a` and `b` that differs. */
function firstChange(a: Record<string, unknown>, b: Record<string, unknown>): string | undefined {
  for (const key of new Set([...Object.keys(b), ...Object.keys(a)])) if (!jsonEqual(a[key], b[key])) return key;
  return undefined;
}

const sameSet = (a: string[], b: string[]) => a.length === b.length && a.every((x) => b.includes(x)) && b.every((x) => a.includes(x));

const LC = { group: 'core.kcp.io', resource: 'logicalclusters' };
const DELETION_FINALIZER = 'core.kcp.io/logicalcluster-deletion';
/** kcp's phase ordering for LogicalClusters: no going back. Other phases count as 0. */
const phaseOrdinal: Record<string, number> = { '': 1, Scheduling: 2, Initializing: 3, Ready: 4 };

/** kcp's LogicalCluster admission for a status change by someone who is not the system (its order, its words). */
function logicalClusterStatusRule(obj: KubeObject, old: KubeObject): string | undefined {
  const specInit = strings(record(obj.spec).initializers);
  const status = record(obj.status);
  const was = record(old.status);
  const now = strings(status.initializers);
  const before = strings(was.initializers);
  const phase = typeof status.phase === 'string' ? status.phase : '';
  const oldPhase = typeof was.phase === 'string' ? was.phase : '';
  const toInitializing = oldPhase !== 'Initializing' && phase === 'Initializing';
  if (toInitializing && !sameSet(specInit, now)) return 'status.initializers do not equal spec.initializers';
  if (!toInitializing && phase === 'Initializing' && !now.every((i) => before.includes(i))) return 'status.initializers must not grow';
  if (phase !== 'Initializing' && !sameSet(before, now)) return 'status.initializers is immutable after initialization';
  if (oldPhase === 'Initializing' && phase !== 'Initializing' && now.length > 0) return 'status.initializers is not empty';
  if ((phaseOrdinal[oldPhase] ?? 0) > (phaseOrdinal[phase] ?? 0)) return `cannot transition from "${oldPhase}" to "${phase}"`;
  return undefined;
}

/** The lifecycle virtual workspaces' answers name a different kind for each list (as kcp's do). */
const lifecycleRoles = {
  initializers: { role: 'initializer', kind: { group: 'tenancy.kcp.io', kind: 'Workspace' } },
  terminators: { role: 'terminator', kind: { group: 'core.kcp.io', kind: 'LogicalCluster' } },
} as const;

/** Go's `%#v` of a `[]string`, which kcp's field error prints: `[]string{"a", "b"}`, `[]string(nil)`. */
function goStringSlice(items: string[] | undefined): string {
  return items === undefined ? '[]string(nil)' : `[]string{${items.map((i) => JSON.stringify(i)).join(', ')}}`;
}

/** An initializer (terminator) may take itself, and nothing else, off the list; the rest of status stays. */
function lifecycleChange(obj: KubeObject, old: KubeObject, grant: WriteGrant['lifecycle']): Refusal {
  const { list, name } = grant;
  const status = record(obj.status);
  const was = record(old.status);
  const current = Array.isArray(status[list]) ? strings(status[list]) : undefined;
  const expected = strings(was[list]).filter((n) => n !== name);
  const removedItself = expected.length < strings(was[list]).length && jsonEqual(current ?? [], expected);
  const { [list]: _now, ...restNow } = status;
  const { [list]: _was, ...restWas } = was;
  if (removedItself && jsonEqual(restNow, restWas)) return undefined;
  const { role, kind } = lifecycleRoles[list];
  return invalid(kind, nameOf(obj), [
    {
      type: 'FieldValueInvalid',
      field: `status.${list}`,
      detail: `Invalid value: ${goStringSlice(current)}: only removing the "${name}" ${role} is supported`,
    },
  ]);
}

const logicalClusterRules: KindRules = {
  write(w) {
    const { object: obj, old } = w;
    const deny = (message: string) => forbidden(LC, nameOf(obj), message);
    if (!old) return deny('LogicalCluster cannot be created');
    const specField = firstChange(record(obj.spec), record(old.spec));
    if (specField === 'initializers') return deny('spec.initializers is immutable');
    if (specField !== undefined) return deny(`spec.${specField} can only be changed by system privileged users`);
    const had = (old.metadata?.finalizers ?? []).includes(DELETION_FINALIZER);
    if (had && !(obj.metadata?.finalizers ?? []).includes(DELETION_FINALIZER)) {
      return deny(obj.metadata?.deletionTimestamp ? `removing the finalizer ${DELETION_FINALIZER} is forbidden` : `finalizer ${DELETION_FINALIZER} is required`);
    }
    if (jsonEqual(obj.status, old.status)) return undefined;
    const grant = w.ctx.grant?.lifecycle;
    if (grant && w.subresource === 'status') return lifecycleChange(obj, old, grant);
    const rule = logicalClusterStatusRule(obj, old);
    if (rule) return deny(rule);
    const statusField = firstChange(record(obj.status), record(old.status));
    return deny(`status${statusField ? `.${statusField}` : ''} can only be changed by system privileged users`);
  },
  remove(w) {
    if (record(w.object.spec).directlyDeletable === true) return undefined;
    return forbidden(LC, nameOf(w.object), 'LogicalCluster cannot be deleted');
  },
};

const systemStatusRules: KindRules = {
  write(w) {
    if (!w.old || jsonEqual(w.object.status, w.old.status)) return undefined;
    return forbidden({ group: w.group, resource: w.resource }, nameOf(w.object), 'status update not permitted');
  },
};

const workspaceRules: KindRules = {
  write(w) {
    const spec = record(w.object.spec);
    const deny = (message: string) => forbidden({ group: w.group, resource: w.resource }, nameOf(w.object), message);
    if (!w.old) {
      if (spec.cluster) return deny('spec.Cluster can only be set by system privileged users');
      if (spec.URL) return deny('spec.URL can only be set by system privileged users');
      return undefined;
    }
    const was = record(w.old.spec);
    if (was.cluster !== spec.cluster) return deny('spec.cluster can only be changed by system privileged users');
    if (was.URL !== spec.URL) return deny('spec.URL can only be changed by system privileged users');
    return undefined;
  },
};

const shardRules: KindRules = {
  always(w) {
    if (w.old || w.cluster === ROOT_CLUSTER) return undefined;
    return forbidden({ group: w.group, resource: w.resource }, nameOf(w.object), 'Shards exist only in the root workspace');
  },
};

const crdRules: KindRules = {
  write(w) {
    const group = record(w.object.spec).group;
    if (typeof group !== 'string' || !reservedCRDGroup(group)) return undefined;
    if (w.old && record(w.old.spec).group === group) return undefined;
    return forbidden({ group: w.group, resource: w.resource }, nameOf(w.object), `${group} is a reserved group`);
  },
};

const kindRules: Record<string, KindRules> = {
  'core.kcp.io/logicalclusters': logicalClusterRules,
  'core.kcp.io/shards': shardRules,
  'apis.kcp.io/apiexports': systemStatusRules,
  'apis.kcp.io/apibindings': systemStatusRules,
  'tenancy.kcp.io/workspaces': workspaceRules,
  'apiextensions.k8s.io/customresourcedefinitions': crdRules,
};

const tierWords: Record<Tier, string> = { tenant: 'unreserved', admin: 'admin-reserved', system: 'system-reserved' };

export interface WriteAuthorityDeps {
  /** A logical cluster's canonical path (its LogicalCluster's `kcp.io/path`); undefined: its name is its path. */
  pathOf?(cluster: string): string | undefined;
}

export class WriteAuthority implements WriteReview {
  constructor(private readonly deps: WriteAuthorityDeps = {}) {}

  /**
   * The refusal a create or update earns, or undefined. Asked with the object before the server prepares it (what
   * the server adds is not the writer's doing); the store throws it where kube runs validating admission, after
   * the object's own validation.
   */
  review(w: WriteAttempt): Refusal {
    const rules = kindRules[`${w.group}/${w.resource}`];
    const always = rules?.always?.(w);
    if (always) return always;
    const clearance = clearanceOf(w.ctx);
    if (clearance === 'system') return undefined;
    const kind = rules?.write?.(w, clearance);
    if (kind) return kind;
    if (w.subresource === 'status' || w.subresource === 'finalize') return undefined; // metadata comes from the stored object
    const derived = (key: string) => key === PATH_ANNOTATION && !(w.group === LC.group && w.resource === LC.resource);
    const meta = w.object.metadata;
    const old = w.old?.metadata;
    const annotation = reservedChange(meta?.annotations, old?.annotations, annotationTier, clearance, derived);
    if (annotation) return this.refuse(w, 'annotation', annotation);
    const label = reservedChange(meta?.labels, old?.labels, labelTier, clearance);
    if (label) return this.refuse(w, 'label', label);
    return undefined;
  }

  /** The refusal a delete earns, or undefined (also for a dry run). */
  reviewDelete(w: DeleteAttempt): Refusal {
    const clearance = clearanceOf(w.ctx);
    if (clearance === 'system') return undefined;
    return kindRules[`${w.group}/${w.resource}`]?.remove?.(w, clearance);
  }

  /**
   * What the system derives on every write (kcp's PathAnnotation): the workspace's canonical path on every object
   * but a LogicalCluster that carries `kcp.io/path` or always must. `known` answers first (a restore knows the paths
   * of the clusters it recreates before they exist).
   */
  stamp(group: string, resource: string, cluster: string, obj: KubeObject, known?: (cluster: string) => string | undefined): void {
    if (group === LC.group && resource === LC.resource) return;
    const meta = (obj.metadata ??= {});
    if (!PATH_STAMPED.has(`${group}/${resource}`) && meta.annotations?.[PATH_ANNOTATION] === undefined) return;
    const path = known?.(cluster) ?? this.deps.pathOf?.(cluster) ?? cluster;
    meta.annotations = { ...(meta.annotations ?? {}), [PATH_ANNOTATION]: path };
  }

  private refuse(w: WriteAttempt, what: 'annotation' | 'label', change: { key: string; tier: Tier }): StatusError {
    const name = nameOf(w.object) || w.object.metadata?.generateName || '';
    return forbidden({ group: w.group, resource: w.resource }, name, `modification of ${tierWords[change.tier]} ${what}: ${JSON.stringify(change.key)}`);
  }
}
