/**
 * Builders for the API-sharing objects the e2e suites write (APIResourceSchema, APIExport, APIBinding), so every suite
 * describes a provider's API the same way and only says what differs: group, resource, schema, claims.
 */
import type { Json } from './tenancy-fixtures.js';

export interface SchemaOptions {
  /** The schema's object name; default `v1.<plural>.<group>`, as `kcpt export` names them. */
  name?: string;
  group: string;
  plural: string;
  kind: string;
  /** The OpenAPI schema of the single served version `v1`; default an integer `spec.size`. */
  openAPI?: Json;
  printerColumns?: Json[];
  subresources?: Json;
}

const sizeSpec: Json = { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } };

export function resourceSchema(o: SchemaOptions): Json {
  return {
    apiVersion: 'apis.kcp.io/v1alpha1',
    kind: 'APIResourceSchema',
    metadata: { name: o.name ?? `v1.${o.plural}.${o.group}` },
    spec: {
      group: o.group,
      scope: 'Namespaced',
      names: { plural: o.plural, singular: o.kind.toLowerCase(), kind: o.kind, listKind: `${o.kind}List` },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: o.openAPI ?? sizeSpec,
          ...(o.subresources ? { subresources: o.subresources } : {}),
          ...(o.printerColumns ? { additionalPrinterColumns: o.printerColumns } : {}),
        },
      ],
    },
  };
}

export interface ExportOptions {
  name: string;
  group: string;
  plural: string;
  /** The schema the export serves; default `v1.<plural>.<group>`. */
  schema?: string;
  permissionClaims?: Json[];
  /** More of `spec` (maximalPermissionPolicy, …). */
  extraSpec?: Json;
}

export function apiExport(o: ExportOptions): Json {
  return {
    apiVersion: 'apis.kcp.io/v1alpha2',
    kind: 'APIExport',
    metadata: { name: o.name },
    spec: {
      resources: [{ name: o.plural, group: o.group, schema: o.schema ?? `v1.${o.plural}.${o.group}`, storage: { crd: {} } }],
      ...(o.permissionClaims && o.permissionClaims.length > 0 ? { permissionClaims: o.permissionClaims } : {}),
      ...o.extraSpec,
    },
  };
}

/** An APIBinding named `name` of the export `exportName` in `exportPath` (default `root:provider`). */
export function apiBinding(name: string, exportName = name, o: { exportPath?: string; permissionClaims?: Json[] } = {}): Json {
  return {
    apiVersion: 'apis.kcp.io/v1alpha2',
    kind: 'APIBinding',
    metadata: { name },
    spec: {
      reference: { export: { path: o.exportPath ?? 'root:provider', name: exportName } },
      ...(o.permissionClaims && o.permissionClaims.length > 0 ? { permissionClaims: o.permissionClaims } : {}),
    },
  };
}
