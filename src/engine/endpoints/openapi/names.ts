/**
 * Naming rules shared by the document builder and its callers: document keys, schema names for kinds without a
 * hand-written schema, and kube's operationId / tag conventions.
 */

export interface GroupVersion {
  group: string;
  version: string;
}

/** The key of a group-version in the /openapi/v3 index: `api/v1` for core, `apis/<group>/<version>` otherwise. */
export function groupVersionKey(gv: GroupVersion): string {
  return gv.group ? `apis/${gv.group}/${gv.version}` : `api/${gv.version}`;
}

/** URL prefix of a group-version's resources. */
export function groupVersionPrefix(gv: GroupVersion): string {
  return '/' + groupVersionKey(gv);
}

/**
 * The component name kube would give a kind: built-in groups live under `io.k8s.api.<group>`, apiextensions
 * under its own package, and everything else (CRDs, kcp APIs) under the reversed group name, which is how the
 * apiserver names CRD schemas (`stable.example.com` → `com.example.stable.v1.CronTab`).
 */
export function defaultSchemaName(group: string, version: string, kind: string): string {
  if (group === '') return `io.k8s.api.core.${version}.${kind}`;
  if (group === 'apiextensions.k8s.io') {
    return `io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.${version}.${kind}`;
  }
  if (group === 'apiregistration.k8s.io') return `io.k8s.kube-aggregator.pkg.apis.apiregistration.${version}.${kind}`;
  if (group === 'core.kcp.io') return `io.kcp.core.${version}.${kind}`;
  if (group.endsWith('.k8s.io')) return `io.k8s.api.${group.split('.')[0]}.${version}.${kind}`;
  if (!group.includes('.')) return `io.k8s.api.${group}.${version}.${kind}`;
  return `${group.split('.').reverse().join('.')}.${version}.${kind}`;
}

function upperFirst(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** `Core` for the core group, `RbacAuthorization` for rbac.authorization.k8s.io, `StableExampleCom` for CRDs. */
export function groupIdentifier(group: string): string {
  if (group === '') return 'Core';
  const trimmed = group.endsWith('.k8s.io') ? group.slice(0, -'.k8s.io'.length) : group;
  return trimmed
    .split(/[.-]/)
    .filter(Boolean)
    .map(upperFirst)
    .join('');
}

/** Prefix of every operationId in a group-version, e.g. `CoreV1`, `RbacAuthorizationV1`. */
export function operationPrefix(gv: GroupVersion): string {
  return groupIdentifier(gv.group) + upperFirst(gv.version);
}

/** Operation tag, e.g. `core_v1`, `rbacAuthorization_v1`. */
export function operationTag(gv: GroupVersion): string {
  const id = groupIdentifier(gv.group);
  return id.charAt(0).toLowerCase() + id.slice(1) + '_' + gv.version;
}
