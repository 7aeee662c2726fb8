/**
 * Discovery documents, legacy and aggregated (v2 and v2beta1), built from a cluster's catalog. kubectl picks the
 * format purely from the response Content-Type, so negotiation must be exact.
 */
import type { ClusterCatalog } from '../registry/catalog.js';
import { apiVersionOf, type ResourceType } from '../registry/types.js';

export type DiscoveryFormat = 'v2' | 'v2beta1' | 'legacy';

export const aggregatedContentType = (v: 'v2' | 'v2beta1') =>
  `application/json;g=apidiscovery.k8s.io;v=${v};as=APIGroupDiscoveryList`;

/** Reads the Accept header the way client-go writes it; the first acceptable clause wins. */
export function negotiateDiscovery(accept: string | undefined): DiscoveryFormat {
  if (!accept) return 'legacy';
  for (const clause of accept.split(',')) {
    const [type, ...paramParts] = clause.split(';').map((s) => s.trim());
    const params = new Map(paramParts.map((p) => p.split('=').map((s) => s.trim()) as [string, string]));
    if (type !== 'application/json' && type !== '*/*' && type !== 'application/*') continue;
    if (params.get('g') === 'apidiscovery.k8s.io' && params.get('as') === 'APIGroupDiscoveryList') {
      const v = params.get('v');
      if (v === 'v2' || v === 'v2beta1') return v;
      continue;
    }
    if (!params.has('g') && !params.has('as')) return 'legacy';
  }
  return 'legacy';
}

const tokenRequestKind = { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' };

function resourceEntry(rt: ResourceType) {
  const entry: Record<string, unknown> = {
    resource: rt.resource,
    responseKind: { group: rt.group, version: rt.version, kind: rt.kind },
    scope: rt.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: rt.singular,
    verbs: [...rt.verbs].sort(),
  };
  if (rt.shortNames?.length) entry.shortNames = rt.shortNames;
  if (rt.categories?.length) entry.categories = rt.categories;
  const subresources: unknown[] = [];
  if (rt.subresources?.status) {
    subresources.push({
      subresource: 'status',
      responseKind: { group: rt.group, version: rt.version, kind: rt.kind },
      verbs: ['get', 'patch', 'update'],
    });
  }
  if (rt.subresources?.finalize) {
    subresources.push({ subresource: 'finalize', responseKind: { group: rt.group, version: rt.version, kind: rt.kind }, verbs: ['update'] });
  }
  if (rt.subresources?.scale) {
    subresources.push({
      subresource: 'scale',
      responseKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' },
      verbs: ['get', 'patch', 'update'],
    });
  }
  if (rt.subresources?.token) {
    subresources.push({ subresource: 'token', responseKind: tokenRequestKind, verbs: ['create'] });
  }
  if (subresources.length) entry.subresources = subresources;
  return entry;
}

/** Aggregated discovery for `/api` (core only) or `/apis` (everything else). */
export function aggregatedDiscovery(catalog: ClusterCatalog, legacyCore: boolean, v: 'v2' | 'v2beta1') {
  const items = catalog
    .groups()
    .filter((g) => (legacyCore ? g.group === '' : g.group !== ''))
    .map((g) => ({
      metadata: { name: g.group, creationTimestamp: null },
      versions: g.versions.map((version) => ({
        version,
        resources: catalog
          .resourceTypes()
          .filter((rt) => rt.group === g.group && rt.version === version)
          .map(resourceEntry),
        freshness: 'Current',
      })),
    }));
  return { kind: 'APIGroupDiscoveryList', apiVersion: `apidiscovery.k8s.io/${v}`, metadata: {}, items };
}

export function legacyAPIVersions(serverAddress: string) {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

function apiGroup(group: string, versions: string[]) {
  const gv = versions.map((version) => ({ groupVersion: `${group}/${version}`, version }));
  return { name: group, versions: gv, preferredVersion: gv[0] };
}

export function legacyAPIGroupList(catalog: ClusterCatalog) {
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: catalog
      .groups()
      .filter((g) => g.group !== '')
      .map((g) => apiGroup(g.group, g.versions)),
  };
}

export function legacyAPIGroup(catalog: ClusterCatalog, group: string) {
  const g = catalog.groups().find((x) => x.group === group);
  if (!g || group === '') return undefined;
  return { kind: 'APIGroup', apiVersion: 'v1', ...apiGroup(g.group, g.versions) };
}

export function legacyResourceList(catalog: ClusterCatalog, group: string, version: string) {
  const types = catalog.resourceTypes().filter((rt) => rt.group === group && rt.version === version);
  if (types.length === 0) return undefined;
  const resources: unknown[] = [];
  for (const rt of types) {
    const base = {
      name: rt.resource,
      singularName: rt.singular,
      namespaced: rt.namespaced,
      kind: rt.kind,
      verbs: [...rt.verbs].sort(),
    } as Record<string, unknown>;
    if (rt.shortNames?.length) base.shortNames = rt.shortNames;
    if (rt.categories?.length) base.categories = rt.categories;
    if (rt.storageVersionHash) base.storageVersionHash = rt.storageVersionHash;
    resources.push(base);
    if (rt.subresources?.status) {
      resources.push({ name: `${rt.resource}/status`, singularName: '', namespaced: rt.namespaced, kind: rt.kind, verbs: ['get', 'patch', 'update'] });
    }
    if (rt.subresources?.finalize) {
      resources.push({ name: `${rt.resource}/finalize`, singularName: '', namespaced: rt.namespaced, kind: rt.kind, verbs: ['update'] });
    }
    if (rt.subresources?.scale) {
      resources.push({ name: `${rt.resource}/scale`, singularName: '', namespaced: rt.namespaced, group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] });
    }
    if (rt.subresources?.token) {
      resources.push({ name: `${rt.resource}/token`, singularName: '', namespaced: rt.namespaced, ...tokenRequestKind, verbs: ['create'] });
    }
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: apiVersionOf({ group, version }), resources };
}
