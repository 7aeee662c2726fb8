import { describe, expect, it } from 'vitest';
import { ALL_BATTERIES } from '../server/batteries.js';
import type { KubeObject } from '../registry/types.js';
import { builtinShard, builtinWorkspaceTypes } from './bootstrap.js';
import { tenancyResourceType } from './crds.js';
import { PATH_ANNOTATION, ROOT_CLUSTER } from '../machinery/kcp-names.js';
import { workspaceTypeStatus } from './workspacetype-status.js';
import { workspaceTypeResourceType } from './workspacetype-resource.js';

// The bootstrap skips the schema validation of its own constants at start-up; this is the check it skips.
describe('the objects the server creates in root', () => {
  const ctx = { cluster: ROOT_CLUSTER };
  const workspaceTypes = workspaceTypeResourceType();
  const asType = (name: string, spec: unknown): KubeObject => ({
    apiVersion: 'tenancy.kcp.io/v1alpha1',
    kind: 'WorkspaceType',
    metadata: { name, annotations: { [PATH_ANNOTATION]: ROOT_CLUSTER } },
    spec: spec as Record<string, unknown>,
  });

  it('built-in WorkspaceTypes, with their status, pass the WorkspaceType validation with every battery', () => {
    const types = builtinWorkspaceTypes(new Set(ALL_BATTERIES));
    expect(Object.keys(types)).toContain('organization');
    for (const [name, spec] of Object.entries(types)) {
      const type = asType(name, spec);
      const status = workspaceTypeStatus('https://127.0.0.1:6443', type);
      expect(status.virtualWorkspaces).toContainEqual({ url: `https://127.0.0.1:6443/services/initializingworkspaces/root:${name}` });
      expect(workspaceTypes.strategy.validate!({ ...type, status } as KubeObject, ctx), name).toEqual([]);
    }
  });

  it('the Shard passes the Shard validation', () => {
    expect(tenancyResourceType('shards').strategy.validate!(builtinShard('https://127.0.0.1:6443'), ctx)).toEqual([]);
  });

  it('the same validation rejects specs of the wrong shape', () => {
    expect(workspaceTypes.strategy.validate!(asType('broken', { limitAllowedParents: { types: 'root' } }), ctx).length).toBeGreaterThan(0);
    const shard = builtinShard('https://127.0.0.1:6443');
    expect(tenancyResourceType('shards').strategy.validate!({ ...shard, spec: { baseURL: 7 } }, ctx).length).toBeGreaterThan(0);
  });
});
