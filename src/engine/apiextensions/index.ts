export { compileCRSchema, type CompiledCRSchema } from './cr-validator.js';
export { applyDefaults } from './defaults.js';
export { prune } from './prune.js';
export { isProtectedGroup } from './api-approval.js';
export { validateCRDSpec, type CRDLike } from './crd-validation.js';
export { validateStructuralSchema } from './structural.js';
export type { JSONSchemaProps } from './types.js';
