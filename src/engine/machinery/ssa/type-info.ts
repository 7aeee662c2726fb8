/**
 * A compact description of the schema facts server-side apply needs: which nodes are structs, granular maps or
 * atomic maps, and how lists merge (atomic, set, or map keyed by some fields). Unknown nodes are deduced from
 * the value: objects are granular maps, arrays are atomic lists, everything else is a scalar leaf.
 */

import { ownValue } from '../own-properties.js';

export type ListType = 'atomic' | 'set' | 'map';

export interface TypeNode {
  kind: 'struct' | 'map' | 'list' | 'scalar';
  /** struct: known properties. */
  fields?: Record<string, TypeNode>;
  /** map: the value type (additionalProperties); list: the item type. */
  elem?: TypeNode;
  /** list only; default atomic. */
  listType?: ListType;
  /** list of type map: the key fields. */
  keys?: string[];
  /**
   * list of type map: the schema defaults of key fields (structured-merge-diff keys an item that omits a key field by
   * its default, so `{containerPort: 80}` is the item `{containerPort: 80, protocol: TCP}` the server defaults it to).
   */
  keyDefaults?: Record<string, unknown>;
  /** struct/map: `atomic` makes the whole node one leaf. */
  mapType?: 'atomic' | 'granular';
  /** struct: fields beyond the declared ones are allowed (x-kubernetes-preserve-unknown-fields) and untyped. */
  open?: boolean;
  /** scalar: the kind of value structured-merge-diff accepts; absent for untyped (int-or-string, unknown). */
  scalar?: 'string' | 'numeric' | 'boolean';
}

export type TypeInfo = TypeNode | undefined;

/** Child type of a struct/map field; undefined when unknown (deduced). */
export function fieldType(node: TypeInfo, name: string): TypeInfo {
  if (!node) return undefined;
  if (node.kind === 'struct') return ownValue(node.fields, name) ?? node.elem;
  if (node.kind === 'map') return node.elem;
  return undefined;
}

/** True when `name` is one of a struct's declared fields (not an entry of a map or an unknown field). */
export function isDeclaredField(node: TypeInfo, name: string): boolean {
  return !!node && node.kind === 'struct' && !!node.fields && Object.hasOwn(node.fields, name);
}

export function itemType(node: TypeInfo): TypeInfo {
  return node && node.kind === 'list' ? node.elem : undefined;
}

export function listTypeOf(node: TypeInfo): ListType {
  if (node && node.kind === 'list') return node.listType ?? 'atomic';
  return 'atomic';
}

export function isAtomicMap(node: TypeInfo): boolean {
  return !!node && (node.kind === 'struct' || node.kind === 'map') && node.mapType === 'atomic';
}

/** Schema of object metadata as SSA tracks it. */
export const objectMetaType: TypeNode = {
  kind: 'struct',
  open: true,
  fields: {
    labels: { kind: 'map', elem: { kind: 'scalar' } },
    annotations: { kind: 'map', elem: { kind: 'scalar' } },
    finalizers: { kind: 'list', listType: 'set', elem: { kind: 'scalar' } },
    ownerReferences: { kind: 'list', listType: 'map', keys: ['uid'], elem: { kind: 'struct', open: true } },
  },
};

/**
 * Add type meta and the standard object metadata to a root type. Without a root type the object is untyped
 * (any other field is allowed and deduced from its value).
 */
export function withObjectMeta(root: TypeInfo): TypeNode {
  const base: TypeNode = root ?? { kind: 'struct', open: true };
  const fields = { ...(base.fields ?? {}), apiVersion: { kind: 'scalar' }, kind: { kind: 'scalar' }, metadata: objectMetaType } as Record<string, TypeNode>;
  return { ...base, kind: 'struct', fields };
}

type Schema = Record<string, unknown>;

/**
 * Build a TypeNode from an OpenAPI v3 schema. `$ref`s (`#/components/schemas/X`) and `allOf` are resolved against
 * `components` (the `components.schemas` map). Recursive schemas share nodes.
 */
export function typeFromOpenAPI(schema: Schema, components: Record<string, Schema> = {}): TypeNode {
  const memo = new Map<string, TypeNode>();

  const refName = (ref: string): string => ref.replace(/^#\/(components\/schemas|definitions)\//, '');

  function resolve(s: Schema): Schema {
    let out: Schema = { ...s };
    if (typeof out.$ref === 'string') {
      const target = components[refName(out.$ref)] ?? {};
      const { $ref: _ignored, ...rest } = out;
      out = { ...resolve(target), ...rest };
    }
    if (Array.isArray(out.allOf)) {
      const parts = out.allOf as Schema[];
      const { allOf: _a, ...rest } = out;
      let merged: Schema = {};
      for (const p of parts) merged = { ...merged, ...resolve(p) };
      out = { ...merged, ...rest };
    }
    return out;
  }

  function build(s: Schema, ctx: { patchKey?: string; patchMerge?: boolean } = {}): TypeNode {
    // Refs get memoised nodes so that recursion terminates.
    const ref = typeof s.$ref === 'string' ? s.$ref : Array.isArray(s.allOf) && s.allOf.length === 1 && typeof (s.allOf[0] as Schema).$ref === 'string' ? ((s.allOf[0] as Schema).$ref as string) : undefined;
    const hasOwnListMarkers = s['x-kubernetes-list-type'] !== undefined || s['x-kubernetes-patch-merge-key'] !== undefined;
    if (ref && !hasOwnListMarkers) {
      const hit = memo.get(ref);
      if (hit) return hit;
      const node: TypeNode = { kind: 'scalar' };
      memo.set(ref, node);
      Object.assign(node, fill(resolve(s), ctx));
      // resource.Quantity is published as a string but structured-merge-diff types it untyped: `cpu: 1` applies.
      if (ref.endsWith('.Quantity')) delete node.scalar;
      return node;
    }
    return fill(resolve(s), ctx);
  }

  function fill(s: Schema, _ctx: { patchKey?: string }): TypeNode {
    const type = s.type;
    const props = s.properties as Record<string, Schema> | undefined;
    const addl = s.additionalProperties;
    if (type === 'array' || s.items) {
      const node: TypeNode = { kind: 'list', listType: 'atomic' };
      const lt = s['x-kubernetes-list-type'];
      const mergeKey = s['x-kubernetes-patch-merge-key'];
      const strategy = String(s['x-kubernetes-patch-strategy'] ?? '');
      if (lt === 'map') {
        node.listType = 'map';
        node.keys = (s['x-kubernetes-list-map-keys'] as string[] | undefined) ?? (typeof mergeKey === 'string' ? [mergeKey] : []);
      } else if (lt === 'set') node.listType = 'set';
      else if (lt === 'atomic') node.listType = 'atomic';
      else if (typeof mergeKey === 'string') {
        node.listType = 'map';
        node.keys = [mergeKey];
      } else if (strategy.split(',').includes('merge')) node.listType = 'set';
      if (s.items && typeof s.items === 'object') {
        node.elem = build(s.items as Schema);
        if (node.listType === 'map') keyDefaultsOf(node, resolve(s.items as Schema));
      }
      return node;
    }
    if (type === 'object' || props || addl) {
      const node: TypeNode = { kind: props ? 'struct' : 'map' };
      if (props) {
        node.fields = {};
        for (const [k, v] of Object.entries(props)) node.fields[k] = build(v);
      }
      if (addl && typeof addl === 'object') node.elem = build(addl as Schema);
      if (props && s['x-kubernetes-preserve-unknown-fields'] === true) node.open = true;
      if (s['x-kubernetes-embedded-resource'] === true) {
        // An embedded object carries its own type meta and metadata, declared or not.
        node.kind = 'struct';
        node.fields = { apiVersion: { kind: 'scalar' }, kind: { kind: 'scalar' }, metadata: objectMetaType, ...(node.fields ?? {}) };
        if (!props) node.open = s['x-kubernetes-preserve-unknown-fields'] === true;
      }
      const mt = s['x-kubernetes-map-type'];
      if (mt === 'atomic') node.mapType = 'atomic';
      else if (mt === 'granular') node.mapType = 'granular';
      return node;
    }
    if (s['x-kubernetes-preserve-unknown-fields'] || s['x-kubernetes-int-or-string']) {
      return s['x-kubernetes-int-or-string'] ? { kind: 'scalar' } : { kind: 'map' };
    }
    if (type === 'string') return { kind: 'scalar', scalar: 'string' };
    if (type === 'integer' || type === 'number') return { kind: 'scalar', scalar: 'numeric' };
    if (type === 'boolean') return { kind: 'scalar', scalar: 'boolean' };
    return { kind: 'scalar' };
  }

  return build(schema);
}

/** A key field's default is the `default` its property schema carries (kube-openapi's schemaconv: member.Default). */
function keyDefaultsOf(node: TypeNode, items: Schema): void {
  const props = items.properties;
  if (!props || typeof props !== 'object') return;
  for (const key of node.keys ?? []) {
    const prop = ownValue(props as Record<string, unknown>, key);
    const value = prop && typeof prop === 'object' ? ownValue(prop as Record<string, unknown>, 'default') : undefined;
    // A null default is none (Go's nil).
    if (value !== undefined && value !== null) (node.keyDefaults ??= {})[key] = value;
  }
}
