/**
 * The built-in API groups every logical cluster serves, in discovery order: the core group first, then the API
 * groups in kube-apiserver's group priority order (events.k8s.io, rbac, coordination), then kcp's system APIs.
 * Adding a group is one line here; its folder holds everything else.
 */
import { sharedSchemas, type Schema } from '../machinery/openapi-schemas/index.js';
import type { ResourceType } from '../registry/types.js';
import { coordinationGroup } from './coordination/index.js';
import { coreGroup } from './core/index.js';
import { eventsGroup } from './events/index.js';
import type { BuiltinGroup } from './group.js';
import { kcpCoreGroup } from './kcp-core/index.js';
import { rbacGroup } from './rbac/index.js';

export const builtinGroups: readonly BuiltinGroup[] = [coreGroup, eventsGroup, rbacGroup, coordinationGroup, kcpCoreGroup];

export function builtinResourceTypes(): ResourceType[] {
  return builtinGroups.flatMap((group) => group.resourceTypes());
}

/** Every schema a built-in kind may refer to: the shared ones and each group's. */
export const builtinSchemas: Record<string, Schema> = Object.freeze(
  Object.assign({}, sharedSchemas, ...builtinGroups.map((group) => group.schemas)),
) as Record<string, Schema>;
