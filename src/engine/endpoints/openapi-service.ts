/**
 * Serves `/openapi/v3` and its per-group-version documents for a cluster's catalog. Documents are built once per
 * catalog revision; the index hash is the document's content hash, so kubectl's HTTP cache refreshes exactly
 * when a document changes.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ClusterCatalog } from '../registry/catalog.js';
import { apiVersionOf, type ResourceType } from '../registry/types.js';
import { buildGroupVersionDocument } from './openapi/document.js';
import { buildOpenAPIIndex } from './openapi/index.js';
import { builtinSchemas, type Schema } from './openapi/schemas/index.js';
import { resourceNotFound } from './resource-handler.js';
import { sendJson } from './responses.js';

/** The built-in schemas plus the ones custom resource types bring. */
function schemasFor(resources: readonly ResourceType[]): Record<string, Schema> {
  if (!resources.some((rt) => rt.schemas)) return builtinSchemas;
  const merged: Record<string, Schema> = { ...builtinSchemas };
  for (const rt of resources) Object.assign(merged, rt.schemas ?? {});
  return merged;
}

interface CachedDocs {
  /** 'api/v1' | 'apis/<g>/<v>' → serialized document */
  docs: Map<string, string>;
  index: string;
}

export class OpenAPIService {
  private readonly cache = new Map<string, CachedDocs>();

  private docsFor(catalog: ClusterCatalog): CachedDocs {
    let cached = this.cache.get(catalog.revision);
    if (cached) return cached;
    const docs = new Map<string, string>();
    for (const g of catalog.groups()) {
      for (const version of g.versions) {
        const resources = catalog.resourceTypes().filter((rt) => rt.group === g.group && rt.version === version);
        const key = g.group === '' ? `api/${version}` : `apis/${apiVersionOf({ group: g.group, version })}`;
        docs.set(key, JSON.stringify(buildGroupVersionDocument({ group: g.group, version }, resources, schemasFor(resources))));
      }
    }
    cached = { docs, index: JSON.stringify(buildOpenAPIIndex(docs)) };
    // Catalog revisions are few (built-ins plus per-cluster CRD sets); keep the cache bounded anyway.
    if (this.cache.size > 256) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(catalog.revision, cached);
    return cached;
  }

  serve(catalog: ClusterCatalog, path: string, query: URLSearchParams, _request: FastifyRequest, reply: FastifyReply) {
    const cached = this.docsFor(catalog);
    if (path === '/openapi/v3' || path === '/openapi/v3/') return sendJson(reply, 200, cached.index);
    const key = path.slice('/openapi/v3/'.length);
    const doc = cached.docs.get(key);
    if (!doc) throw resourceNotFound();
    // Hashed URLs never change content; kube marks them immutable so clients cache them for good.
    if (query.get('hash')) reply.header('cache-control', 'public, immutable');
    else reply.header('cache-control', 'no-cache, private');
    return sendJson(reply, 200, doc);
  }
}
