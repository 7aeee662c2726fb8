import { describe, expect, it } from 'vitest';
import { checkImpersonationPrivilege } from './impersonation-gatekeeper.js';
import type { ImpersonationRequest } from './impersonation.js';

const ask = (groups: string[], extra: Record<string, string[]> = {}): ImpersonationRequest => ({ user: 'kcp-admin', groups, extra });
const refusal = (fn: () => void) => {
  try {
    fn();
  } catch (err) {
    const e = err as { code: number; message: string };
    return `${e.code} ${e.message}`;
  }
  return 'allowed';
};

describe('the impersonation gatekeeper (kcp: privileged groups only for those who hold them)', () => {
  const workspaceAdmin = ['team-1', 'system:authenticated'];

  it('refuses a workspace admin who asks for system:masters or another kcp group', () => {
    for (const group of ['system:masters', 'system:kcp:admin', 'system:kcp:logical-cluster-admin', 'system:kcp:tenancy:workspace-bootstrapper']) {
      expect(refusal(() => checkImpersonationPrivilege(workspaceAdmin, ask([group])))).toBe('403 forbidden: impersonation is not allowed for the requestor');
    }
  });

  it('refuses kcp-admin (system:kcp:admin) the higher system:masters, but lets it keep its own group', () => {
    expect(refusal(() => checkImpersonationPrivilege(['system:kcp:admin', 'system:authenticated'], ask(['system:masters'])))).toMatch(/^403 /);
    expect(refusal(() => checkImpersonationPrivilege(['system:kcp:admin', 'system:authenticated'], ask(['system:kcp:admin'])))).toBe('allowed');
  });

  it('lets ordinary groups through (RBAC decides those) and lets system:masters ask for anything', () => {
    expect(refusal(() => checkImpersonationPrivilege(workspaceAdmin, ask(['team-x', 'system:authenticated'])))).toBe('allowed');
    expect(refusal(() => checkImpersonationPrivilege(['system:masters'], ask(['system:masters'], { 'authentication.kcp.io/scopes': ['x'] })))).toBe('allowed');
  });

  it('refuses extras under kcp.io keys, which only kcp’s authenticators set', () => {
    expect(refusal(() => checkImpersonationPrivilege(workspaceAdmin, ask([], { 'authentication.kcp.io/cluster-name': ['abc'] })))).toBe(
      '403 forbidden: impersonating the extra key "authentication.kcp.io/cluster-name" is not allowed for the requestor',
    );
    expect(refusal(() => checkImpersonationPrivilege(workspaceAdmin, ask([], { reason: ['audit'] })))).toBe('allowed');
  });

  it('refuses an unauthenticated requester who asks for system:authenticated', () => {
    expect(refusal(() => checkImpersonationPrivilege(['system:unauthenticated'], ask(['system:authenticated'])))).toMatch(/^403 /);
  });
});
