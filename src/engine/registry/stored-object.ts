/**
 * How objects sit in storage and how they come back out. The stored bytes are the object's JSON without
 * `metadata.resourceVersion` (the store's revision is the resourceVersion), serialized with `metadata` right after
 * apiVersion/kind so that reads can splice the revision in without parsing the whole object.
 */
import { canonicalView } from '../machinery/canonical-json.js';
import type { KeyValue } from '../storage/store.js';
import type { KubeObject, ResourceType } from './types.js';

export const clusterAnnotation = 'kcp.io/cluster';

/** Storage key of one object. Names and namespaces are validated before they get here (no `/`). */
export function objectKey(rt: ResourceType, cluster: string, namespace: string, name: string): string {
  return rt.namespaced
    ? `/registry/${rt.storagePrefix}/${cluster}/${namespace}/${name}`
    : `/registry/${rt.storagePrefix}/${cluster}/${name}`;
}

/** The namespace ('' for a cluster-scoped type) and name an object's storage key ends in (see objectKey). */
export function keyNamespaceAndName(rt: ResourceType, key: string): { namespace: string; name: string } {
  const last = key.lastIndexOf('/');
  const name = key.slice(last + 1);
  return { namespace: rt.namespaced ? key.slice(key.lastIndexOf('/', last - 1) + 1, last) : '', name };
}

/**
 * Key prefix for a LIST: one namespace, one cluster, or (cluster `*`) every cluster. Always ends in `/` so that
 * cluster `c1` never matches `c10`.
 */
export function listPrefix(rt: ResourceType, cluster: string | undefined, namespace: string): string {
  const base = `/registry/${rt.storagePrefix}/`;
  if (cluster === undefined) return base;
  if (rt.namespaced && namespace) return `${base}${cluster}/${namespace}/`;
  return `${base}${cluster}/`;
}

/**
 * Serialize for storage: apiVersion, kind, metadata first, resourceVersion dropped, every other map's keys sorted.
 * Canonical bytes make "did this write change anything?" a string comparison, whatever order a client or a patch
 * left the keys in (kube gets the same from its typed structs).
 */
export function encodeStored(obj: KubeObject): string {
  const { apiVersion, kind, metadata, ...rest } = obj;
  let meta = canonicalView(metadata ?? {}) as Record<string, unknown>;
  if (meta.resourceVersion !== undefined) {
    const { resourceVersion: _rv, ...withoutVersion } = meta;
    meta = withoutVersion;
  }
  return JSON.stringify({ apiVersion, kind, metadata: meta, ...(canonicalView(rest) as object) });
}

export { jsonEqual } from '../machinery/canonical-json.js';

export const METADATA_MARKER = '"metadata":{';

/**
 * Where the body of a stored object's metadata starts (just after `"metadata":{`), -1 when it has none. The first
 * occurrence is the key: apiVersion and kind precede it, and a string holding the marker has its quotes escaped.
 */
export function metadataBodyAt(stored: string): number {
  const at = stored.indexOf(METADATA_MARKER);
  return at === -1 ? -1 : at + METADATA_MARKER.length;
}

const ANNOTATIONS_MARKER = '"annotations":{';

/**
 * The JSON text of a stored object's `metadata.annotations` (`{…}`), read without parsing: canonical JSON sorts it
 * first in metadata. Undefined when metadata does not start with it (no annotations, or text not in canonical
 * order): the caller parses then. Equal texts mean equal annotations.
 */
export function annotationsText(stored: string): string | undefined {
  const body = metadataBodyAt(stored);
  if (body === -1 || !stored.startsWith(ANNOTATIONS_MARKER, body)) return undefined;
  const open = body + ANNOTATIONS_MARKER.length - 1;
  let depth = 0;
  for (let i = open; i < stored.length; i++) {
    const c = stored.charCodeAt(i);
    if (c === 0x22) {
      // A string: skip to its closing quote, past escaped characters.
      for (i++; i < stored.length && stored.charCodeAt(i) !== 0x22; i++) if (stored.charCodeAt(i) === 0x5c) i++;
    } else if (c === 0x7b) depth++;
    else if (c === 0x7d && --depth === 0) return stored.slice(open, i + 1);
  }
  return undefined;
}

/** The stored JSON with `metadata.resourceVersion` set to `revision`, without parsing it. */
export function spliceResourceVersion(stored: string, revision: number): string {
  const insertAt = metadataBodyAt(stored);
  if (insertAt === -1) return stored;
  const empty = stored[insertAt] === '}';
  return `${stored.slice(0, insertAt)}"resourceVersion":"${revision}"${empty ? '' : ','}${stored.slice(insertAt)}`;
}

/**
 * spliceResourceVersion of a row as read, remembered by its key: a GET of an unchanged object then splices its ~1 KB
 * once rather than per request, and answers with a text fastify measures (and Node writes) without flattening it
 * first. The answer is a function of the stored text and the revision alone, so an entry serves any row (of any
 * store) whose text and revision are the ones it was made from, and nothing else. Kept first in, first out, up to
 * SPLICED_ROWS_MAX_CHARS characters held (each entry's answer and the stored text it keeps alive); a changed row
 * replaces its entry.
 */
const splicedRows = new Map<string, { value: string; revision: number; json: string }>();
const SPLICED_ROWS_MAX_CHARS = 4 * 1024 * 1024;
/** Rows bigger than this are spliced per request: one would push out hundreds of small ones. */
const SPLICED_ROW_MAX_CHARS = 64 * 1024;
let splicedChars = 0;

export function rowJson(kv: Pick<KeyValue, 'key' | 'value' | 'revision'>): string {
  const hit = splicedRows.get(kv.key);
  // The row cache hands out the same text on every hit: comparing it is comparing two references.
  if (hit !== undefined && hit.revision === kv.revision && hit.value === kv.value) return hit.json;
  const json = spliceResourceVersion(kv.value, kv.revision);
  if (hit !== undefined) {
    splicedRows.delete(kv.key);
    splicedChars -= heldChars(hit);
  }
  if (json.length > SPLICED_ROW_MAX_CHARS) return json;
  const entry = { value: kv.value, revision: kv.revision, json };
  while (splicedChars + heldChars(entry) > SPLICED_ROWS_MAX_CHARS) {
    const [oldest, old] = splicedRows.entries().next().value!;
    splicedRows.delete(oldest);
    splicedChars -= heldChars(old);
  }
  splicedRows.set(kv.key, entry);
  splicedChars += heldChars(entry);
  return json;
}

function heldChars(entry: { value: string; json: string }): number {
  return entry.value.length + entry.json.length;
}

/** How many answers rowJson holds and their characters (tests). */
export function splicedRowsHeld(): { rows: number; chars: number } {
  return { rows: splicedRows.size, chars: splicedChars };
}

/** Parse a stored value into an object with its resourceVersion. */
export function decodeStored(kv: Pick<KeyValue, 'value' | 'revision'>): KubeObject {
  const obj = JSON.parse(kv.value) as KubeObject;
  obj.metadata = { ...(obj.metadata ?? {}), resourceVersion: String(kv.revision) };
  return obj;
}

/** Logical cluster of a stored key (the segment after `/registry/<group>/<resource>/`). */
export function clusterOfKey(key: string): string {
  return key.split('/')[4] ?? '';
}
