import { describe, expect, it } from 'vitest';
import type { KubeObject, ResourceType } from './types.js';
import { updateScopeOf } from './update-scopes.js';

const rt = (hasStatusSubresource: boolean) => ({ strategy: { hasStatusSubresource } }) as unknown as ResourceType;
const stored = (): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name: 'a', uid: 'u1', creationTimestamp: '2026-01-01T00:00:00Z', labels: { old: 'yes' } },
  spec: { finalizers: ['kubernetes'], other: 1 },
  status: { phase: 'Active' },
});
const sent = (): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name: 'a', uid: 'forged', labels: { new: 'yes' } },
  spec: { finalizers: [], other: 2 },
  status: { phase: 'Terminating' },
});

describe('what a PUT may change, per subresource', () => {
  it('the object itself: all but the system metadata, and status stays when it has its own subresource', () => {
    const out = updateScopeOf(undefined).take(rt(true), sent(), stored(), { cluster: 'c' }, {});
    expect(out.metadata).toMatchObject({ uid: 'u1', labels: { new: 'yes' }, creationTimestamp: '2026-01-01T00:00:00Z' });
    expect(out.spec).toEqual({ finalizers: [], other: 2 });
    expect(out.status).toEqual({ phase: 'Active' });
    expect(updateScopeOf(undefined).take(rt(false), sent(), stored(), { cluster: 'c' }, {}).status).toEqual({ phase: 'Terminating' });
    expect(updateScopeOf(undefined).main).toBe(true);
  });

  it('status: only status', () => {
    const out = updateScopeOf('status').take(rt(true), sent(), stored(), { cluster: 'c' }, {});
    expect(out).toEqual({ ...stored(), status: { phase: 'Terminating' } });
    expect(updateScopeOf('status').main).toBe(false);
  });

  it('finalize: only spec.finalizers (emptied: the field goes)', () => {
    const out = updateScopeOf('finalize').take(rt(true), sent(), stored(), { cluster: 'c' }, {});
    expect(out).toEqual({ ...stored(), spec: { other: 1 } });
  });

  it('any other subresource name, inherited ones included, is the object itself', () => {
    for (const name of ['scale', 'toString', '__proto__']) expect(updateScopeOf(name).main).toBe(true);
  });
});
