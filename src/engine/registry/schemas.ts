/**
 * The OpenAPI component schemas a resource type's schema may refer to: the built-in `io.k8s.*` ones plus whatever
 * the type brings itself (a CRD version's schema). Merged once per type.
 */
import { builtinSchemas } from '../machinery/openapi-schemas/index.js';
import type { ResourceType } from './types.js';

type Schemas = Record<string, Record<string, unknown>>;

const merged = new WeakMap<ResourceType, Schemas>();

export function schemasOf(rt: ResourceType): Schemas {
  if (!rt.schemas) return builtinSchemas;
  let schemas = merged.get(rt);
  if (!schemas) merged.set(rt, (schemas = { ...builtinSchemas, ...rt.schemas }));
  return schemas;
}
