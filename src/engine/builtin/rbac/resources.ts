/**
 * rbac.authorization.k8s.io/v1: Roles, ClusterRoles and their bindings, validated as pkg/apis/rbac/validation does.
 * Escalation checks (granting more than you hold) belong to authorization, not here.
 */
import { fieldErrors, type FieldError } from '../../machinery/status.js';
import type { KubeObject, ResourceType, Strategy, TablePrinter } from '../../registry/types.js';
import { defineBuiltin } from '../define.js';
import { ageColumn, ageOf, column, createdAtPrinter, nameColumn, nameOf } from '../printing.js';
import { record, str } from '../../machinery/field-values.js';
import { goStringSlice, invalidRendered, isDNS1123Subdomain, isValidPathSegmentName } from '../value-rules.js';
import { rbacSchemas } from './schemas.js';

export const rbacGroup = 'rbac.authorization.k8s.io';

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function validateRule(raw: unknown, namespaced: boolean, path: string): FieldError[] {
  const rule = record(raw);
  const errs: FieldError[] = [];
  if (list(rule.verbs).length === 0) errs.push(fieldErrors.required(`${path}.verbs`, 'verbs must contain at least one value'));
  const urls = list(rule.nonResourceURLs);
  if (urls.length > 0) {
    if (namespaced) {
      errs.push(invalidRendered(`${path}.nonResourceURLs`, goStringSlice(urls), 'namespaced rules cannot apply to non-resource URLs'));
    }
    if (list(rule.apiGroups).length > 0 || list(rule.resources).length > 0 || list(rule.resourceNames).length > 0) {
      errs.push(invalidRendered(`${path}.nonResourceURLs`, goStringSlice(urls), 'rules cannot apply to both regular resources and non-resource URLs'));
    }
    return errs;
  }
  if (list(rule.apiGroups).length === 0) {
    errs.push(fieldErrors.required(`${path}.apiGroups`, 'resource rules must supply at least one api group'));
  }
  if (list(rule.resources).length === 0) {
    errs.push(fieldErrors.required(`${path}.resources`, 'resource rules must supply at least one resource'));
  }
  if (list(rule.resourceNames).length > 0 && list(rule.resources).length > 1) {
    errs.push(fieldErrors.required(`${path}.resourceNames`, 'resource names cannot apply to multiple resources'));
  }
  return errs;
}

function validateRules(obj: KubeObject, namespaced: boolean): FieldError[] {
  return list(obj.rules).flatMap((rule, i) => validateRule(rule, namespaced, `rules[${i}]`));
}

function roleStrategy(namespaced: boolean): Strategy {
  return {
    allowUnconditionalUpdate: true,
    nameValidation: 'path-segment',
    validate(obj) {
      const errs = validateRules(obj, namespaced);
      if (!namespaced && obj.aggregationRule !== undefined && obj.aggregationRule !== null) {
        if (list(record(obj.aggregationRule).clusterRoleSelectors).length === 0) {
          errs.push(fieldErrors.required('aggregationRule.clusterRoleSelectors', 'at least one clusterRoleSelector required if aggregationRule is non-nil'));
        }
      }
      return errs;
    },
  };
}

/** SetDefaults_*Binding and SetDefaults_Subject: the apiGroup each reference implies. */
function defaultBinding(obj: KubeObject): void {
  const roleRef = record(obj.roleRef);
  if (obj.roleRef !== undefined && !roleRef.apiGroup) obj.roleRef = { ...roleRef, apiGroup: rbacGroup };
  if (!Array.isArray(obj.subjects)) return;
  obj.subjects = obj.subjects.map((raw) => {
    const s = record(raw);
    if (s.apiGroup || (s.kind !== 'User' && s.kind !== 'Group')) return raw;
    return { ...s, apiGroup: rbacGroup };
  });
}

function validateSubject(raw: unknown, namespaced: boolean, path: string): FieldError[] {
  const s = record(raw);
  const name = str(s.name);
  const apiGroup = str(s.apiGroup);
  const errs: FieldError[] = [];
  if (name === '') errs.push(fieldErrors.required(`${path}.name`));
  switch (s.kind) {
    case 'ServiceAccount':
      if (name !== '') for (const msg of isDNS1123Subdomain(name)) errs.push(fieldErrors.invalid(`${path}.name`, name, msg));
      if (apiGroup !== '') errs.push(fieldErrors.notSupported(`${path}.apiGroup`, apiGroup, ['']));
      // A ClusterRoleBinding has no namespace to default a service account into.
      if (!namespaced && str(s.namespace) === '') errs.push(fieldErrors.required(`${path}.namespace`));
      break;
    case 'User':
    case 'Group':
      if (name === '') errs.push(fieldErrors.invalid(`${path}.name`, name, `${s.kind === 'User' ? 'user' : 'group'} name cannot be empty`));
      if (apiGroup !== rbacGroup) errs.push(fieldErrors.notSupported(`${path}.apiGroup`, apiGroup, [rbacGroup]));
      break;
    default:
      errs.push(fieldErrors.notSupported(`${path}.kind`, str(s.kind), ['ServiceAccount', 'User', 'Group']));
  }
  return errs;
}

function roleRefOf(obj: KubeObject) {
  const r = record(obj.roleRef);
  return { apiGroup: str(r.apiGroup), kind: str(r.kind), name: str(r.name) };
}

function bindingStrategy(namespaced: boolean): Strategy {
  const kinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  return {
    allowUnconditionalUpdate: true,
    nameValidation: 'path-segment',
    defaults: defaultBinding,
    validate(obj) {
      const ref = roleRefOf(obj);
      const errs: FieldError[] = [];
      if (ref.apiGroup !== rbacGroup) errs.push(fieldErrors.notSupported('roleRef.apiGroup', ref.apiGroup, [rbacGroup]));
      if (!kinds.includes(ref.kind)) errs.push(fieldErrors.notSupported('roleRef.kind', ref.kind, kinds));
      if (ref.name === '') errs.push(fieldErrors.required('roleRef.name'));
      else for (const msg of isValidPathSegmentName(ref.name)) errs.push(fieldErrors.invalid('roleRef.name', ref.name, msg));
      list(obj.subjects).forEach((s, i) => errs.push(...validateSubject(s, namespaced, `subjects[${i}]`)));
      return errs;
    },
    validateUpdate(obj, old) {
      const ref = roleRefOf(obj);
      const prev = roleRefOf(old);
      if (ref.apiGroup === prev.apiGroup && ref.kind === prev.kind && ref.name === prev.name) return [];
      // Go prints the struct with %#v; so do we, so the message reads as kube's.
      const rendered = `rbac.RoleRef{APIGroup:${JSON.stringify(ref.apiGroup)}, Kind:${JSON.stringify(ref.kind)}, Name:${JSON.stringify(ref.name)}}`;
      return [invalidRendered('roleRef', rendered, 'cannot change roleRef')];
    },
  };
}

/** Users, groups and `namespace/name` service accounts of a binding, as kube's wide columns show them. */
export function subjectColumns(obj: KubeObject): [string, string, string] {
  const users: string[] = [];
  const groups: string[] = [];
  const sas: string[] = [];
  for (const raw of list(obj.subjects)) {
    const s = record(raw);
    if (s.kind === 'User') users.push(str(s.name));
    else if (s.kind === 'Group') groups.push(str(s.name));
    else if (s.kind === 'ServiceAccount') sas.push(`${str(s.namespace)}/${str(s.name)}`);
  }
  return [users.join(', '), groups.join(', '), sas.join(', ')];
}

function bindingPrinter(kind: 'roleBinding' | 'clusterRoleBinding', roleDescription: string): TablePrinter {
  return {
    columns: [
      nameColumn,
      column('Role', roleDescription),
      ageColumn,
      column('Users', `Users in the ${kind}`, 1),
      column('Groups', `Groups in the ${kind}`, 1),
      column('ServiceAccounts', `ServiceAccounts in the ${kind}`, 1),
    ],
    cells(obj, now) {
      const ref = roleRefOf(obj);
      return [nameOf(obj), `${ref.kind}/${ref.name}`, ageOf(obj, now), ...subjectColumns(obj)];
    },
  };
}

const rbac = { group: rbacGroup, version: 'v1' } as const;

export const clusterRoleBindings = defineBuiltin({
  ...rbac,
  resource: 'clusterrolebindings',
  singular: 'clusterrolebinding',
  kind: 'ClusterRoleBinding',
  namespaced: false,
  strategy: bindingStrategy(false),
  printer: bindingPrinter(
    'clusterRoleBinding',
    'RoleRef can only reference a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error.',
  ),
  openapiSchemaName: 'io.k8s.api.rbac.v1.ClusterRoleBinding',
  schemas: rbacSchemas,
});

export const clusterRoles = defineBuiltin({
  ...rbac,
  resource: 'clusterroles',
  singular: 'clusterrole',
  kind: 'ClusterRole',
  namespaced: false,
  strategy: roleStrategy(false),
  printer: createdAtPrinter,
  openapiSchemaName: 'io.k8s.api.rbac.v1.ClusterRole',
  schemas: rbacSchemas,
});

export const roleBindings = defineBuiltin({
  ...rbac,
  resource: 'rolebindings',
  singular: 'rolebinding',
  kind: 'RoleBinding',
  namespaced: true,
  strategy: bindingStrategy(true),
  printer: bindingPrinter(
    'roleBinding',
    'RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error.',
  ),
  openapiSchemaName: 'io.k8s.api.rbac.v1.RoleBinding',
  schemas: rbacSchemas,
});

export const roles = defineBuiltin({
  ...rbac,
  resource: 'roles',
  singular: 'role',
  kind: 'Role',
  namespaced: true,
  strategy: roleStrategy(true),
  printer: createdAtPrinter,
  openapiSchemaName: 'io.k8s.api.rbac.v1.Role',
  schemas: rbacSchemas,
});

export function rbacResourceTypes(): ResourceType[] {
  return [clusterRoleBindings, clusterRoles, roleBindings, roles];
}
