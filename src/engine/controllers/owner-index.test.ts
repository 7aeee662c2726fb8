import { describe, expect, it } from 'vitest';
import {
  absentOwnerKey,
  dependentsPrefix,
  ownerEntries,
  ownerIndexKey,
  parseAbsentOwnerKey,
  parseOwnerIndexKey,
} from './owner-index.js';

describe('owner index keys', () => {
  it('round-trip, with client-chosen uids kept inside one segment', () => {
    const dependentKey = '/registry/core/configmaps/c1/default/dep';
    for (const uid of ['6b3f-uid', 'a/b c']) {
      const key = ownerIndexKey('c1', uid, true, dependentKey);
      expect(key.startsWith(dependentsPrefix('c1', uid))).toBe(true);
      expect(parseOwnerIndexKey(key)).toEqual({ cluster: 'c1', ownerUid: uid, blocking: true, dependentKey });
      expect(parseAbsentOwnerKey(absentOwnerKey('c1', uid))).toEqual({ cluster: 'c1', ownerUid: uid });
    }
    expect(ownerIndexKey('c1', 'u', false, '/registry/core/namespaces/c1/ns')).toBe('/kcpt/owners/c1/u/n/core/namespaces/c1/ns');
  });

  it('a cluster prefix never matches a longer cluster name', () => {
    expect(ownerIndexKey('c10', 'u', false, '/registry/core/configmaps/c10/default/x').startsWith(dependentsPrefix('c1', 'u'))).toBe(false);
  });

  it('one entry per owner uid; a duplicate reference that blocks makes it blocking', () => {
    const entries = ownerEntries({
      metadata: {
        ownerReferences: [
          { apiVersion: 'v1', kind: 'ConfigMap', name: 'a', uid: 'u1' },
          { apiVersion: 'v1', kind: 'ConfigMap', name: 'a', uid: 'u1', blockOwnerDeletion: true },
          { apiVersion: 'apps/v1', kind: 'Deployment', name: 'd', uid: 'u2', controller: true },
        ],
      },
    });
    expect([...entries.keys()]).toEqual(['u1', 'u2']);
    expect(entries.get('u1')?.blocking).toBe(true);
    expect(JSON.parse(entries.get('u2')!.value)).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'd' });
    expect(ownerEntries(undefined).size).toBe(0);
  });
});
