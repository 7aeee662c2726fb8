/**
 * What root holds from the first start (kcp's root phase 1): the built-in WorkspaceTypes and the Shard object of
 * this server. `universal` is the type every usual workspace extends (its in-process initializer creates the
 * `default` namespace); `root` can have no parent; `organization` and `team` come with the `workspace-types`
 * battery, which also makes `organization` root's default child type; `homeroot`, `homebucket` and `home` carry the
 * home workspaces of decision 1. Types are created once and never overwritten, so an admin may change them.
 */
import { isDeepStrictEqual } from 'node:util';
import { StatusError } from '../machinery/status.js';
import type { GenericStore, WriteOptions } from '../registry/generic-store.js';
import type { KubeObject, ResourceType } from '../registry/types.js';
import { PATH_ANNOTATION, ROOT_CLUSTER, ROOT_SHARD } from '../machinery/kcp-names.js';
import type { WorkspaceTypeSpec } from './workspace-types.js';
import { withoutSchemaValidation } from './trusted-writes.js';
import { workspaceTypeStatus } from './workspacetype-status.js';

const root = (name: string) => ({ name, path: ROOT_CLUSTER });

export function builtinWorkspaceTypes(batteries: ReadonlySet<string>): Record<string, WorkspaceTypeSpec> {
  const typesBattery = batteries.has('workspace-types');
  const types: Record<string, WorkspaceTypeSpec> = {
    universal: { initializer: true },
    root: {
      extend: { with: [root('universal')] },
      limitAllowedParents: { none: true },
      ...(typesBattery ? { defaultChildWorkspaceType: root('organization') } : {}),
    },
    homeroot: {
      extend: { with: [root('universal')] },
      limitAllowedParents: { types: [root('root')] },
      limitAllowedChildren: { types: [root('homebucket')] },
      defaultChildWorkspaceType: root('homebucket'),
    },
    homebucket: {
      extend: { with: [root('universal')] },
      limitAllowedParents: { types: [root('homeroot'), root('homebucket')] },
      limitAllowedChildren: { types: [root('homebucket'), root('home')] },
      defaultChildWorkspaceType: root('homebucket'),
    },
    home: {
      extend: { with: [root('universal')] },
      limitAllowedParents: { types: [root('homebucket')] },
      defaultChildWorkspaceType: root('universal'),
    },
  };
  if (typesBattery) {
    types.organization = {
      extend: { with: [root('universal')] },
      defaultChildWorkspaceType: root('universal'),
      limitAllowedChildren: { types: [root('universal')] },
      limitAllowedParents: { types: [root('root')] },
    };
    types.team = {
      extend: { with: [root('universal')] },
      defaultChildWorkspaceType: root('universal'),
      limitAllowedParents: { types: [root('organization'), root('team')] },
    };
  }
  return types;
}

/** Creates `obj` in root unless it exists. Looks first: admission (a full object cap) answers before storage's 409. */
function createIfMissing(generic: GenericStore, rt: ResourceType, obj: KubeObject, opts: WriteOptions = {}): void {
  if (generic.store.get(generic.key({ rt, cluster: ROOT_CLUSTER, namespace: '' }, obj.metadata!.name!))) return;
  try {
    generic.create({ rt, cluster: ROOT_CLUSTER, namespace: '' }, obj, opts);
  } catch (err) {
    if (!(err instanceof StatusError && err.code === 409)) throw err;
  }
}

/**
 * Creates the missing built-in types, with the status the workspacetype-status controller would write (so it has
 * nothing to update on a start at the same address).
 */
export function bootstrapWorkspaceTypes(generic: GenericStore, workspaceTypes: ResourceType, batteries: ReadonlySet<string>, virtualWorkspaceUrl: string): void {
  const trusted = withoutSchemaValidation(workspaceTypes);
  for (const [name, spec] of Object.entries(builtinWorkspaceTypes(batteries))) {
    const type = { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'WorkspaceType', metadata: { name, annotations: { [PATH_ANNOTATION]: ROOT_CLUSTER } }, spec };
    createIfMissing(generic, trusted, { ...type, status: workspaceTypeStatus(virtualWorkspaceUrl, type) }, { withStatus: true });
  }
}

export interface ShardURLs {
  baseURL: string;
  externalURL: string;
  virtualWorkspaceURL: string;
}

/** This server as Shard `root`, with the URLs of this start (one URL for all three by default). */
export function builtinShard(urls: string | ShardURLs): KubeObject {
  const spec = typeof urls === 'string' ? { baseURL: urls, externalURL: urls, virtualWorkspaceURL: urls } : { ...urls };
  return {
    apiVersion: 'core.kcp.io/v1alpha1',
    kind: 'Shard',
    metadata: { name: ROOT_SHARD, labels: { name: ROOT_SHARD } },
    spec,
  };
}

/**
 * The running server as Shard `root` in root, with the URLs of this start. A restart on the same address finds them
 * there and writes nothing; on another address only the server's own URLs change, so, like the create, the update
 * skips the schema pass (the rest of the object was validated when it was written).
 */
export function registerShard(generic: GenericStore, shards: ResourceType, urls: string | ShardURLs): void {
  const ctx = { rt: shards, cluster: ROOT_CLUSTER, namespace: '' };
  const shard = builtinShard(urls);
  try {
    const current = generic.get(ctx, ROOT_SHARD);
    if (isDeepStrictEqual(current.spec, shard.spec)) return;
    generic.update({ ...ctx, rt: withoutSchemaValidation(shards) }, ROOT_SHARD, { ...current, spec: shard.spec });
  } catch (err) {
    if (!(err instanceof StatusError && err.code === 404)) throw err;
    createIfMissing(generic, withoutSchemaValidation(shards), shard);
  }
}
