import { describe, expect, it } from 'vitest';
import { clusterRoleBindings, clusterRoles, roleBindings, roles } from './resources.js';
import { headers, runCreate, runUpdate } from '../test-support.js';

const now = Date.parse('2024-01-01T01:00:00Z');

describe('roles and clusterroles', () => {
  it('need verbs, and resource rules need apiGroups and resources', () => {
    const { errors } = runCreate(roles, { metadata: { name: 'r' }, rules: [{ resources: ['pods'] }] });
    expect(errors).toEqual([
      'rules[0].verbs: Required value: verbs must contain at least one value',
      'rules[0].apiGroups: Required value: resource rules must supply at least one api group',
    ]);
    expect(runCreate(roles, { metadata: { name: 'r' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] }).errors).toEqual([]);
  });

  it('allow nonResourceURLs only in ClusterRoles, and never mixed with resources', () => {
    const rule = { nonResourceURLs: ['/healthz'], verbs: ['get'] };
    expect(runCreate(roles, { metadata: { name: 'r' }, rules: [rule] }).errors).toEqual([
      'rules[0].nonResourceURLs: Invalid value: []string{"/healthz"}: namespaced rules cannot apply to non-resource URLs',
    ]);
    expect(runCreate(clusterRoles, { metadata: { name: 'r' }, rules: [rule] }).errors).toEqual([]);
    expect(runCreate(clusterRoles, { metadata: { name: 'r' }, rules: [{ ...rule, resources: ['pods'] }] }).errors).toEqual([
      'rules[0].nonResourceURLs: Invalid value: []string{"/healthz"}: rules cannot apply to both regular resources and non-resource URLs',
    ]);
  });

  it('require selectors in an aggregationRule', () => {
    expect(runCreate(clusterRoles, { metadata: { name: 'agg' }, aggregationRule: {} }).errors).toEqual([
      'aggregationRule.clusterRoleSelectors: Required value: at least one clusterRoleSelector required if aggregationRule is non-nil',
    ]);
  });

  it('use path-segment names and print NAME CREATED AT', () => {
    expect(roles.strategy.nameValidation).toBe('path-segment');
    expect(headers(clusterRoles)).toEqual(['NAME', 'CREATED AT']);
    expect(clusterRoles.printer?.cells({ metadata: { name: 'system:admin', creationTimestamp: '2024-01-01T00:00:00Z' } }, now)).toEqual([
      'system:admin',
      '2024-01-01T00:00:00Z',
    ]);
  });
});

describe('rolebindings and clusterrolebindings', () => {
  const binding = {
    metadata: { name: 'b' },
    roleRef: { kind: 'ClusterRole', name: 'view' },
    subjects: [
      { kind: 'User', name: 'alice' },
      { kind: 'Group', name: 'devs' },
      { kind: 'ServiceAccount', name: 'builder', namespace: 'ci' },
    ],
  };

  it('default the API groups of roleRef and user/group subjects', () => {
    const { obj, errors } = runCreate(roleBindings, binding);
    expect(errors).toEqual([]);
    expect(obj.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' });
    expect(obj.subjects).toEqual([
      { kind: 'User', name: 'alice', apiGroup: 'rbac.authorization.k8s.io' },
      { kind: 'Group', name: 'devs', apiGroup: 'rbac.authorization.k8s.io' },
      { kind: 'ServiceAccount', name: 'builder', namespace: 'ci' },
    ]);
  });

  it('check roleRef kinds and subjects like kube', () => {
    const { errors } = runCreate(clusterRoleBindings, {
      metadata: { name: 'b' },
      roleRef: { apiGroup: 'example.com', kind: 'Role', name: 'a/b' },
      subjects: [{ kind: 'ServiceAccount', name: 'x' }, { kind: 'Robot', name: 'r' }, { kind: 'User', apiGroup: 'v1', name: '' }],
    });
    expect(errors).toEqual([
      'roleRef.apiGroup: Unsupported value: "example.com": supported values: "rbac.authorization.k8s.io"',
      'roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"',
      "roleRef.name: Invalid value: \"a/b\": may not contain '/'",
      'subjects[0].namespace: Required value',
      'subjects[1].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"',
      'subjects[2].name: Required value',
      'subjects[2].name: Invalid value: "": user name cannot be empty',
      'subjects[2].apiGroup: Unsupported value: "v1": supported values: "rbac.authorization.k8s.io"',
    ]);
    expect(runCreate(roleBindings, { metadata: { name: 'b' }, roleRef: { kind: 'Role', name: 'r' }, subjects: [{ kind: 'ServiceAccount', name: 'x' }] }).errors).toEqual([]);
  });

  it('refuse to change roleRef', () => {
    const old = runCreate(roleBindings, binding).obj;
    expect(runUpdate(roleBindings, old, { ...old, roleRef: { kind: 'ClusterRole', name: 'edit' } }).errors).toEqual([
      'roleRef: Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"ClusterRole", Name:"edit"}: cannot change roleRef',
    ]);
    expect(runUpdate(roleBindings, old, { ...old, subjects: [] }).errors).toEqual([]);
  });

  it('print NAME ROLE AGE, wide adds USERS GROUPS SERVICEACCOUNTS', () => {
    const obj = { ...runCreate(roleBindings, binding).obj, metadata: { name: 'b', creationTimestamp: '2024-01-01T00:00:00Z' } };
    expect(headers(roleBindings)).toEqual(['NAME', 'ROLE', 'AGE']);
    expect(headers(clusterRoleBindings, true)).toEqual(['NAME', 'ROLE', 'AGE', 'USERS', 'GROUPS', 'SERVICEACCOUNTS']);
    expect(roleBindings.printer?.cells(obj, now)).toEqual(['b', 'ClusterRole/view', '60m', 'alice', 'devs', 'ci/builder']);
  });
});
