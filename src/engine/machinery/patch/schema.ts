/**
 * Where a kind's strategic-merge metadata lives. Upstream keeps it in Go struct tags
 * (`patchStrategy:"merge" patchMergeKey:"name"`) and republishes it in OpenAPI as `x-kubernetes-patch-strategy` /
 * `x-kubernetes-patch-merge-key`; a PatchSchema holds the same two values, on the same fields, with the same
 * spelling, so the OpenAPI writer can copy them verbatim.
 *
 * Only fields that carry a tag (and the objects leading to them) need to appear: anything not described merges
 * like a JSON merge patch (maps merge, lists are replaced).
 */
import { hasOwn } from './json.js';

/** The upstream tag values; `retainKeys` only changes what clients generate, the server honours `$retainKeys`. */
export type PatchStrategy = 'merge' | 'replace' | 'retainKeys' | 'merge,retainKeys';

export interface PatchSchema {
  /** `x-kubernetes-patch-strategy` of this field. A list without `merge` is replaced as a whole. */
  readonly patchStrategy?: PatchStrategy;
  /** `x-kubernetes-patch-merge-key`: the field that identifies an element of a merged list of objects. */
  readonly patchMergeKey?: string;
  /** The fields of this object. */
  readonly fields?: Readonly<Record<string, PatchSchema>>;
  /** The schema of every element when this field is a list. */
  readonly items?: PatchSchema;
  /** The schema of every value when this field is a map with arbitrary keys. */
  readonly map?: PatchSchema;
}

/** The schema of `key` inside an object described by `schema`, if anything is known about it. */
export function fieldSchema(schema: PatchSchema | undefined, key: string): PatchSchema | undefined {
  if (!schema) return undefined;
  // hasOwn: a data key named `constructor` must not find Object.prototype.constructor.
  if (schema.fields && hasOwn(schema.fields, key)) return schema.fields[key];
  return schema.map;
}

export function strategies(schema: PatchSchema | undefined): string[] {
  return schema?.patchStrategy ? schema.patchStrategy.split(',') : [];
}

export function isMergeList(schema: PatchSchema | undefined): boolean {
  return strategies(schema).includes('merge');
}

export function isReplaceMap(schema: PatchSchema | undefined): boolean {
  return strategies(schema).includes('replace');
}

/** One tagged field, in the form OpenAPI documents carry it. */
export interface PatchExtension {
  /** JSON path of the field from the object root: `.metadata.ownerReferences`, `.spec.ports`, `.rules[*].verbs`. */
  path: string;
  'x-kubernetes-patch-strategy'?: string;
  'x-kubernetes-patch-merge-key'?: string;
}

/** Every tagged field of a schema, for the OpenAPI writer and for people reading the data. */
export function listPatchExtensions(schema: PatchSchema, path = ''): PatchExtension[] {
  const out: PatchExtension[] = [];
  if (schema.patchStrategy || schema.patchMergeKey) {
    const ext: PatchExtension = { path: path || '.' };
    if (schema.patchStrategy) ext['x-kubernetes-patch-strategy'] = schema.patchStrategy;
    if (schema.patchMergeKey) ext['x-kubernetes-patch-merge-key'] = schema.patchMergeKey;
    out.push(ext);
  }
  for (const [name, field] of Object.entries(schema.fields ?? {})) {
    out.push(...listPatchExtensions(field, `${path}.${name}`));
  }
  if (schema.items) out.push(...listPatchExtensions(schema.items, `${path}[*]`));
  if (schema.map) out.push(...listPatchExtensions(schema.map, `${path}[*]`));
  return out;
}
