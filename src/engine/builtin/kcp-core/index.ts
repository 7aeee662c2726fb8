/** core.kcp.io: the workspace's LogicalCluster. */
import type { BuiltinGroup } from '../group.js';
import { kcpCoreResourceTypes } from './resources.js';
import { kcpSchemas } from './schemas.js';

export const kcpCoreGroup: BuiltinGroup = {
  name: 'core.kcp.io',
  resourceTypes: kcpCoreResourceTypes,
  schemas: kcpSchemas,
  // kcp's types have no protobuf form (kcp serves them from CRDs).
  protobuf: [],
};
