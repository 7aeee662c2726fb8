/**
 * kcp serves its own kinds (Workspaces, APIExports, APIBindings, …) from CRDs. kcpt builds them the same way, from
 * compact CRD objects it defines in code, so they get the CRD machinery for free: validation, schema defaults,
 * printer columns, the status subresource, OpenAPI for explain and server-side apply typing. These are the small
 * schema builders those definitions share, and the function that turns a definition into its CRD.
 */
import type { CustomResourceDefinition } from './crd.js';

export type Schema = Record<string, unknown>;

export const str = (description: string, extra: Schema = {}): Schema => ({ type: 'string', description, ...extra });
export const bool = (description: string): Schema => ({ type: 'boolean', description });
export const obj = (description: string, properties: Schema, extra: Schema = {}): Schema => ({ type: 'object', description, properties, ...extra });
export const list = (description: string, items: Schema, extra: Schema = {}): Schema => ({ type: 'array', description, items, ...extra });
export const stringMap = (description: string): Schema => ({ type: 'object', description, additionalProperties: { type: 'string' } });
export const stringList = (description: string): Schema => list(description, { type: 'string' }, { 'x-kubernetes-list-type': 'atomic' });

/** kcp's condition type (conditionsv1alpha1.Condition): kube's with a severity. */
export const condition = obj(
  'One aspect of the object’s state.',
  {
    lastTransitionTime: str('When the status last changed.', { format: 'date-time' }),
    message: str('Human-readable details.'),
    reason: str('Machine-readable CamelCase reason for the last transition.'),
    severity: str('How bad a False status is: Error, Warning or Info.'),
    status: str('True, False or Unknown.'),
    type: str('Condition type in CamelCase.'),
  },
  { required: ['lastTransitionTime', 'status', 'type'] },
);

export const labelSelector = obj(
  'A label selector.',
  {
    matchExpressions: list(
      'Requirements, ANDed.',
      obj(
        'A label selector requirement.',
        { key: str('Label key.'), operator: str('In, NotIn, Exists or DoesNotExist.'), values: stringList('Values.') },
        { required: ['key', 'operator'] },
      ),
      { 'x-kubernetes-list-type': 'atomic' },
    ),
    matchLabels: stringMap('Labels that must match exactly.'),
  },
  { 'x-kubernetes-map-type': 'atomic' },
);

export interface PrinterColumn {
  name: string;
  type: string;
  jsonPath: string;
  description?: string;
  priority?: number;
}

export interface SystemVersion {
  name: string;
  schema: Schema;
  /** The one version objects are stored in. */
  storage?: boolean;
  columns?: PrinterColumn[];
}

export interface SystemDefinition {
  group: string;
  plural: string;
  kind: string;
  shortNames?: string[];
  /** Every kcp kind is cluster-scoped. */
  scope?: 'Cluster' | 'Namespaced';
  versions: SystemVersion[];
}

/** The Established CRD a system definition is served from (category `kcp`, a status subresource per version). */
export function systemCRD(d: SystemDefinition): CustomResourceDefinition {
  const names = {
    plural: d.plural,
    singular: d.kind.toLowerCase(),
    kind: d.kind,
    listKind: `${d.kind}List`,
    categories: ['kcp'],
    ...(d.shortNames ? { shortNames: d.shortNames } : {}),
  };
  const storage = d.versions.find((v) => v.storage)?.name ?? d.versions[0]!.name;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${d.plural}.${d.group}` },
    spec: {
      group: d.group,
      scope: d.scope ?? 'Cluster',
      names,
      versions: d.versions.map((v) => ({
        name: v.name,
        served: true,
        storage: v.name === storage,
        schema: { openAPIV3Schema: v.schema },
        subresources: { status: {} },
        ...(v.columns ? { additionalPrinterColumns: v.columns } : {}),
      })),
    },
    status: { acceptedNames: names, storedVersions: [storage] },
  } as unknown as CustomResourceDefinition;
}
