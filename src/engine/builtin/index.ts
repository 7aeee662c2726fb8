/**
 * The built-in resources every logical cluster serves, in discovery order: the core group first, then the API
 * groups in kube-apiserver's group priority order (events.k8s.io, rbac, coordination), then kcp's system APIs.
 */
import type { ResourceType } from '../registry/types.js';
import { coordinationResourceTypes } from './coordination.js';
import { coreResourceTypes } from './core.js';
import { eventsGroupResourceTypes } from './events.js';
import { kcpCoreResourceTypes } from './kcp-core.js';
import { rbacResourceTypes } from './rbac.js';

export function builtinResourceTypes(): ResourceType[] {
  return [
    ...coreResourceTypes(),
    ...eventsGroupResourceTypes(),
    ...rbacResourceTypes(),
    ...coordinationResourceTypes(),
    ...kcpCoreResourceTypes(),
  ];
}

export { toCoreEvent, fromCoreEvent } from './events.js';
export { kubernetesFinalizer, namespaceNameLabel } from './namespace.js';
