/**
 * Structural pruning of custom resources: drop every field a structural schema does not declare. Returns the
 * pruned paths (`spec.foo`) so fieldValidation Strict/Warn can report them. Mutates `obj` in place; callers
 * clone first if they need the original.
 */
import { child, index, isPlainObject, type JSONSchemaProps } from './types.js';

/** ObjectMeta fields kept under a resource's `metadata`. */
const OBJECT_META_FIELDS = new Set([
  'name', 'generateName', 'namespace', 'selfLink', 'uid', 'resourceVersion', 'generation', 'creationTimestamp',
  'deletionTimestamp', 'deletionGracePeriodSeconds', 'labels', 'annotations', 'ownerReferences', 'finalizers',
  'managedFields',
]);

/** Prune `obj` (a whole custom resource) against the version's `openAPIV3Schema`. Returns the pruned field paths. */
export function prune(obj: Record<string, unknown>, schema: JSONSchemaProps | undefined): string[] {
  const pruned: string[] = [];
  if (!schema) return pruned;
  pruneObject(obj, schema, '', true, pruned);
  return pruned;
}

function pruneObject(obj: Record<string, unknown>, s: JSONSchemaProps, p: string, isResource: boolean, out: string[]): void {
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
  const props = s.properties ?? {};
  const ap = s.additionalProperties;
  for (const k of Object.keys(obj)) {
    const fp = child(p, k);
    if (isResource && (k === 'apiVersion' || k === 'kind')) continue;
    if (isResource && k === 'metadata') {
      const md = obj[k];
      if (isPlainObject(md)) {
        for (const mk of Object.keys(md)) {
          if (!OBJECT_META_FIELDS.has(mk)) {
            delete md[mk];
            out.push(child(fp, mk));
          }
        }
      }
      continue;
    }
    const sub = props[k];
    if (sub) {
      pruneValue(obj[k], sub, fp, out);
    } else if (isPlainObject(ap)) {
      pruneValue(obj[k], ap as JSONSchemaProps, fp, out);
    } else if (ap === true || preserve) {
      continue;
    } else {
      delete obj[k];
      out.push(fp);
    }
  }
}

function pruneValue(v: unknown, s: JSONSchemaProps, p: string, out: string[]): void {
  if (Array.isArray(v)) {
    if (s.items && isPlainObject(s.items)) v.forEach((item, i) => pruneValue(item, s.items!, index(p, i), out));
  } else if (isPlainObject(v)) {
    const hasStructure = s.properties !== undefined || s.additionalProperties !== undefined;
    const embedded = s['x-kubernetes-embedded-resource'] === true;
    // A node with x-kubernetes-preserve-unknown-fields and no properties keeps everything below it.
    if (!hasStructure && s['x-kubernetes-preserve-unknown-fields'] === true && !embedded) return;
    if (!hasStructure && !embedded && s.type !== 'object' && s.type !== undefined) return;
    pruneObject(v, s, p, embedded, out);
  }
}
