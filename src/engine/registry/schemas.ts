/**
 * The OpenAPI component schemas a resource type's schema may refer to: the shared ones (meta, Scale, …) plus those
 * the type brings itself (its built-in group's, or a CRD version's). Merged once per type.
 */
import { sharedSchemas } from '../machinery/openapi-schemas/index.js';
import type { ResourceType } from './types.js';

type Schemas = Record<string, Record<string, unknown>>;

const merged = new WeakMap<ResourceType, Schemas>();

export function schemasOf(rt: ResourceType): Schemas {
  if (!rt.schemas) return sharedSchemas;
  let schemas = merged.get(rt);
  if (!schemas) merged.set(rt, (schemas = { ...sharedSchemas, ...rt.schemas }));
  return schemas;
}
