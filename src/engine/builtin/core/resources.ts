/**
 * core/v1 resources served in every logical cluster (kcp keeps only the non-workload ones): namespaces, configmaps,
 * secrets, serviceaccounts, events, limitranges, resourcequotas. Listed alphabetically, as /api/v1 lists them.
 */
import type { KubeObject, ResourceType, Strategy, TablePrinter } from '../../registry/types.js';
import { configMapPrinter, configMapStrategy } from './configmap.js';
import { defineBuiltin } from '../define.js';
import { coreEventFieldSelectors, eventPrinter } from './event-rules.js';
import { coreEventStrategy } from '../events/resources.js';
import { namespaceFieldSelectors, namespacePrinter, namespaceStrategy } from './namespace.js';
import { ageColumn, ageOf, column, createdAtPrinter, nameColumn, nameOf } from '../printing.js';
import { record } from '../../machinery/field-values.js';
import { limitRangeStrategy, resourceQuotaPrinter, resourceQuotaStrategy } from './quota.js';
import { secretFieldSelectors, secretPrinter, secretStrategy } from './secret.js';
import { namespacePatchSchema, serviceAccountPatchSchema } from './patch-schemas.js';
import { coreSchemas } from './schemas.js';

export const enforceMountableSecretsAnnotation = 'kubernetes.io/enforce-mountable-secrets';

export const serviceAccountStrategy: Strategy = {
  allowUnconditionalUpdate: true,
  prepareForCreate(obj) {
    // kube keeps only the names of referenced secrets.
    if (Array.isArray(obj.secrets)) obj.secrets = obj.secrets.map((s) => ({ name: record(s).name }));
  },
  warnings(obj) {
    if (obj.metadata?.annotations?.[enforceMountableSecretsAnnotation] === undefined) return [];
    return [
      `metadata.annotations[${enforceMountableSecretsAnnotation}]: deprecated in v1.32+; prefer separate namespaces to isolate access to mounted secrets`,
    ];
  },
};

export const serviceAccountPrinter: TablePrinter = {
  columns: [
    nameColumn,
    column(
      'Secrets',
      'Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are ' +
        'allowed to use. More info: https://kubernetes.io/docs/concepts/configuration/secret',
    ),
    ageColumn,
  ],
  cells: (obj: KubeObject, now: number) => [nameOf(obj), Array.isArray(obj.secrets) ? obj.secrets.length : 0, ageOf(obj, now)],
};

const core = { group: '', version: 'v1' } as const;

export const configMaps = defineBuiltin({
  ...core,
  resource: 'configmaps',
  singular: 'configmap',
  kind: 'ConfigMap',
  namespaced: true,
  shortNames: ['cm'],
  strategy: configMapStrategy,
  printer: configMapPrinter,
  openapiSchemaName: 'io.k8s.api.core.v1.ConfigMap',
  schemas: coreSchemas,
});

export const coreEvents = defineBuiltin({
  ...core,
  resource: 'events',
  singular: 'event',
  kind: 'Event',
  namespaced: true,
  shortNames: ['ev'],
  strategy: coreEventStrategy,
  printer: eventPrinter,
  fieldSelectors: coreEventFieldSelectors,
  openapiSchemaName: 'io.k8s.api.core.v1.Event',
  schemas: coreSchemas,
});

export const limitRanges = defineBuiltin({
  ...core,
  resource: 'limitranges',
  singular: 'limitrange',
  kind: 'LimitRange',
  namespaced: true,
  shortNames: ['limits'],
  strategy: limitRangeStrategy,
  printer: createdAtPrinter,
  openapiSchemaName: 'io.k8s.api.core.v1.LimitRange',
  schemas: coreSchemas,
});

export const namespaces = defineBuiltin({
  ...core,
  resource: 'namespaces',
  singular: 'namespace',
  kind: 'Namespace',
  namespaced: false,
  shortNames: ['ns'],
  // Namespaces have no deletecollection in kube.
  verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
  subresources: { status: true, finalize: true },
  strategy: namespaceStrategy,
  printer: namespacePrinter,
  fieldSelectors: namespaceFieldSelectors,
  openapiSchemaName: 'io.k8s.api.core.v1.Namespace',
  schemas: coreSchemas,
  patchSchema: namespacePatchSchema,
});

export const resourceQuotas = defineBuiltin({
  ...core,
  resource: 'resourcequotas',
  singular: 'resourcequota',
  kind: 'ResourceQuota',
  namespaced: true,
  shortNames: ['quota'],
  subresources: { status: true },
  strategy: resourceQuotaStrategy,
  printer: resourceQuotaPrinter,
  openapiSchemaName: 'io.k8s.api.core.v1.ResourceQuota',
  schemas: coreSchemas,
});

export const secrets = defineBuiltin({
  ...core,
  resource: 'secrets',
  singular: 'secret',
  kind: 'Secret',
  namespaced: true,
  strategy: secretStrategy,
  printer: secretPrinter,
  fieldSelectors: secretFieldSelectors,
  openapiSchemaName: 'io.k8s.api.core.v1.Secret',
  schemas: coreSchemas,
});

export const serviceAccounts = defineBuiltin({
  ...core,
  resource: 'serviceaccounts',
  singular: 'serviceaccount',
  kind: 'ServiceAccount',
  namespaced: true,
  shortNames: ['sa'],
  subresources: { token: true },
  strategy: serviceAccountStrategy,
  printer: serviceAccountPrinter,
  openapiSchemaName: 'io.k8s.api.core.v1.ServiceAccount',
  schemas: coreSchemas,
  patchSchema: serviceAccountPatchSchema,
});

export function coreResourceTypes(): ResourceType[] {
  return [configMaps, coreEvents, limitRanges, namespaces, resourceQuotas, secrets, serviceAccounts];
}
