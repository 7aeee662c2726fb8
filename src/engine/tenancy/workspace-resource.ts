/**
 * tenancy.kcp.io/v1alpha1 workspaces: the CRD-served type plus kcp's Workspace and WorkspaceTypeExists admission.
 * On create: the owner annotation for non-privileged creators, required groups copied from the parent, the type
 * defaulted from the parent type's defaultChildWorkspaceType and resolved (path filled in), the type's extra labels,
 * then the placement limits of both types. On update: spec.type immutable. (Who may write spec.cluster and spec.URL
 * is the write authority's to say.)
 * kcp answers all of these with 403 Forbidden; before them, the CRD's CEL transition rules answer 422 Invalid.
 */
import { setOwnValue } from '../machinery/own-properties.js';
import { fieldErrors, forbidden, type FieldError } from '../machinery/status.js';
import type { KubeObject, ResourceType, StrategyContext } from '../registry/types.js';
import type { Store } from '../storage/store.js';
import type { ClusterPaths } from './cluster-paths.js';
import { tenancyResourceType } from './crds.js';
import { NAME_PATTERN, OWNER_ANNOTATION, PHASE_LABEL, REQUIRED_GROUPS_ANNOTATION, TENANCY_GROUP, TYPE_ANNOTATION } from '../machinery/kcp-names.js';
import {
  canonicalPathOf,
  qualifiedName,
  referenceString,
  TypeResolutionError,
  typeNotFound,
  type TypeReference,
  type WorkspaceType,
  type WorkspaceTypes,
} from './workspace-types.js';

export interface WorkspaceSpec {
  type?: TypeReference;
  cluster?: string;
  URL?: string;
  location?: { selector?: unknown };
}

export interface WorkspaceStatus {
  phase?: string;
  conditions?: Record<string, unknown>[];
  initializers?: string[];
  terminators?: string[];
}

export interface Workspace extends KubeObject {
  spec?: WorkspaceSpec;
  status?: WorkspaceStatus;
}

export interface TenancyAdmissionDeps {
  store: Store;
  paths: ClusterPaths;
  types: WorkspaceTypes;
  access?: TenancyAccess;
}

/** What workspace admission asks authorization (kcp's `use` check on every alias of the type). */
export interface TenancyAccess {
  /** Whether RBAC in `cluster` lets the user `verb` the WorkspaceType `name`. */
  mayOnWorkspaceType(user: NonNullable<StrategyContext['user']>, verb: string, cluster: string, name: string): boolean;
}

const workspacesResource = { group: TENANCY_GROUP, resource: 'workspaces' };
const nameRe = new RegExp(NAME_PATTERN);

export function isPrivileged(ctx: StrategyContext): boolean {
  return !ctx.user || ctx.user.groups.includes('system:masters');
}

/** The owner annotation value: the creator as authentication/v1 UserInfo JSON, empty fields left out. */
export function ownerAnnotationValue(user: NonNullable<StrategyContext['user']>): string {
  const info: Record<string, unknown> = { username: user.username };
  if (user.uid) info.uid = user.uid;
  if (user.groups.length > 0) info.groups = user.groups;
  if (user.extra && Object.keys(user.extra).length > 0) info.extra = user.extra;
  return JSON.stringify(info);
}

/**
 * A Workspace's annotations for `phase`: once Ready, kcp's metadata reconciler trims the owner annotation to
 * `{"username":…}` (groups, uid and extra were only needed to set the workspace up) and drops a value it cannot
 * read. Before Ready the annotations are returned as they are.
 */
export function annotationsForPhase(annotations: Record<string, string> | undefined, phase: string | undefined): Record<string, string> | undefined {
  const raw = annotations?.[OWNER_ANNOTATION];
  if (phase !== 'Ready' || raw === undefined) return annotations;
  const next = { ...annotations };
  try {
    const info = JSON.parse(raw) as { username?: unknown };
    next[OWNER_ANNOTATION] = JSON.stringify(typeof info.username === 'string' && info.username ? { username: info.username } : {});
  } catch {
    delete next[OWNER_ANNOTATION];
  }
  return next;
}

function denied(obj: KubeObject, message: string): Error {
  return forbidden(workspacesResource, obj.metadata?.name ?? '', message);
}

/** `<path>:<name>` of the parent cluster's own type, from its LogicalCluster. */
function parentTypeOf(paths: ClusterPaths, cluster: string, obj: KubeObject): { annotation: string; path: string; name: string } {
  const facts = paths.logicalCluster(cluster);
  if (!facts) throw denied(obj, `workspace type cannot be resolved: logicalclusters.core.kcp.io "cluster" not found`);
  const annotation = facts.type;
  if (!annotation) throw denied(obj, `annotation ${TYPE_ANNOTATION} on LogicalCluster must be set`);
  const at = annotation.lastIndexOf(':');
  if (at <= 0) throw denied(obj, `annotation ${TYPE_ANNOTATION} on LogicalCluster must be in the form of cluster:name`);
  return { annotation, path: annotation.slice(0, at), name: annotation.slice(at + 1) };
}

function withTypeErrors<T>(obj: KubeObject, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof TypeResolutionError) throw denied(obj, err.message);
    throw err;
  }
}

/**
 * The x-kubernetes-validations (CEL) transition rules of kcp's Workspace CRD, with their messages. They are part of
 * schema validation, so they answer 422 Invalid before admission's 403s are reached (kube validates the object,
 * then calls validating admission).
 */
function transitionRules(obj: Workspace, old: Workspace): FieldError[] {
  const spec = obj.spec ?? {};
  const was = old.spec ?? {};
  const errs: FieldError[] = [];
  if (was.URL !== undefined && spec.URL === undefined) errs.push(fieldErrors.invalid('spec', 'object', 'URL cannot be unset'));
  if (was.cluster !== undefined && spec.cluster === undefined) errs.push(fieldErrors.invalid('spec', 'object', 'cluster cannot be unset'));
  if (was.cluster !== undefined && spec.cluster !== undefined && was.cluster !== spec.cluster) {
    errs.push(fieldErrors.invalid('spec.cluster', 'string', 'cluster is immutable'));
  }
  if (was.type && spec.type) {
    if (was.type.name !== spec.type.name) errs.push(fieldErrors.invalid('spec.type', 'object', 'name is immutable'));
    const hadPath = was.type.path !== undefined;
    const hasPath = spec.type.path !== undefined;
    if (hadPath !== hasPath || (hadPath && was.type.path !== spec.type.path)) {
      errs.push(fieldErrors.invalid('spec.type', 'object', 'path is immutable'));
    }
  }
  return errs;
}

const READ_VERBS = ['get', 'list', 'watch'];

export function workspaceResourceType(deps: TenancyAdmissionDeps): ResourceType {
  // Written only through the pruning, defaulting request pipeline and by kcpt's scheduler and controllers, which set
  // schema fields (spec.cluster and URL, status, metadata): a live watch of workspaces skips re-reading each event
  // (lifecycle-virtual-workspaces.test.ts compares a live watch with one resumed over the same history).
  const base = tenancyResourceType('workspaces', { storedAsRead: true });
  const { paths, types } = deps;

  /**
   * A type the creator may not read in any way (one in a workspace of another tenant) is as unknown to them as a
   * missing one: otherwise "missing verb='use'" against "not found", or its extends chain, would tell what that
   * workspace holds. One they can get, list or watch is known to them, and its refusal is kcp's `use` message.
   */
  const concealUnreadable = (type: WorkspaceType, ref: TypeReference, ctx: StrategyContext) => {
    if (!ctx.user || isPrivileged(ctx) || ctx.onBehalfOfUser || !deps.access) return;
    const cluster = type.metadata?.annotations?.['kcp.io/cluster'] ?? '';
    const user = ctx.user;
    const sees = READ_VERBS.some((verb) => deps.access!.mayOnWorkspaceType(user, verb, cluster, type.metadata!.name!));
    if (!sees) throw typeNotFound(ref);
  };

  /** Mutating admission on create. */
  const admitCreate = (obj: Workspace, ctx: StrategyContext) => {
    const meta = obj.metadata!;
    const annotations = (meta.annotations ??= {});
    const privileged = isPrivileged(ctx);
    if (!privileged) annotations[OWNER_ANNOTATION] = ownerAnnotationValue(ctx.user!);
    if (!(REQUIRED_GROUPS_ANNOTATION in annotations) || !privileged) {
      const required = paths.logicalCluster(ctx.cluster)?.requiredGroups;
      if (required !== undefined) annotations[REQUIRED_GROUPS_ANNOTATION] = required;
      else delete annotations[REQUIRED_GROUPS_ANNOTATION];
    }
    const spec = (obj.spec ??= {});
    const named = isEmptyTypeReference(spec.type) ? undefined : { ...spec.type! };
    if (isEmptyTypeReference(spec.type)) {
      const parent = parentTypeOf(paths, ctx.cluster, obj);
      const parentType = types.get(parent.path, parent.name);
      if (!parentType) throw denied(obj, `parent type cannot be resolved: workspacetypes.tenancy.kcp.io "${parent.annotation}" not found`);
      const child = parentType.spec?.defaultChildWorkspaceType;
      // kcp's message really contains the unfilled verbs.
      if (!child) throw denied(obj, 'spec.defaultChildWorkspaceType of workspace type %s:%s must be set');
      spec.type = { name: child.name, ...(child.path ? { path: child.path } : {}) };
    }
    const ref = spec.type!;
    const thisPath = paths.pathOf(ctx.cluster) ?? ctx.cluster;
    const type = withTypeErrors(obj, () => types.resolve(thisPath, ref));
    if (named) withTypeErrors(obj, () => concealUnreadable(type, named, ctx));
    if (!ref.path) spec.type = { ...ref, path: canonicalPathOf(type) };
    for (const [k, v] of Object.entries(type.spec?.additionalWorkspaceLabels ?? {})) {
      meta.labels ??= {};
      if (!Object.hasOwn(meta.labels, k)) setOwnValue(meta.labels, k, v);
    }
    meta.labels = { ...(meta.labels ?? {}), [PHASE_LABEL]: 'Scheduling' };
  };

  /** Validating admission on create. */
  // Who may set spec.cluster and spec.URL is the write authority's rule (admission/write-authority.ts).
  const validateCreate = (obj: Workspace, ctx: StrategyContext) => {
    const spec = obj.spec ?? {};
    const privileged = isPrivileged(ctx);
    const ref = spec.type ?? { name: '' };
    const thisPath = paths.pathOf(ctx.cluster) ?? ctx.cluster;
    withTypeErrors(obj, () => {
      const type = types.resolve(thisPath, ref);
      concealUnreadable(type, ref, ctx);
      const aliases = types.aliases(type);
      if (!ref.path) throw new TypeResolutionError('spec.type.path must be set');
      if (ctx.user && !privileged && !ctx.onBehalfOfUser && deps.access) {
        for (const alias of aliases) {
          const cluster = alias.metadata?.annotations?.['kcp.io/cluster'] ?? '';
          if (!deps.access.mayOnWorkspaceType(ctx.user, 'use', cluster, alias.metadata!.name!)) {
            throw new TypeResolutionError(`unable to use workspace type ${qualifiedName(alias)}: missing verb='use' permission on workspacetype`);
          }
        }
      }
      const parent = parentTypeOf(paths, ctx.cluster, obj);
      const parentType = types.get(parent.path, parent.name);
      if (!parentType) throw new TypeResolutionError(`workspace type cannot be resolved: workspacetypes.tenancy.kcp.io "${parent.annotation}" not found`);
      types.checkPlacement(parent.annotation, types.aliases(parentType), referenceString(ref), aliases);
    });
  };

  const validateUpdate = (obj: Workspace, old: Workspace) => {
    const spec = obj.spec ?? {};
    const was = old.spec ?? {};
    if (was.cluster && !spec.cluster) throw denied(obj, 'spec.cluster cannot be unset');
    if (was.type?.name !== spec.type?.name || was.type?.path !== spec.type?.path) throw denied(obj, 'spec.type is immutable');
    if (old.status?.phase !== 'Ready' && obj.status?.phase === 'Ready') {
      if (!spec.cluster) throw denied(obj, 'spec.cluster must be set for phase Ready');
      if (!spec.URL) throw denied(obj, 'spec.URL must be set for phase Ready');
    }
  };

  return {
    ...base,
    strategy: {
      ...base.strategy,
      prepareForCreate(obj, ctx) {
        base.strategy.prepareForCreate?.(obj, ctx);
        // kube decodes a Workspace before kcp's admission sees it: a spec of the wrong shape is the schema's to refuse
        // (422 from validate), not admission's to trip over (it was a 500 for `spec: "x"`).
        if (admissible(obj as Workspace)) admitCreate(obj as Workspace, ctx);
      },
      validate(obj, ctx, old) {
        const errs: FieldError[] = [...(base.strategy.validate?.(obj, ctx, old) ?? [])];
        const name = obj.metadata?.name ?? '';
        if (name && !nameRe.test(name)) {
          errs.push(fieldErrors.invalid('metadata.name', name, `metadata.name in body should match '${NAME_PATTERN}'`));
        }
        return errs;
      },
      validateUpdate(obj, old, ctx) {
        return [...(base.strategy.validateUpdate?.(obj, old, ctx) ?? []), ...transitionRules(obj as Workspace, old as Workspace)];
      },
      admit(obj, old, ctx) {
        if (old) validateUpdate(obj as Workspace, old as Workspace);
        else validateCreate(obj as Workspace, ctx);
      },
    },
  };
}

const isMap = (v: unknown) => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A spec admission can read: an object, whose type (when set) is an object with a name. */
function admissible(obj: Workspace): boolean {
  const spec = obj.spec as unknown;
  if (spec === undefined) return true;
  if (!isMap(spec)) return false;
  const type = (spec as WorkspaceSpec).type as unknown;
  return isEmptyTypeReference(type) || (isMap(type) && typeof (type as TypeReference).name === 'string' && (type as TypeReference).name !== '');
}

/**
 * No type given: absent, or present with neither name nor path. kcp compares the decoded reference with the zero
 * value, and clients built on kcp's Go types send `"type":{"name":""}` for "none" (kcp's own `kubectl ws create`
 * without --type does): both get the parent type's default child type.
 */
function isEmptyTypeReference(type: unknown): boolean {
  if (type === undefined) return true;
  if (!isMap(type)) return false;
  const { name, path } = type as Record<string, unknown>;
  return (name === undefined || name === '') && (path === undefined || path === '');
}

export type { WorkspaceType };
