export { compileCRSchema, type CompiledCRSchema } from './cr-validator.js';
export { applyDefaults } from './defaults.js';
export { prune } from './prune.js';
export { isProtectedGroup, validateCRDSpec, validateStructuralSchema, type CRDLike } from './structural.js';
export type { JSONSchemaProps } from './types.js';
