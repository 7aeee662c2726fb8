/** coordination.k8s.io: leases. */
import type { BuiltinGroup } from '../group.js';
import { coordinationResourceTypes } from './resources.js';
import { coordinationSchemas } from './schemas.js';

export const coordinationGroup: BuiltinGroup = {
  name: 'coordination.k8s.io',
  resourceTypes: coordinationResourceTypes,
  schemas: coordinationSchemas,
};
