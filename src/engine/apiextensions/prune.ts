/**
 * Structural pruning of custom resources: drop every field a structural schema does not declare and return the
 * pruned paths (`spec.foo`) so fieldValidation Strict/Warn can report them. Mutates `obj` in place. The walker is
 * the engine's one schema pruner (machinery/unknown-fields.ts), shared with built-in kinds.
 */
import { pruneUnknownFields, type SchemaNode } from '../machinery/unknown-fields.js';
import type { JSONSchemaProps } from './types.js';

export function prune(obj: Record<string, unknown>, schema: JSONSchemaProps | undefined): string[] {
  return pruneUnknownFields(obj, schema as SchemaNode | undefined);
}
