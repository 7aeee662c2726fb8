/**
 * core.kcp.io/v1alpha1 LogicalCluster: the singleton `cluster` object every logical cluster has. In kcp it is a
 * system CRD, so it behaves like a custom resource: generation tracking, resourceVersion required on update, status
 * only through /status, and the CRD schema's defaults and checks (name enum, initializer pattern, owner fields).
 * Lifecycle rules (phases, initializers, deletion) belong to the tenancy controllers and admission, not here.
 */
import { fieldErrors, type FieldError } from '../../machinery/status.js';
import type { KubeObject, ResourceType, Strategy, TablePrinter } from '../../registry/types.js';
import { defineBuiltin } from '../define.js';
import { ageOf, nameColumn, nameOf } from '../printing.js';
import { record } from '../../machinery/field-values.js';
import { kcpSchemas } from './schemas.js';

export const logicalClusterName = 'cluster';

/** kcp's LogicalClusterInitializer/Terminator pattern: `<path>:<name>` or `system:…`. */
const initializerPattern =
  '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(:[a-z0-9]([-a-z0-9]*[a-z0-9])?)*(:[a-z0-9][a-z0-9]([-a-z0-9]*[a-z0-9])?))|(system:.+)$';
const initializerRe = new RegExp(initializerPattern);

function validateNameList(value: unknown, path: string): FieldError[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return [fieldErrors.typeInvalid(path, value, 'must be of type array')];
  return value.flatMap((v, i) =>
    typeof v === 'string' && initializerRe.test(v)
      ? []
      : [fieldErrors.invalid(`${path}[${i}]`, v, `should match '${initializerPattern}'`)],
  );
}

function validateOwner(value: unknown): FieldError[] {
  if (value === undefined || value === null) return [];
  const owner = record(value);
  const errs: FieldError[] = [];
  for (const field of ['apiVersion', 'cluster', 'name', 'resource', 'uid']) {
    if (owner[field] === undefined) errs.push(fieldErrors.required(`spec.owner.${field}`));
  }
  for (const field of ['cluster', 'name', 'resource']) {
    if (typeof owner[field] === 'string' && owner[field] === '') {
      errs.push(fieldErrors.invalid(`spec.owner.${field}`, '', 'spec.owner.' + field + ' in body should be at least 1 chars long'));
    }
  }
  const apiVersion = owner.apiVersion;
  if (typeof apiVersion === 'string' && !/^([^/]+\/)?[^/]+$/.test(apiVersion)) {
    errs.push(fieldErrors.invalid('spec.owner.apiVersion', apiVersion, "should match '^([^/]+/)?[^/]+$'"));
  }
  return errs;
}

/** The CRD's structural defaults: `spec: {directlyDeletable: false}`, `status: {phase: Scheduling}`. */
function applySchemaDefaults(obj: KubeObject): void {
  const spec = record(obj.spec);
  obj.spec = spec.directlyDeletable === undefined ? { ...spec, directlyDeletable: false } : spec;
  const status = record(obj.status);
  obj.status = status.phase === undefined ? { ...status, phase: 'Scheduling' } : status;
}

export const logicalClusterStrategy: Strategy = {
  tracksGeneration: true,
  hasStatusSubresource: true,
  allowUnconditionalUpdate: false,
  defaults: applySchemaDefaults,
  prepareForCreate(obj) {
    // A client's create has its status dropped by the store (status subresource); reading it back shows the default.
    applySchemaDefaults(obj);
  },
  prepareForDelete(obj) {
    // kcp's phase while a logical cluster is deleted: Terminating while terminators remain, then Deleting.
    const status = record(obj.status);
    const terminators = Array.isArray(status.terminators) ? status.terminators : [];
    obj.status = { ...status, phase: terminators.length > 0 ? 'Terminating' : 'Deleting' };
    // kcp's LogicalCluster controller labels a cluster being deleted `Deleting`, whatever its phase.
    obj.metadata = { ...obj.metadata, labels: { ...(obj.metadata?.labels ?? {}), 'tenancy.kcp.io/phase': 'Deleting' } };
  },
  prepareForStatusUpdate(obj) {
    // Status writes skip defaults(); a status without phase still reads back with the schema default.
    applySchemaDefaults(obj);
  },
  validate(obj) {
    const errs: FieldError[] = [];
    const name = obj.metadata?.name ?? '';
    if (name !== logicalClusterName) errs.push(fieldErrors.notSupported('metadata.name', name, [logicalClusterName]));
    const spec = record(obj.spec);
    if (spec.directlyDeletable !== undefined && typeof spec.directlyDeletable !== 'boolean') {
      errs.push(fieldErrors.typeInvalid('spec.directlyDeletable', spec.directlyDeletable, 'must be of type boolean'));
    }
    errs.push(...validateNameList(spec.initializers, 'spec.initializers'));
    errs.push(...validateNameList(spec.terminators, 'spec.terminators'));
    errs.push(...validateOwner(spec.owner));
    const status = record(obj.status);
    errs.push(...validateNameList(status.initializers, 'status.initializers'));
    errs.push(...validateNameList(status.terminators, 'status.terminators'));
    if (status.URL !== undefined && typeof status.URL !== 'string') {
      errs.push(fieldErrors.typeInvalid('status.URL', status.URL, 'must be of type string'));
    }
    return errs;
  },
};

/** kcp's additionalPrinterColumns, rendered as kube renders CRD columns (missing values are null → `<none>`). */
export const logicalClusterPrinter: TablePrinter = {
  columns: [
    nameColumn,
    { name: 'Phase', type: 'string', description: 'The current phase (e.g. Scheduling, Initializing, Ready, Deleting)' },
    { name: 'URL', type: 'string', description: 'URL to access the logical cluster' },
    { name: 'Age', type: 'date', description: 'Custom resource definition column (in JSONPath format): .metadata.creationTimestamp' },
  ],
  cells(obj, now) {
    const status = record(obj.status);
    const cell = (v: unknown) => (v === undefined || v === null ? null : typeof v === 'string' ? v : JSON.stringify(v));
    return [nameOf(obj), cell(status.phase), cell(status.URL), ageOf(obj, now)];
  },
};

export const logicalClusters: ResourceType = defineBuiltin({
  group: 'core.kcp.io',
  version: 'v1alpha1',
  resource: 'logicalclusters',
  singular: 'logicalcluster',
  kind: 'LogicalCluster',
  namespaced: false,
  categories: ['kcp'],
  subresources: { status: true },
  strategy: logicalClusterStrategy,
  printer: logicalClusterPrinter,
  openapiSchemaName: 'io.kcp.core.v1alpha1.LogicalCluster',
  schemas: kcpSchemas,
});

export function kcpCoreResourceTypes(): ResourceType[] {
  return [logicalClusters];
}
