/**
 * The `/openapi/v3` index and the public surface of the OpenAPI builders.
 *
 * Each index entry points at `/openapi/v3/<key>?hash=<HASH>`, where HASH is kube's ETag of the document: the
 * uppercase hex SHA-512 of its serialized bytes (kube-openapi handler3). kubectl caches documents by that URL
 * forever, so the hash must be taken over exactly the bytes served, and it changes whenever they do. The URL never
 * carries a `/clusters/<name>` prefix: client-go prepends its own base path to values that start with
 * `/openapi/v3`.
 */
import { createHash } from 'node:crypto';

import { buildOpenAPIDocuments, type DocumentOptions, type OpenAPIResource } from './document.js';
import { builtinSchemas } from '../../builtin/index.js';
import type { Schema } from '../../machinery/openapi-schemas/index.js';

export { buildGroupVersionDocument, buildOpenAPIDocuments } from './document.js';
export type { DocumentOptions, OpenAPIDocument, OpenAPIResource } from './document.js';
export { defaultSchemaName, groupVersionKey } from './names.js';
export type { GroupVersion } from './names.js';
export { builtinSchemas } from '../../builtin/index.js';
export { findSchemaNameByGVK, schemaClosure } from '../../machinery/openapi-schemas/index.js';
export type { GVK, Schema } from '../../machinery/openapi-schemas/index.js';

export interface OpenAPIIndex {
  paths: Record<string, { serverRelativeURL: string }>;
}

/** Uppercase hex SHA-512 of the document text, as kube computes the document ETag. */
export function documentHash(text: string): string {
  return createHash('sha512').update(text, 'utf8').digest('hex').toUpperCase();
}

/**
 * The `GET /openapi/v3` body for a set of serialized documents keyed `api/v1` / `apis/<g>/<v>`. Compute it once
 * per catalog change, together with the documents, and serve both from memory.
 */
export function buildOpenAPIIndex(docs: ReadonlyMap<string, string>): OpenAPIIndex {
  const hashes = new Map<string, string>();
  for (const [key, text] of docs) hashes.set(key, documentHash(text));
  return indexFromHashes(hashes);
}

function indexFromHashes(hashes: ReadonlyMap<string, string>): OpenAPIIndex {
  const paths: OpenAPIIndex['paths'] = {};
  for (const key of [...hashes.keys()].sort()) {
    paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${hashes.get(key) as string}` };
  }
  return { paths };
}

/** Everything `/openapi/v3*` serves for one catalog: the index body and each document with its hash. */
export interface OpenAPISet {
  /** Serialized `GET /openapi/v3` body. */
  indexJSON: string;
  /** Keyed `api/v1` / `apis/<g>/<v>`: the exact bytes to serve and their hash (compare with `?hash=`). */
  documents: Map<string, { json: string; hash: string }>;
}

/** Builds documents and index in one go; callers cache the result until the served resources change. */
export function buildOpenAPISet(
  resources: readonly OpenAPIResource[],
  schemas: Record<string, Schema> = builtinSchemas,
  options: DocumentOptions = {},
): OpenAPISet {
  const documents = new Map<string, { json: string; hash: string }>();
  const hashes = new Map<string, string>();
  for (const [key, json] of buildOpenAPIDocuments(resources, schemas, options)) {
    const hash = documentHash(json);
    documents.set(key, { json, hash });
    hashes.set(key, hash);
  }
  return { indexJSON: JSON.stringify(indexFromHashes(hashes)), documents };
}
