/** The built-in strategies inside the real generic store, where call order and status handling are the store's. */
import { describe, expect, it } from 'vitest';
import { GenericStore, type OpContext } from '../registry/generic-store.js';
import type { ResourceType } from '../registry/types.js';
import { createMemoryStore } from '../storage/index.js';
import { namespaces, secrets } from './core/resources.js';
import { logicalClusters } from './kcp-core/resources.js';
import { roleBindings } from './rbac/resources.js';
import { WriteAuthority } from '../admission/write-authority.js';

function setup() {
  const generic = new GenericStore(createMemoryStore(), namespaces, { authority: new WriteAuthority() });
  const ctx = (rt: ResourceType, namespace = ''): OpContext => ({ rt, cluster: 'c1', namespace });
  return { generic, ctx };
}

describe('built-ins in the generic store', () => {
  it('a namespace goes Active → Terminating on delete → gone once /finalize clears spec.finalizers', () => {
    const { generic, ctx } = setup();
    const created = generic.create(ctx(namespaces), { metadata: { generateName: 'team-' } });
    const name = created.metadata!.name!;
    expect(created.metadata?.labels).toEqual({ 'kubernetes.io/metadata.name': name });
    expect(created.status).toEqual({ phase: 'Active' });

    const deleted = generic.delete(ctx(namespaces), name);
    expect(deleted.removed).toBe(false);
    expect(deleted.object.status).toEqual({ phase: 'Terminating' });

    const ns = generic.get(ctx(namespaces), name);
    generic.update(ctx(namespaces), name, { ...ns, spec: { finalizers: [] } }, { subresource: 'finalize' });
    expect(() => generic.get(ctx(namespaces), name)).toThrow(/not found/);
  });

  it('a status write that contradicts deletionTimestamp is a 422', () => {
    const { generic, ctx } = setup();
    const ns = generic.create(ctx(namespaces), { metadata: { name: 'a' } });
    expect(() => generic.update(ctx(namespaces), 'a', { ...ns, status: { phase: 'Terminating' } }, { subresource: 'status' })).toThrow(
      /status.Phase: Invalid value: "Terminating": may only be 'Active' if `deletionTimestamp` is empty/,
    );
  });

  it('secrets are stored without stringData', () => {
    const { generic, ctx } = setup();
    generic.create(ctx(namespaces), { metadata: { name: 'default' } });
    generic.create(ctx(secrets, 'default'), { metadata: { name: 's' }, stringData: { password: 'hunter2' } });
    const stored = generic.get(ctx(secrets, 'default'), 's');
    expect(stored).toMatchObject({ type: 'Opaque', data: { password: Buffer.from('hunter2').toString('base64') } });
    expect(stored).not.toHaveProperty('stringData');
  });

  it('a rolebinding cannot be repointed at another role', () => {
    const { generic, ctx } = setup();
    generic.create(ctx(namespaces), { metadata: { name: 'default' } });
    const rb = generic.create(ctx(roleBindings, 'default'), { metadata: { name: 'b' }, roleRef: { kind: 'ClusterRole', name: 'view' } });
    expect(() => generic.update(ctx(roleBindings, 'default'), 'b', { ...rb, roleRef: { ...(rb.roleRef as object), name: 'edit' } })).toThrow(
      /RoleBinding.rbac.authorization.k8s.io "b" is invalid: roleRef: Invalid value: .*cannot change roleRef/,
    );
  });

  it('the LogicalCluster is a singleton named cluster that starts in Scheduling', () => {
    const { generic, ctx } = setup();
    expect(() => generic.create(ctx(logicalClusters), { metadata: { name: 'x' } })).toThrow(
      /metadata.name: Unsupported value: "x": supported values: "cluster"/,
    );
    const lc = generic.create(ctx(logicalClusters), { metadata: { name: 'cluster' }, status: { phase: 'Ready' } });
    expect(lc.status).toEqual({ phase: 'Scheduling' });
    expect(lc.metadata?.generation).toBe(1);
    const ready = generic.update(ctx(logicalClusters), 'cluster', { ...lc, status: { phase: 'Ready', URL: 'https://h/clusters/c1' } }, { subresource: 'status' });
    expect(ready.status).toEqual({ phase: 'Ready', URL: 'https://h/clusters/c1' });
    expect(ready.metadata?.generation).toBe(1);
  });
});
