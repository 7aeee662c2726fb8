/** The core group (`v1`): the non-workload kinds kcp keeps. */
import type { BuiltinGroup } from '../group.js';
import { coreResourceTypes } from './resources.js';
import { coreSchemas } from './schemas.js';

export const coreGroup: BuiltinGroup = {
  name: '',
  resourceTypes: coreResourceTypes,
  schemas: coreSchemas,
};
