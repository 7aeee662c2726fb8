/** The core group (`v1`): the non-workload kinds kcp keeps. */
import type { BuiltinGroup } from '../group.js';
import { coreV1 } from './protobuf.js';
import { coreResourceTypes } from './resources.js';
import { coreSchemas } from './schemas.js';

export const coreGroup: BuiltinGroup = {
  name: '',
  resourceTypes: coreResourceTypes,
  schemas: coreSchemas,
  protobuf: [coreV1],
};
