import { describe, expect, it } from 'vitest';
import { claimsInForce, intersectVerbs, permissionClaimStatus } from './permission-claims.js';

const exportWith = (claims: unknown[]) => ({ spec: { permissionClaims: claims } });
const bindingWith = (claims: unknown[]) => ({ spec: { reference: { export: { name: 'e' } }, permissionClaims: claims } });

describe('permission claims in force', () => {
  it('needs the claim exported and accepted; verbs are the intersection of both sets', () => {
    const exp = exportWith([
      { group: '', resource: 'configmaps', verbs: ['get', 'list', 'watch'] },
      { group: '', resource: 'secrets', verbs: ['get', 'create', 'delete'] },
      { group: '', resource: 'namespaces', verbs: ['get'] },
    ]);
    const binding = bindingWith([
      { group: '', resource: 'configmaps', verbs: ['get', 'list', 'watch'], state: 'Accepted', selector: { matchAll: true } },
      { group: '', resource: 'secrets', verbs: ['get', 'create'], state: 'Accepted', selector: { matchLabels: { team: 'a' } } },
      { group: '', resource: 'namespaces', verbs: ['get'], state: 'Rejected', selector: { matchAll: true } },
      { group: '', resource: 'events', verbs: ['get'], state: 'Accepted', selector: { matchAll: true } },
    ]);
    const inForce = claimsInForce(binding, exp);
    expect([...inForce.keys()].sort()).toEqual(['configmaps//', 'secrets//']);
    expect(inForce.get('configmaps//')!.verbs).toEqual(['get', 'list', 'watch']);
    expect(inForce.get('secrets//')!.verbs).toEqual(['get', 'create']);
    expect(inForce.get('secrets//')!.selector).toEqual({ matchLabels: { team: 'a' } });
    expect(inForce.get('secrets//')!.selects({ team: 'a' })).toBe(true);
    expect(inForce.get('secrets//')!.selects({ team: 'b' })).toBe(false);
    expect(inForce.get('configmaps//')!.selects(undefined)).toBe(true);
  });

  it('never widens an accepted claim: an export that asks for more (or *) gets only what was accepted', () => {
    const accepted = bindingWith([{ group: '', resource: 'configmaps', verbs: ['get', 'list', 'watch'], state: 'Accepted', selector: { matchAll: true } }]);
    const widened = claimsInForce(accepted, exportWith([{ group: '', resource: 'configmaps', verbs: ['get', 'list', 'watch', 'update', 'create'] }]));
    expect(widened.get('configmaps//')!.verbs).toEqual(['get', 'list', 'watch']);
    const star = claimsInForce(accepted, exportWith([{ group: '', resource: 'configmaps', verbs: ['*'] }]));
    expect(star.get('configmaps//')!.verbs).toEqual([]);
    // The consumer's `*` is not a blank cheque either: it matches only an export's `*`.
    const acceptedStar = bindingWith([{ group: '', resource: 'configmaps', verbs: ['*'], state: 'Accepted', selector: { matchAll: true } }]);
    expect(claimsInForce(acceptedStar, exportWith([{ group: '', resource: 'configmaps', verbs: ['get'] }])).get('configmaps//')!.verbs).toEqual([]);
    expect(claimsInForce(acceptedStar, exportWith([{ group: '', resource: 'configmaps', verbs: ['*'] }])).get('configmaps//')!.verbs).toEqual(['*']);
  });

  it('keys claims by identity: an accepted claim for another identity is not in force', () => {
    const exp = exportWith([{ group: 'x.io', resource: 'widgets', identityHash: 'aaa', verbs: ['get'] }]);
    const binding = bindingWith([{ group: 'x.io', resource: 'widgets', identityHash: 'bbb', verbs: ['get'], state: 'Accepted', selector: { matchAll: true } }]);
    expect(claimsInForce(binding, exp).size).toBe(0);
  });

  it('an empty selector selects nothing', () => {
    const exp = exportWith([{ group: '', resource: 'configmaps', verbs: ['get'] }]);
    const binding = bindingWith([{ group: '', resource: 'configmaps', verbs: ['get'], state: 'Accepted', selector: {} }]);
    expect(claimsInForce(binding, exp).get('configmaps//')!.selects({ a: 'b' })).toBe(false);
  });

  it('intersects verbs as sets, * included', () => {
    expect(intersectVerbs(['get', 'list'], ['list', 'watch'])).toEqual(['list']);
    expect(intersectVerbs(['*'], ['get'])).toEqual([]);
    expect(intersectVerbs(['get'], ['*'])).toEqual([]);
    expect(intersectVerbs(['*', 'get'], ['*'])).toEqual(['*']);
    expect(intersectVerbs(undefined, ['get'])).toEqual([]);
  });
});

describe('permission claim status', () => {
  it('copies the export claims, applies the accepted ones and is valid', () => {
    const exp = exportWith([
      { group: '', resource: 'configmaps', verbs: ['*'] },
      { group: '', resource: 'secrets', verbs: ['get'] },
    ]);
    const binding = bindingWith([
      { group: '', resource: 'configmaps', verbs: ['*'], state: 'Accepted', selector: { matchAll: true } },
      { group: '', resource: 'secrets', verbs: ['get'], state: 'Rejected', selector: { matchAll: true } },
    ]);
    const status = permissionClaimStatus(binding, exp);
    expect(status.exportPermissionClaims).toHaveLength(2);
    expect(status.appliedPermissionClaims).toEqual([{ group: '', resource: 'configmaps', verbs: ['*'], selector: { matchAll: true } }]);
    expect(status.conditions).toEqual([
      { type: 'PermissionClaimsValid', status: 'True' },
      { type: 'PermissionClaimsApplied', status: 'True' },
    ]);
  });

  it('reports accepted claims the export does not make as InvalidPermissionClaims', () => {
    const binding = bindingWith([{ group: '', resource: 'secrets', verbs: ['get'], state: 'Accepted', selector: { matchAll: true } }]);
    const [valid] = permissionClaimStatus(binding, exportWith([])).conditions;
    expect(valid).toMatchObject({
      status: 'False',
      reason: 'InvalidPermissionClaims',
      severity: 'Error',
      message: '1 unexpected and/or invalid permission claims (showing first 1): unexpected/invalid claim for secrets. (identity "")',
    });
  });

  it('reports an export that changed its verbs after acceptance, * included', () => {
    const binding = bindingWith([{ group: '', resource: 'configmaps', verbs: ['get', 'list', 'watch'], state: 'Accepted', selector: { matchAll: true } }]);
    const [valid] = permissionClaimStatus(binding, exportWith([{ group: '', resource: 'configmaps', verbs: ['*'] }])).conditions;
    expect(valid).toEqual({
      type: 'PermissionClaimsValid',
      status: 'False',
      reason: 'PermissionClaimsMismatch',
      severity: 'Warning',
      message: '1 permission claim(s) have mismatched verbs or selectors (showing first 1): configmaps. (verbs: accepted [get list watch], exported [*])',
    });
    const [again] = permissionClaimStatus(binding, exportWith([{ group: '', resource: 'configmaps', verbs: ['watch', 'list', 'get'] }])).conditions;
    expect(again).toEqual({ type: 'PermissionClaimsValid', status: 'True' });
  });

  it('reports other verbs or a selector other than the default as PermissionClaimsMismatch', () => {
    const exp = exportWith([{ group: '', resource: 'configmaps', verbs: ['get', 'list'], defaultSelector: { matchAll: true } }]);
    const binding = bindingWith([
      { group: '', resource: 'configmaps', verbs: ['get'], state: 'Accepted', selector: { matchLabels: { a: 'b' } } },
    ]);
    const [valid] = permissionClaimStatus(binding, exp).conditions;
    expect(valid).toMatchObject({ status: 'False', reason: 'PermissionClaimsMismatch', severity: 'Warning' });
    expect(valid!.message).toBe(
      '1 permission claim(s) have mismatched verbs or selectors (showing first 1): configmaps. (verbs: accepted [get], exported [get list]; selector differs from defaultSelector)',
    );
  });
});
