/**
 * A JSON list answer's bytes. Items are stored JSON (stored-object.ts) that need their resourceVersion spliced in and,
 * in a typed list, their apiVersion and kind left out (kube's typed lists write items without them). Both are done
 * while writing: each item's text goes into the answer's Buffer once, in two or three pieces around the
 * resourceVersion, instead of being spliced, stripped, joined and encoded as four successive copies of the list.
 */
import { METADATA_MARKER, metadataBodyAt, spliceResourceVersion } from '../registry/stored-object.js';

/** An item as the store holds it: JSON without `metadata.resourceVersion`, and its revision. */
export interface StoredItem {
  value: string;
  revision: number;
}

// A stored object starts `{"apiVersion":"…","kind":"…","metadata":{` (stored-object.ts): strings without quotes or
// escapes in them, so this match is exact.
const TYPE_META_HEAD = /^\{(?:"apiVersion":"[^"\\]*",)?(?:"kind":"[^"\\]*",)?(?="metadata":)/;

/** An item of a typed list: the object's JSON without apiVersion and kind, as kube's typed lists write items. */
export function withoutTypeMeta(text: string): string {
  const head = TYPE_META_HEAD.exec(text);
  if (head) return head[0].length === 1 ? text : `{${text.slice(head[0].length)}`;
  const obj = JSON.parse(text) as Record<string, unknown>;
  delete obj.apiVersion;
  delete obj.kind;
  return JSON.stringify(obj);
}

/**
 * Room kept per item beyond its stored text: the comma before it and `{"metadata":{"resourceVersion":"<rev>",` (at
 * most 51 bytes for a revision of 16 digits) are always within it.
 */
const ITEM_OVERHEAD = 64;

/**
 * `<head>,"items":[<items>]}` as one Buffer, where `head` is the list's JSON without its closing brace and each
 * item is written as spliceResourceVersion (and, when `typed`, withoutTypeMeta) would return it.
 */
export function jsonListBody(head: string, items: readonly StoredItem[], typed: boolean): Buffer {
  let size = Buffer.byteLength(head) + 16;
  for (let i = 0; i < items.length; i++) size += Buffer.byteLength(items[i]!.value) + ITEM_OVERHEAD;
  let body = Buffer.allocUnsafe(size);
  let at = body.write(head, 0);
  // ASCII pieces are written as UTF-8 too: the same bytes, and Buffer#write's fast path (any other encoding name
  // is looked up on every call).
  at += body.write(',"items":[', at);
  for (let i = 0; i < items.length; i++) {
    const { value, revision } = items[i]!;
    if (i > 0) body[at++] = 0x2c; // ,
    const bodyAt = metadataBodyAt(value);
    if (bodyAt !== -1 && (!typed || isTypeMetaHead(value, bodyAt))) {
      const version = `"resourceVersion":"${revision}"${value.charCodeAt(bodyAt) === 0x7d ? '' : ','}`;
      // A typed list's item starts at its metadata; anything else keeps what precedes it (apiVersion and kind).
      at += body.write(typed ? `{"metadata":{${version}` : `${value.slice(0, bodyAt)}${version}`, at);
      at += body.write(value.slice(bodyAt), at);
      continue;
    }
    // No metadata or an unexpected head: the text forms, which may come out longer than the room kept for this
    // item (every item is given its stored length and ITEM_OVERHEAD, comma included); the body grows by the excess,
    // so the room kept for the items after it stays theirs.
    const text = spliceResourceVersion(value, revision);
    const item = typed ? withoutTypeMeta(text) : text;
    const excess = Buffer.byteLength(item) - (Buffer.byteLength(value) + ITEM_OVERHEAD - 1);
    if (excess > 0) body = Buffer.concat([body.subarray(0, at)], body.length + excess);
    at += body.write(item, at);
  }
  at += body.write(']}', at);
  return body.subarray(0, at);
}

/** Whether `value` up to its metadata's body is `{` [apiVersion,] [kind,] `"metadata":{`. */
function isTypeMetaHead(value: string, bodyAt: number): boolean {
  const head = TYPE_META_HEAD.exec(value);
  return head !== null && head[0].length + METADATA_MARKER.length === bodyAt;
}
