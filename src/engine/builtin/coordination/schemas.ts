/** coordination.k8s.io/v1 Lease. */
import { MICRO_TIME, addLists, field, int32, kindSchema, str, struct, type Schema } from '../../machinery/openapi-schemas/helpers.js';

const CO = 'io.k8s.api.coordination.v1';

export const coordinationSchemas: Record<string, Schema> = {
  [`${CO}.Lease`]: kindSchema({
    description: 'A Lease is a lock with a holder and an expiry, used for leader election and heartbeats.',
    gvk: { group: 'coordination.k8s.io', version: 'v1', kind: 'Lease' },
    properties: {
      spec: field(`${CO}.LeaseSpec`, 'The current holder and timing of the lease.', { withDefault: true }),
    },
  }),
  [`${CO}.LeaseSpec`]: struct('Holder and timing of a lease.', {
    acquireTime: field(MICRO_TIME, 'When the current holder acquired the lease.'),
    holderIdentity: str('Identity of the current holder.'),
    leaseDurationSeconds: int32('How long a candidate waits after the last renewal before taking over.'),
    leaseTransitions: int32('How many times the lease has changed holders.'),
    preferredHolder: str('Holder that should take over next, when a strategy supports it.'),
    renewTime: field(MICRO_TIME, 'When the holder last renewed the lease.'),
    strategy: str('Strategy for choosing the next holder in coordinated leader election.'),
  }),
};

addLists(coordinationSchemas, CO, 'coordination.k8s.io', 'v1', ['Lease']);
