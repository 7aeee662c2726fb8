/** What the rest of the engine uses of the built-in groups (builtin/groups.ts lists them). */
export { builtinGroups, builtinResourceTypes, builtinSchemas } from './groups.js';
export { toCoreEvent, fromCoreEvent } from './events/resources.js';
export { kubernetesFinalizer, namespaceNameLabel } from './core/namespace.js';
