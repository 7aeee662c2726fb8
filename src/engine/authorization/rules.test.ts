import { describe, expect, it } from 'vitest';
import { ruleAllows, ruleString, uncoveredRules, type PolicyRule, type RequestAttributes } from './rules.js';

const resource = (verb: string, resource: string, o: Partial<RequestAttributes> = {}): RequestAttributes => ({
  verb,
  resourceRequest: true,
  apiGroup: '',
  resource,
  subresource: '',
  name: '',
  namespace: '',
  path: '',
  ...o,
});
const path = (verb: string, p: string): RequestAttributes => ({ ...resource(verb, ''), resourceRequest: false, path: p });

describe('rule matching as kube does it', () => {
  const cm: PolicyRule = { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] };

  it('needs the verb, the group and the resource', () => {
    expect(ruleAllows(cm, resource('get', 'configmaps'))).toBe(true);
    expect(ruleAllows(cm, resource('create', 'configmaps'))).toBe(false);
    expect(ruleAllows(cm, resource('get', 'secrets'))).toBe(false);
    expect(ruleAllows(cm, resource('get', 'configmaps', { apiGroup: 'apps' }))).toBe(false);
  });

  it('treats subresources as their own resource, with */sub for every resource', () => {
    expect(ruleAllows(cm, resource('get', 'configmaps', { subresource: 'status' }))).toBe(false);
    const status: PolicyRule = { apiGroups: ['*'], resources: ['*/status'], verbs: ['get'] };
    expect(ruleAllows(status, resource('get', 'pods', { subresource: 'status' }))).toBe(true);
    expect(ruleAllows(status, resource('get', 'pods'))).toBe(false);
    expect(ruleAllows({ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }, resource('patch', 'x', { subresource: 'scale' }))).toBe(true);
  });

  it('limits to resourceNames when given (a list has no name, so it is not allowed)', () => {
    const named: PolicyRule = { ...cm, resourceNames: ['a'] };
    expect(ruleAllows(named, resource('get', 'configmaps', { name: 'a' }))).toBe(true);
    expect(ruleAllows(named, resource('get', 'configmaps', { name: 'b' }))).toBe(false);
    expect(ruleAllows(named, resource('list', 'configmaps'))).toBe(false);
  });

  it('matches non-resource URLs exactly or by a trailing *', () => {
    const rule: PolicyRule = { nonResourceURLs: ['/apis/*', '/healthz'], verbs: ['get'] };
    expect(ruleAllows(rule, path('get', '/apis/apps/v1'))).toBe(true);
    expect(ruleAllows(rule, path('get', '/healthz'))).toBe(true);
    expect(ruleAllows(rule, path('get', '/healthz/etcd'))).toBe(false);
    expect(ruleAllows(rule, path('post', '/healthz'))).toBe(false);
    expect(ruleAllows(rule, resource('get', 'healthz'))).toBe(false);
    expect(ruleAllows({ nonResourceURLs: ['/'], verbs: ['access'] }, path('access', '/'))).toBe(true);
  });
});

describe('escalation coverage', () => {
  it('finds what the owner does not hold, compacted and printed as kube prints it', () => {
    const owner: PolicyRule[] = [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }];
    const missing = uncoveredRules(owner, [{ apiGroups: [''], resources: ['configmaps', 'secrets'], verbs: ['get', 'delete'] }]);
    expect(missing.map(ruleString)).toEqual([
      '{APIGroups:[""], Resources:["configmaps"], Verbs:["delete"]}',
      '{APIGroups:[""], Resources:["secrets"], Verbs:["get" "delete"]}',
    ]);
  });

  it('a wildcard owner covers everything; a name-limited owner does not cover unnamed rules', () => {
    expect(uncoveredRules([{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }, { nonResourceURLs: ['*'], verbs: ['*'] }], [
      { apiGroups: ['apps'], resources: ['deployments/scale'], verbs: ['patch'] },
      { nonResourceURLs: ['/metrics'], verbs: ['get'] },
    ])).toEqual([]);
    const named: PolicyRule[] = [{ apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'], verbs: ['get'] }];
    expect(uncoveredRules(named, [{ apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'], verbs: ['get'] }])).toEqual([]);
    expect(uncoveredRules(named, [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }])).toHaveLength(1);
  });

  it('*/sub in the owner covers that subresource of any resource', () => {
    expect(uncoveredRules([{ apiGroups: ['*'], resources: ['*/status'], verbs: ['get'] }], [{ apiGroups: ['x'], resources: ['y/status'], verbs: ['get'] }])).toEqual([]);
  });
});
