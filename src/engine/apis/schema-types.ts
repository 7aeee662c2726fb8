/**
 * How a bound APIResourceSchema is served: exactly like a CRD with the same spec (validation, defaults, printer
 * columns, OpenAPI, server-side apply typing come from cr-types.ts), except that its objects are stored under the
 * export's identity — `<group or core>/<resource>:<identityHash>` — so a local CRD of the same group/resource and
 * the same API bound from different exports never share storage, while one prefix scan lists every consumer's
 * objects of one export (what the APIExport virtual workspace and the `*` wildcard read).
 */
import { customResourceTypes } from '../apiextensions/cr-types.js';
import type { CustomResourceDefinition } from '../apiextensions/crd.js';
import type { ResourceType } from '../registry/types.js';
import { boundStoragePrefix } from './names.js';
import type { APIResourceSchema } from './types.js';

/** The CRD an APIResourceSchema describes, Established with its names accepted (a bound API is never half-served). */
export function crdForSchema(schema: APIResourceSchema): CustomResourceDefinition {
  const spec = schema.spec;
  const names = {
    ...spec.names,
    singular: spec.names.singular || spec.names.kind.toLowerCase(),
    listKind: spec.names.listKind || `${spec.names.kind}List`,
  };
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${names.plural}.${spec.group}`, uid: schema.metadata?.uid },
    spec: {
      group: spec.group,
      names,
      scope: spec.scope,
      versions: spec.versions.map((v) => {
        const { schema: openAPIV3Schema, ...rest } = v;
        return { ...rest, ...(openAPIV3Schema ? { schema: { openAPIV3Schema } } : {}) } as CustomResourceDefinition['spec']['versions'][number];
      }),
      conversion: spec.conversion ?? { strategy: 'None' },
    },
    status: {
      acceptedNames: names,
      conditions: [{ type: 'Established', status: 'True' }],
      storedVersions: spec.versions.filter((v) => v.storage).map((v) => v.name),
    },
  };
}

/** One ResourceType per served version of the schema, stored under the export identity. */
export function resourceTypesForSchema(schema: APIResourceSchema, identityHash: string): ResourceType[] {
  const prefix = boundStoragePrefix(schema.spec.group, schema.spec.names.plural, identityHash);
  return customResourceTypes(crdForSchema(schema)).map((rt) => ({
    ...rt,
    storagePrefix: prefix,
    ...(schema.spec.nameValidation === 'PathSegmentName' ? { strategy: { ...rt.strategy, nameValidation: 'path-segment' as const } } : {}),
  }));
}
