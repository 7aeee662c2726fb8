/**
 * The built-in component schemas, keyed by their OpenAPI names, plus helpers to collect the schemas a document
 * needs and to find a kind's schema by its x-kubernetes-group-version-kind tag (the way kubectl finds it).
 */
import { apiextensionsSchemas } from './apiextensions.js';
import { authSchemas } from './auth.js';
import { autoscalingSchemas } from './autoscaling.js';
import { refName, type GVK, type Schema } from './helpers.js';
import { metaSchemas } from './meta.js';

export type { GVK, Schema } from './helpers.js';
export { refTo } from './helpers.js';

/**
 * The schemas no built-in group owns: meta (every kind refers to it), autoscaling/v1 Scale (every `…/scale`
 * subresource's body), and the kinds served outside builtin/ (the review APIs, CustomResourceDefinition). Each
 * built-in group brings its own kinds' schemas on its ResourceTypes (`schemas`).
 */
export const sharedSchemas: Record<string, Schema> = Object.freeze({
  ...metaSchemas,
  ...authSchemas,
  ...autoscalingSchemas,
  ...apiextensionsSchemas,
}) as Record<string, Schema>;

/** Every component name referenced (`$ref`) anywhere inside `node`. */
export function referencedNames(node: unknown, out: Set<string> = new Set()): Set<string> {
  if (Array.isArray(node)) {
    for (const item of node) referencedNames(item, out);
  } else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') {
        const name = refName(value);
        if (name) out.add(name);
      } else {
        referencedNames(value, out);
      }
    }
  }
  return out;
}

/**
 * The named schemas plus everything they reference, transitively, taken from `schemas` (callers pass the built-in
 * groups' schemas merged with any CRD schemas). Names missing from `schemas` are skipped, so a dangling
 * reference shows up as a missing component rather than an exception at serve time. Output keys are sorted so
 * documents, and therefore their hashes, are stable.
 */
export function schemaClosure(
  names: Iterable<string>,
  schemas: Record<string, Schema>,
): Record<string, Schema> {
  const found = new Map<string, Schema>();
  const queue = [...names];
  while (queue.length > 0) {
    const name = queue.pop() as string;
    if (found.has(name)) continue;
    const schema = schemas[name];
    if (!schema) continue;
    found.set(name, schema);
    for (const ref of referencedNames(schema)) if (!found.has(ref)) queue.push(ref);
  }
  const out: Record<string, Schema> = {};
  for (const name of [...found.keys()].sort()) out[name] = found.get(name) as Schema;
  return out;
}

/** GVK tags of a component schema (always a list on components). */
export function gvksOf(schema: Schema): GVK[] {
  const tag = schema['x-kubernetes-group-version-kind'];
  return Array.isArray(tag) ? (tag as GVK[]) : [];
}

/** The name of the component whose GVK list contains `gvk`, as kubectl explain and apply look it up. */
export function findSchemaNameByGVK(schemas: Record<string, Schema>, gvk: GVK): string | undefined {
  for (const [name, schema] of Object.entries(schemas)) {
    if (gvksOf(schema).some((g) => g.group === gvk.group && g.version === gvk.version && g.kind === gvk.kind)) {
      return name;
    }
  }
  return undefined;
}
