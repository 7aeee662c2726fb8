import { describe, expect, it } from 'vitest';
import {
  countedNames,
  countedResource,
  formatCount,
  hasScopes,
  isIgnoredByQuota,
  objectCountName,
  prettyPrint,
  sameList,
} from './quota-names.js';

describe('quota names', () => {
  it('object-count names: count/<resource> in core, count/<resource>.<group> elsewhere', () => {
    expect(objectCountName({ group: '', resource: 'configmaps' })).toBe('count/configmaps');
    expect(objectCountName({ group: 'example.com', resource: 'widgets' })).toBe('count/widgets.example.com');
    expect(objectCountName({ group: 'rbac.authorization.k8s.io', resource: 'roles' })).toBe('count/roles.rbac.authorization.k8s.io');
  });

  it('a create consumes its count name, plus the legacy alias for configmaps, secrets, resourcequotas, replicationcontrollers', () => {
    expect(countedNames({ group: '', resource: 'configmaps' })).toEqual(['count/configmaps', 'configmaps']);
    expect(countedNames({ group: '', resource: 'secrets' })).toEqual(['count/secrets', 'secrets']);
    expect(countedNames({ group: '', resource: 'resourcequotas' })).toEqual(['count/resourcequotas', 'resourcequotas']);
    expect(countedNames({ group: '', resource: 'serviceaccounts' })).toEqual(['count/serviceaccounts']);
    // An alias belongs to the core group only.
    expect(countedNames({ group: 'example.com', resource: 'configmaps' })).toEqual(['count/configmaps.example.com']);
  });

  it('reads back which resource a quota name counts; everything else counts nothing', () => {
    expect(countedResource('count/configmaps')).toEqual({ group: '', resource: 'configmaps' });
    expect(countedResource('count/widgets.example.com')).toEqual({ group: 'example.com', resource: 'widgets' });
    expect(countedResource('count/roles.rbac.authorization.k8s.io')).toEqual({ group: 'rbac.authorization.k8s.io', resource: 'roles' });
    expect(countedResource('secrets')).toEqual({ group: '', resource: 'secrets' });
    for (const name of ['pods', 'services', 'cpu', 'requests.memory', 'limits.cpu', 'persistentvolumeclaims', 'count/']) {
      expect(countedResource(name), name).toBeUndefined();
    }
  });

  it('events and review kinds are never counted', () => {
    expect(isIgnoredByQuota({ group: '', resource: 'events' })).toBe(true);
    expect(isIgnoredByQuota({ group: 'events.k8s.io', resource: 'events' })).toBe(true);
    expect(isIgnoredByQuota({ group: 'authorization.k8s.io', resource: 'selfsubjectaccessreviews' })).toBe(true);
    expect(isIgnoredByQuota({ group: '', resource: 'configmaps' })).toBe(false);
  });

  it('formats counts as Go prints a DecimalSI quantity', () => {
    expect(formatCount(0)).toBe('0');
    expect(formatCount(2)).toBe('2');
    expect(formatCount(10)).toBe('10');
    expect(formatCount(999)).toBe('999');
    expect(formatCount(1000)).toBe('1k');
    expect(formatCount(1500)).toBe('1500');
    expect(formatCount(2_000_000)).toBe('2M');
    expect(formatCount(1_200_000)).toBe('1200k');
  });

  it('prettyPrint: sorted name=value pairs of the chosen names, missing values as 0', () => {
    expect(prettyPrint({ 'count/configmaps': '2', configmaps: '2', secrets: '9' }, ['count/configmaps', 'configmaps'])).toBe(
      'configmaps=2,count/configmaps=2',
    );
    expect(prettyPrint({}, ['configmaps'])).toBe('configmaps=0');
  });

  it('scopes and scope selectors make a quota one that object counts never match', () => {
    expect(hasScopes({ hard: { configmaps: '1' } })).toBe(false);
    expect(hasScopes({ scopes: ['BestEffort'] })).toBe(true);
    expect(hasScopes({ scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'Exists' }] } })).toBe(true);
    expect(hasScopes(undefined)).toBe(false);
  });

  it('compares resource lists by quantity value', () => {
    expect(sameList({ a: '1k' }, { a: '1000' })).toBe(true);
    expect(sameList({ a: '1' }, { a: '2' })).toBe(false);
    expect(sameList({ a: '1' }, { a: '1', b: '0' })).toBe(false);
    expect(sameList({}, {})).toBe(true);
  });
});
