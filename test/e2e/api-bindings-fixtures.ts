/**
 * The Widget API of the api-bindings suites as its provider writes it (schemas, the export, bindings, objects) and the
 * kubectl steps they repeat.
 */
import { stringify as toYaml } from 'yaml';
import type { ClusterKubectl } from '../helpers/kubectl.js';
import { apiBinding, apiExport, resourceSchema } from './apis-fixtures.js';
import type { Json } from './tenancy-fixtures.js';

/** The provider's Widget schema; versions differ only in the description of `spec.size`. */
export const schema = (name: string, sizeDescription: string): Json =>
  resourceSchema({
    name,
    group: 'example.com',
    plural: 'widgets',
    kind: 'Widget',
    openAPI: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer', description: sizeDescription } } } } },
    printerColumns: [{ name: 'Size', type: 'integer', jsonPath: '.spec.size' }],
  });

/** The same group/resource as a workspace's own CRD (the schema's names, any content). */
export const widgetCRD: Json = (() => {
  const { names, group, scope } = schema('unused', '').spec;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group,
      scope,
      names,
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
    },
  };
})();

export const exportOf = (schemaName: string): Json => apiExport({ name: 'widgets', group: 'example.com', plural: 'widgets', schema: schemaName });

/** A binding of the export `exportName` in the workspace `exportPath`. */
export const binding = (exportPath: string, name = 'widgets', exportName = 'widgets'): Json => apiBinding(name, exportName, { exportPath });

export const widget = (name: string, size: number | string): Json => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name, namespace: 'default' },
  spec: { size },
});

export const apply = (k: ClusterKubectl, obj: Json, extra: string[] = [], reject = true) =>
  k(['apply', ...extra, '-f', '-'], { input: toYaml(obj), reject });

export async function waitBound(k: ClusterKubectl, name = 'widgets') {
  await k(['wait', '--for=jsonpath={.status.phase}=Bound', `apibinding/${name}`, '--timeout=30s']);
}

/** `<name> <size>` of each widget in `default`. */
export async function widgetRows(k: ClusterKubectl): Promise<string[]> {
  const out = await k(['get', 'widgets', '-n', 'default', '--no-headers', '-o', 'custom-columns=NAME:.metadata.name,SIZE:.spec.size'], { reject: false });
  return out.stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => l.trim().split(/\s+/).join(' '));
}

