/**
 * Small constructors for OpenAPI v3 schema fragments. They produce the same shapes kube-openapi emits (struct
 * fields as `allOf: [{$ref}]`, maps as `additionalProperties`, kinds tagged with a GVK list) because kubectl's
 * explain and strategic-merge code walk exactly those shapes.
 */

/** A JSON schema node. Kept loose on purpose: the documents are plain JSON handed to clients. */
export type Schema = Record<string, unknown>;

export interface GVK {
  group: string;
  version: string;
  kind: string;
}

const COMPONENTS = '#/components/schemas/';

export const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
export const OBJECT_META = `${META}.ObjectMeta`;
export const LIST_META = `${META}.ListMeta`;
export const TIME = `${META}.Time`;
export const MICRO_TIME = `${META}.MicroTime`;
export const QUANTITY = 'io.k8s.apimachinery.pkg.api.resource.Quantity';

export function refTo(name: string): string {
  return COMPONENTS + name;
}

/** Name of the component a `$ref` string points at, or undefined for refs outside components. */
export function refName(ref: string): string | undefined {
  return ref.startsWith(COMPONENTS) ? ref.slice(COMPONENTS.length) : undefined;
}

/**
 * A field holding another named type. Upstream gives fields of non-pointer struct type `default: {}`; pass
 * `withDefault` for those so defaulting code sees the same document kube publishes.
 */
export function field(name: string, description: string, opts: { withDefault?: boolean } = {}): Schema {
  const s: Schema = { allOf: [{ $ref: refTo(name) }], description };
  if (opts.withDefault) s.default = {};
  return s;
}

export function str(description: string, extra: Schema = {}): Schema {
  return { description, type: 'string', ...extra };
}

export function bool(description: string): Schema {
  return { description, type: 'boolean' };
}

export function int32(description: string): Schema {
  return { description, type: 'integer', format: 'int32' };
}

export function int64(description: string): Schema {
  return { description, type: 'integer', format: 'int64' };
}

/** map[string]string. */
export function stringMap(description: string, extra: Schema = {}): Schema {
  return { description, type: 'object', additionalProperties: { type: 'string', default: '' }, ...extra };
}

/** map[string]Quantity (resource lists in quotas and limit ranges). */
export function quantityMap(description: string): Schema {
  return { description, type: 'object', additionalProperties: { $ref: refTo(QUANTITY) } };
}

/** []string with an explicit list type (`atomic` unless the API says `set`). */
export function stringList(description: string, listType: 'atomic' | 'set' = 'atomic'): Schema {
  return { description, type: 'array', items: { type: 'string', default: '' }, 'x-kubernetes-list-type': listType };
}

/** []T for a named struct T. `extensions` carries list-type and patch-strategy markers where kube has them. */
export function listOf(name: string, description: string, extensions: Schema = {}): Schema {
  return {
    description,
    type: 'array',
    items: { allOf: [{ $ref: refTo(name) }], default: {} },
    ...extensions,
  };
}

/** Markers for a list merged by key: both the strategic-merge pair and the server-side-apply pair. */
export function mergeByKey(key: string): Schema {
  return {
    'x-kubernetes-list-map-keys': [key],
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-patch-merge-key': key,
    'x-kubernetes-patch-strategy': 'merge',
  };
}

export const ATOMIC_LIST: Schema = { 'x-kubernetes-list-type': 'atomic' };

/** apiVersion and kind, worded once for every top-level kind. */
export function typeMetaProperties(): Record<string, Schema> {
  return {
    apiVersion: str(
      'APIVersion is the versioned schema of this object, as "group/version" (or "v1" for the core group). ' +
        'Servers convert recognized versions and may reject unknown ones.',
    ),
    kind: str(
      'Kind is the REST resource type this object represents, in CamelCase. Servers may infer it from the ' +
        'endpoint the request went to. It cannot be updated.',
    ),
  };
}

export interface KindOptions {
  description: string;
  gvk: GVK | GVK[];
  /** Fields other than apiVersion, kind and metadata. */
  properties?: Record<string, Schema>;
  required?: string[];
  /** Top-level kinds carry ObjectMeta; a few (reviews, Status) do too or use ListMeta. */
  metadata?: 'object' | 'list' | 'none';
}

/** A top-level kind: TypeMeta + metadata + the given fields, tagged with its GVK list for explain and apply. */
export function kindSchema(opts: KindOptions): Schema {
  const props: Record<string, Schema> = { ...typeMetaProperties() };
  const meta = opts.metadata ?? 'object';
  if (meta === 'object') {
    props.metadata = field(
      OBJECT_META,
      "Standard object's metadata: name, namespace, labels, annotations and system-populated fields.",
      { withDefault: true },
    );
  } else if (meta === 'list') {
    props.metadata = field(LIST_META, 'Standard list metadata.', { withDefault: true });
  }
  Object.assign(props, opts.properties ?? {});
  const s: Schema = {
    description: opts.description,
    type: 'object',
    properties: sortKeys(props),
  };
  if (opts.required?.length) s.required = opts.required;
  s['x-kubernetes-group-version-kind'] = Array.isArray(opts.gvk) ? opts.gvk : [opts.gvk];
  return s;
}

/** The `<Kind>List` wrapper every listable kind has. */
export function listSchema(itemName: string, gvk: GVK, description?: string): Schema {
  const kind = gvk.kind.endsWith('List') ? gvk.kind.slice(0, -4) : gvk.kind;
  return kindSchema({
    description: description ?? `${gvk.kind} is a list of ${kind} objects.`,
    gvk,
    metadata: 'list',
    properties: { items: listOf(itemName, `Items is the list of ${kind} objects.`) },
    required: ['items'],
  });
}

/** A plain struct (no GVK). */
export function struct(description: string, properties: Record<string, Schema>, extra: Schema = {}): Schema {
  const s: Schema = { description, type: 'object', properties: sortKeys(properties) };
  Object.assign(s, extra);
  return s;
}

/** Adds `required` to a struct built with {@link struct}. */
export function withRequired(s: Schema, required: string[]): Schema {
  return { ...s, required };
}

/** Alphabetical property order, like upstream documents: stable output keeps document hashes stable too. */
export function sortKeys<T>(obj: Record<string, T>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const k of Object.keys(obj).sort()) out[k] = obj[k] as T;
  return out;
}

/** Adds `<name>List` entries for the given kinds, all in one group-version. */
export function addLists(
  target: Record<string, Schema>,
  prefix: string,
  group: string,
  version: string,
  kinds: string[],
): void {
  for (const kind of kinds) {
    target[`${prefix}.${kind}List`] = listSchema(`${prefix}.${kind}`, { group, version, kind: `${kind}List` });
  }
}
