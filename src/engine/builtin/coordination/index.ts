/** coordination.k8s.io: leases. */
import type { BuiltinGroup } from '../group.js';
import { coordinationV1 } from './protobuf.js';
import { coordinationResourceTypes } from './resources.js';
import { coordinationSchemas } from './schemas.js';

export const coordinationGroup: BuiltinGroup = {
  name: 'coordination.k8s.io',
  resourceTypes: coordinationResourceTypes,
  schemas: coordinationSchemas,
  protobuf: [coordinationV1],
};
