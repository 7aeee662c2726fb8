/**
 * coordination.k8s.io/v1 Leases: what leader election and node heartbeats write. Validation follows
 * pkg/apis/coordination/validation.
 */
import { fieldErrors, type FieldError } from '../../machinery/status.js';
import type { ResourceType, Strategy, TablePrinter } from '../../registry/types.js';
import { defineBuiltin } from '../define.js';
import { ageColumn, ageOf, column, nameColumn, nameOf } from '../printing.js';
import { record, str } from '../../machinery/field-values.js';
import { coordinationSchemas } from './schemas.js';

const leaseStrategies = ['OldestEmulationVersion'];

export const leaseStrategy: Strategy = {
  allowUnconditionalUpdate: true,
  validate(obj) {
    const spec = record(obj.spec);
    const errs: FieldError[] = [];
    const duration = spec.leaseDurationSeconds;
    if (typeof duration === 'number' && duration <= 0) {
      errs.push(fieldErrors.invalid('spec.leaseDurationSeconds', duration, 'must be greater than 0'));
    }
    const transitions = spec.leaseTransitions;
    if (typeof transitions === 'number' && transitions < 0) {
      errs.push(fieldErrors.invalid('spec.leaseTransitions', transitions, 'must be greater than or equal to 0'));
    }
    const strategy = str(spec.strategy);
    if (strategy !== '' && !leaseStrategies.includes(strategy)) {
      errs.push(fieldErrors.notSupported('spec.strategy', strategy, leaseStrategies));
    }
    if (str(spec.preferredHolder) !== '' && strategy === '') {
      errs.push(fieldErrors.forbidden('spec.preferredHolder', 'may only be specified if `strategy` is defined'));
    }
    return errs;
  },
};

export const leasePrinter: TablePrinter = {
  columns: [
    nameColumn,
    column(
      'Holder',
      'holderIdentity contains the identity of the holder of a current lease. If Coordinated Leader Election is ' +
        'used, the holder identity must be equal to the elected LeaseCandidate.metadata.name field.',
    ),
    ageColumn,
  ],
  cells: (obj, now) => [nameOf(obj), str(record(obj.spec).holderIdentity), ageOf(obj, now)],
};

export const leases: ResourceType = defineBuiltin({
  group: 'coordination.k8s.io',
  version: 'v1',
  resource: 'leases',
  singular: 'lease',
  kind: 'Lease',
  namespaced: true,
  strategy: leaseStrategy,
  printer: leasePrinter,
  openapiSchemaName: 'io.k8s.api.coordination.v1.Lease',
  schemas: coordinationSchemas,
});

export function coordinationResourceTypes(): ResourceType[] {
  return [leases];
}
