/** coordination.k8s.io/v1 Lease. Field numbers: k8s.io/api v0.32 coordination/v1/generated.proto. */
import type { PackageDefs } from '../../machinery/protobuf/schema.js';

const objectMeta = '1 meta.v1.ObjectMeta';

export const coordinationV1: PackageDefs = {
  pkg: 'coordination.v1',
  apiVersion: 'coordination.k8s.io/v1',
  kinds: ['Lease'],
  messages: {
    Lease: { metadata: objectMeta, spec: '2 LeaseSpec' },
    LeaseSpec: {
      holderIdentity: '1 ?string',
      leaseDurationSeconds: '2 ?int32',
      acquireTime: '3 ?meta.v1.MicroTime',
      renewTime: '4 ?meta.v1.MicroTime',
      leaseTransitions: '5 ?int32',
      strategy: '6 ?string',
      preferredHolder: '7 ?string',
    },
  },
};
