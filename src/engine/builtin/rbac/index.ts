/** rbac.authorization.k8s.io: roles, cluster roles and their bindings. */
import type { BuiltinGroup } from '../group.js';
import { rbacV1 } from './protobuf.js';
import { rbacResourceTypes } from './resources.js';
import { rbacSchemas } from './schemas.js';

export const rbacGroup: BuiltinGroup = {
  name: 'rbac.authorization.k8s.io',
  resourceTypes: rbacResourceTypes,
  schemas: rbacSchemas,
  protobuf: [rbacV1],
};
