/**
 * The isolation matrix (issue 10): one server, a secret fixture, four principals, every endpoint family, generated
 * as data so the count of checks is a figure. test/e2e/isolation.test.ts walks one vault with hand-written probes
 * (writes, reviews, impersonation, malformed paths); this file is the systematic cross product of who × where ×
 * which endpoint, with the provider's export access that the e2e suite does not have.
 *
 * Fixture: root:tenant-a holds a ConfigMap, a Secret, a CR of its own CRD and an object of a provider's API it
 * binds; it also binds a second export of the provider that claims configmaps, accepting the claim for objects
 * labelled share=yes, which only its ConfigMap cm-shared-lapis-a5 is; root:tenant-b holds its own ConfigMap and
 * Secret; every name and value is a marker string. Principals:
 *   none     — a token user with no access anywhere (user-1);
 *   adminA   — a token user who is cluster-admin in tenant-a only (user-2);
 *   saB      — a ServiceAccount of tenant-b, cluster-admin there, with its own token (a foreign identity elsewhere);
 *   provider — the provider's controller: a ServiceAccount of root:provider with `apiexports/content` on its export.
 * Each row is (principal, family, path, expected status, markers the principal may see). A check passes when the
 * status is the expected one and the body names no marker outside the row's allowance (a marker the request itself
 * named does not count). The provider's writes through the narrowed claim (every verb, the attack shapes of
 * permission claims) are rows too, checked the same way, and tenant-a's objects are checked unchanged after them. Rows marked with a twin also require that a workspace the principal may not enter answers
 * exactly as a missing one does, so probing tells nothing about existence (kcp's front-proxy answers both with
 * 403 "workspace access not permitted"-style refusals).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { apiRequest, type HttpAnswer } from '../helpers/http.js';
import { apiBinding, apiExport, resourceSchema } from '../e2e/apis-fixtures.js';
import { crdObject } from '../e2e/crds-fixtures.js';
import { eventually, users, useTenancyServer, type Json } from '../e2e/tenancy-fixtures.js';

const e2e = useTenancyServer({ extraArgs: ['--min-request-timeout', '2'] });

const AGGREGATED = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json';
const PRIVATE_GROUP = 'zircon-private.matrix.example';
const EXPORT_GROUP = 'matrix.provider.example';
const EXPORT = 'gizmos';
/** The provider's second export: no resource of its own worth naming, a configmaps claim tenant-a narrows by label. */
const CLAIMS_EXPORT = 'sharing';
const CLAIMS_GROUP = 'sharing.provider.example';
const CLAIM_VERBS = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];

/** Marker strings, per tenant; tenant-a's bound gizmo is the one thing of a tenant the provider may see. */
const markers = {
  a: ['cm-amethyst-a7', 'value-amethyst-9f1', 'secret-garnet-a3', 'pw-garnet-5e2', Buffer.from('pw-garnet-5e2').toString('base64'), PRIVATE_GROUP, 'Zirconite', 'zirconites', 'cr-zircon-a1', 'payload-zircon-77'],
  aBound: ['gizmo-beryl-a4', 'payload-beryl-31'],
  /** tenant-a's one ConfigMap within the accepted claim (share=yes): the provider may see it through the claim. */
  aShared: ['cm-shared-lapis-a5', 'value-lapis-6d'],
  b: ['cm-topaz-b2', 'value-topaz-4c8', 'secret-onyx-b6', 'pw-onyx-0d9', Buffer.from('pw-onyx-0d9').toString('base64')],
  /** Written while the live watches run. */
  aLate: ['cm-opal-late-a8', 'value-opal-late-3b', 'cr-zircon-late-a2'],
  aBoundLate: ['gizmo-beryl-late-a9'],
  bLate: ['cm-coral-late-b9', 'value-coral-late-5d'],
  /** In root:tenant-a:inner, which none of the four may enter. */
  inner: ['cm-jade-i5', 'value-jade-62e'],
};

type Principal = 'none' | 'adminA' | 'saB' | 'provider';
const principals: Principal[] = ['none', 'adminA', 'saB', 'provider'];

/** What the fixture learns: cluster names (markers too) and the service accounts' tokens. */
const fx = { a: '', b: '', inner: '', provider: '', saBToken: '', providerToken: '', earlyRevision: '' };

function tokenOf(p: Principal): string {
  if (p === 'none') return users.user1.token;
  if (p === 'adminA') return users.user2.token;
  if (p === 'saB') return fx.saBToken;
  return fx.providerToken;
}

/** Every marker, cluster names included. */
const allMarkers = () => [...Object.values(markers).flat(), fx.a, fx.b, fx.inner];

interface Row {
  principal: Principal;
  family: string;
  path: string;
  /** GET unless said; a body is sent with `contentType` (JSON by default). */
  method?: string;
  body?: string;
  contentType?: string;
  headers?: Record<string, string>;
  expected: number;
  /** Markers this principal may see in this answer. */
  allowed: string[];
  /** A path to a workspace that does not exist: the answer must be the same, bar the name. */
  twin?: { path: string; real: string; fake: string };
  /** Markers the answer must carry (a live watch that saw nothing would prove nothing). */
  mustSee?: string[];
  /** The Status message the answer must carry (which step refused). */
  message?: string;
}

const watchQ = '?watch=1&timeoutSeconds=1';
const watchRv0Q = '?watch=1&resourceVersion=0&allowWatchBookmarks=true&timeoutSeconds=1';
/** kube 1.32's watch-list (client-go's WatchListClient): the initial state as events, then a bookmark. */
/** A watch replaying history from the first revision, and a list at an old revision: what the store kept. */
const watchHistoryQ = '?watch=1&resourceVersion=1&timeoutSeconds=1';
const listExactQ = () => `?resourceVersion=${fx.earlyRevision}&resourceVersionMatch=Exact`;
const watchListQ = '?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=1';
/** kubectl's table rendering and the metadata-only rendering informers of controllers use. */
const TABLE = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' };
const PARTIAL = { accept: 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io,application/json' };
const PARTIAL_ONE = { accept: 'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io,application/json' };

/** Requests into one workspace, relative to `/clusters/<x>`; `ok` is the status for someone who may read there. */
function workspaceRequests(tenant: 'a' | 'b'): { family: string; rel: string; ok: number; headers?: Record<string, string>; shows?: string[] }[] {
  const ns = tenant === 'a' ? 'ns-a' : 'ns-b';
  const cm = tenant === 'a' ? 'cm-amethyst-a7' : 'cm-topaz-b2';
  const secret = tenant === 'a' ? 'secret-garnet-a3' : 'secret-onyx-b6';
  const value = tenant === 'a' ? 'value-amethyst-9f1' : 'value-topaz-4c8';
  const password = Buffer.from(tenant === 'a' ? 'pw-garnet-5e2' : 'pw-onyx-0d9').toString('base64');
  const rows: { family: string; rel: string; ok: number; headers?: Record<string, string>; shows?: string[] }[] = [
    { family: 'discovery', rel: '/api', ok: 200 },
    { family: 'discovery', rel: '/apis', ok: 200 },
    { family: 'discovery', rel: '/apis', ok: 200, headers: { accept: AGGREGATED } },
    { family: 'discovery', rel: '/api/v1', ok: 200 },
    { family: 'openapi', rel: '/openapi/v2', ok: 200 },
    { family: 'openapi', rel: '/openapi/v3', ok: 200 },
    { family: 'openapi', rel: '/openapi/v3/api/v1', ok: 200 },
    { family: 'read', rel: '/api/v1/configmaps', ok: 200 },
    { family: 'read', rel: '/api/v1/configmaps', ok: 200, headers: TABLE },
    { family: 'read', rel: '/api/v1/secrets', ok: 200, headers: PARTIAL },
    { family: 'read', rel: `/api/v1/namespaces/${ns}/secrets/${secret}`, ok: 200, headers: PARTIAL_ONE },
    { family: 'read', rel: `/api/v1/configmaps?limit=1`, ok: 200 },
    { family: 'read', rel: `/api/v1/secrets?limit=1`, ok: 200 },
    { family: 'read', rel: `/api/v1/configmaps?fieldSelector=metadata.name%3D${cm}`, ok: 200 },
    { family: 'read', rel: `/api/v1/namespaces/${ns}/configmaps/${cm}`, ok: 200, shows: [value] },
    { family: 'read', rel: '/api/v1/secrets', ok: 200 },
    { family: 'read', rel: `/api/v1/namespaces/${ns}/secrets/${secret}`, ok: 200, shows: [password] },
    { family: 'read', rel: '/api/v1/namespaces', ok: 200 },
    { family: 'read', rel: '/apis/core.kcp.io/v1alpha1/logicalclusters/cluster', ok: 200 },
    { family: 'watch', rel: `/api/v1/configmaps${watchQ}`, ok: 200 },
    { family: 'watch', rel: `/api/v1/configmaps${watchRv0Q}`, ok: 200, shows: [cm, value] },
    { family: 'watch', rel: `/api/v1/namespaces/${ns}/secrets${watchRv0Q}`, ok: 200 },
    { family: 'watch', rel: `/api/v1/secrets${watchListQ}`, ok: 200, shows: [secret, password] },
    { family: 'watch', rel: `/api/v1/secrets${watchHistoryQ}`, ok: 200 },
    { family: 'read', rel: `/api/v1/secrets${listExactQ()}`, ok: 200 },
    { family: 'watch', rel: `/api/v1/configmaps${watchRv0Q}`, ok: 200, headers: TABLE },
    { family: 'error', rel: `/api/v1/namespaces/${ns}/configmaps/no-such-cm`, ok: 404 },
    { family: 'error', rel: '/api/v1/namespaces/no-such-ns/secrets/x', ok: 404 },
    { family: 'error', rel: '/apis/no.such.group/v1/things', ok: 404 },
  ];
  if (tenant === 'b') {
    // tenant-a's CRD and bound API, asked for in tenant-b: caches keyed by group/version must not answer with them.
    rows.push(
      { family: 'discovery', rel: `/apis/${PRIVATE_GROUP}/v1`, ok: 404 },
      { family: 'discovery', rel: `/apis/${PRIVATE_GROUP}`, ok: 404 },
      { family: 'discovery', rel: `/apis/${EXPORT_GROUP}/v1`, ok: 404 },
      { family: 'openapi', rel: `/openapi/v3/apis/${PRIVATE_GROUP}/v1`, ok: 404 },
      { family: 'openapi', rel: `/openapi/v3/apis/${EXPORT_GROUP}/v1`, ok: 404 },
      { family: 'read', rel: `/apis/${PRIVATE_GROUP}/v1/zirconites`, ok: 404 },
      { family: 'watch', rel: `/apis/${EXPORT_GROUP}/v1/${EXPORT}${watchRv0Q}`, ok: 404 },
    );
  }
  if (tenant === 'a') {
    rows.push(
      { family: 'discovery', rel: `/apis/${PRIVATE_GROUP}/v1`, ok: 200 },
      { family: 'discovery', rel: `/apis/${EXPORT_GROUP}/v1`, ok: 200 },
      { family: 'openapi', rel: `/openapi/v3/apis/${PRIVATE_GROUP}/v1`, ok: 200 },
      { family: 'read', rel: `/apis/${PRIVATE_GROUP}/v1/zirconites`, ok: 200 },
      { family: 'read', rel: `/apis/${EXPORT_GROUP}/v1/namespaces/ns-a/${EXPORT}/gizmo-beryl-a4`, ok: 200 },
      { family: 'watch', rel: `/apis/${PRIVATE_GROUP}/v1/zirconites${watchRv0Q}`, ok: 200 },
      { family: 'watch', rel: `/apis/${EXPORT_GROUP}/v1/${EXPORT}${watchRv0Q}`, ok: 200 },
    );
  }
  return rows;
}

/** Who may read in a tenant workspace, and which markers they then see. */
function tenantAccess(p: Principal, tenant: 'a' | 'b'): string[] | undefined {
  if (p === 'adminA' && tenant === 'a') return [...markers.a, ...markers.aBound, ...markers.aShared, fx.a];
  if (p === 'saB' && tenant === 'b') return [...markers.b, fx.b];
  return undefined;
}

function rowsFor(p: Principal): Row[] {
  const rows: Row[] = [];
  for (const tenant of ['a', 'b'] as const) {
    const access = tenantAccess(p, tenant);
    const cluster = tenant === 'a' ? fx.a : fx.b;
    // Root's workspaces are readable by every authenticated user (kcp's system:kcp:tenancy:reader), so a missing
    // `root:<x>` is a 404 and an existing one a 403, as on kcp's shard: no twin there. A cluster name is routed
    // without an existence check, so it must answer as a made-up one.
    const targets = [
      { family: 'direct', x: `root:tenant-${tenant}`, fake: undefined },
      { family: 'by cluster name', x: cluster, fake: 'zzzzzzzzzzzzzzzz' },
    ];
    for (const t of targets) {
      for (const r of workspaceRequests(tenant)) {
        rows.push({
          principal: p,
          family: `${t.family}/${r.family}`,
          path: `/clusters/${t.x}${r.rel}`,
          headers: r.headers,
          expected: access ? r.ok : 403,
          allowed: access ?? [],
          twin: access || !t.fake ? undefined : { path: `/clusters/${t.fake}${r.rel}`, real: t.x, fake: t.fake },
          mustSee: access ? r.shows : undefined,
        });
      }
    }
  }
  rows.push(...innerRows(p));
  // The `*` wildcard: list and watch are for system:masters only.
  for (const rel of ['/api/v1/configmaps', '/api/v1/secrets', `/apis/${PRIVATE_GROUP}/v1/zirconites`, `/apis/${EXPORT_GROUP}/v1/${EXPORT}`, '/apis/core.kcp.io/v1alpha1/logicalclusters']) {
    rows.push({ principal: p, family: 'wildcard/list', path: `/clusters/*${rel}`, expected: 403, allowed: [] });
    rows.push({ principal: p, family: 'wildcard/watch', path: `/clusters/*${rel}${watchRv0Q}`, expected: 403, allowed: [] });
  }
  rows.push({ principal: p, family: 'wildcard/discovery', path: '/clusters/*/apis', headers: { accept: AGGREGATED }, expected: 403, allowed: [] });
  rows.push({ principal: p, family: 'wildcard/openapi', path: '/clusters/*/openapi/v3', expected: 403, allowed: [] });
  rows.push(...apiExportRows(p), ...claimReadRows(p), ...lifecycleRows(p), ...indexAndHomeRows(p), ...bareRows(p), ...impersonationRows(p));
  return rows;
}

/**
 * root:tenant-a:inner, which none of the four may enter. Whoever cannot list tenant-a's workspaces (all but adminA)
 * must get, by path and by cluster name, exactly the answer a missing workspace gets (kcp's front-proxy:
 * "workspace access not permitted"); adminA may list them, so a 404 for a missing sibling tells them nothing new.
 */
function innerRows(p: Principal): Row[] {
  const rels = [
    '/api',
    '/apis',
    '/openapi/v3',
    '/openapi/v2',
    '/api/v1/configmaps',
    '/api/v1/namespaces/default/configmaps/cm-jade-i5',
    '/api/v1/namespaces/default/configmaps/no-such-cm',
    `/api/v1/configmaps${watchRv0Q}`,
    '/apis/tenancy.kcp.io/v1alpha1/workspaces',
  ];
  const conceal = p !== 'adminA';
  return rels.flatMap((rel) => [
    {
      principal: p,
      family: 'direct/nested',
      path: `/clusters/root:tenant-a:inner${rel}`,
      expected: 403,
      allowed: [],
      twin: conceal ? { path: `/clusters/root:tenant-a:inner-gone${rel}`, real: 'root:tenant-a:inner', fake: 'root:tenant-a:inner-gone' } : undefined,
    },
    {
      principal: p,
      family: 'by cluster name/nested',
      path: `/clusters/${fx.inner}${rel}`,
      expected: 403,
      allowed: [],
      twin: { path: `/clusters/yyyyyyyyyyyyyyyy${rel}`, real: fx.inner, fake: 'yyyyyyyyyyyyyyyy' },
    },
  ]);
}

/** The provider's APIExport virtual workspace: only the provider, and only the bound resource of binders. */
function apiExportRows(p: Principal): Row[] {
  const base = `/services/apiexport/${fx.provider}/${EXPORT}/clusters`;
  const isProvider = p === 'provider';
  const bound = isProvider ? [...markers.aBound, fx.a] : [];
  const rows: Row[] = [
    { principal: p, family: 'apiexport/list', path: `${base}/*/apis/${EXPORT_GROUP}/v1/${EXPORT}`, expected: isProvider ? 200 : 403, allowed: bound, mustSee: isProvider ? markers.aBound : undefined },
    { principal: p, family: 'apiexport/watch', path: `${base}/*/apis/${EXPORT_GROUP}/v1/${EXPORT}${watchRv0Q}`, expected: isProvider ? 200 : 403, allowed: bound },
    { principal: p, family: 'apiexport/get', path: `${base}/${fx.a}/apis/${EXPORT_GROUP}/v1/namespaces/ns-a/${EXPORT}/gizmo-beryl-a4`, expected: isProvider ? 200 : 403, allowed: bound },
    { principal: p, family: 'apiexport/discovery', path: `${base}/*/apis`, headers: { accept: AGGREGATED }, expected: isProvider ? 200 : 403, allowed: [] },
    { principal: p, family: 'apiexport/discovery', path: `${base}/*/apis/${EXPORT_GROUP}/v1`, expected: isProvider ? 200 : 403, allowed: [] },
    // No core resource is claimed: the export's view has no /api/v1 at all.
    { principal: p, family: 'apiexport/discovery', path: `${base}/*/api/v1`, expected: isProvider ? 404 : 403, allowed: [] },
    { principal: p, family: 'apiexport/openapi', path: `${base}/*/openapi/v3`, expected: isProvider ? 200 : 403, allowed: [] },
    // Unclaimed resources of a binder, and a tenant that did not bind: nothing, even for the provider.
    { principal: p, family: 'apiexport/unclaimed', path: `${base}/${fx.a}/api/v1/configmaps`, expected: isProvider ? 404 : 403, allowed: [] },
    { principal: p, family: 'apiexport/unclaimed', path: `${base}/${fx.a}/api/v1/namespaces/ns-a/secrets/secret-garnet-a3`, expected: isProvider ? 404 : 403, allowed: [] },
    { principal: p, family: 'apiexport/unclaimed', path: `${base}/${fx.a}/apis/${PRIVATE_GROUP}/v1/zirconites`, expected: isProvider ? 404 : 403, allowed: [] },
    { principal: p, family: 'apiexport/unclaimed', path: `${base}/*/api/v1/secrets${watchRv0Q}`, expected: isProvider ? 404 : 403, allowed: [] },
    { principal: p, family: 'apiexport/unbound', path: `${base}/${fx.b}/apis/${EXPORT_GROUP}/v1/${EXPORT}`, expected: 403, allowed: [] },
    { principal: p, family: 'apiexport/list', path: `${base}/*/apis/${EXPORT_GROUP}/v1/${EXPORT}`, headers: TABLE, expected: isProvider ? 200 : 403, allowed: bound },
    { principal: p, family: 'apiexport/list', path: `${base}/*/apis/${EXPORT_GROUP}/v1/${EXPORT}`, headers: PARTIAL, expected: isProvider ? 200 : 403, allowed: bound },
    { principal: p, family: 'apiexport/watch', path: `${base}/*/apis/${EXPORT_GROUP}/v1/${EXPORT}${watchListQ}`, expected: isProvider ? 200 : 403, allowed: bound },
    { principal: p, family: 'apiexport/watch', path: `${base}/*/apis/${EXPORT_GROUP}/v1/${EXPORT}${watchHistoryQ}`, expected: isProvider ? 200 : 403, allowed: bound },
    { principal: p, family: 'apiexport/list', path: `${base}/*/apis/${EXPORT_GROUP}/v1/${EXPORT}${listExactQ()}`, expected: isProvider ? 200 : 403, allowed: bound },
    { principal: p, family: 'apiexport/list', path: `${base}/*/apis/${EXPORT_GROUP}/v1/${EXPORT}?limit=1`, expected: isProvider ? 200 : 403, allowed: bound },
    { principal: p, family: 'apiexport/bindings', path: `${base}/*/apis/apis.kcp.io/v1alpha2/apibindings`, expected: isProvider ? 200 : 403, allowed: isProvider ? [fx.a] : [] },
    // An export the provider has no content access to, and an export path in a tenant: refused alike.
    { principal: p, family: 'apiexport/other', path: `/services/apiexport/${fx.provider}/no-such-export/clusters/*/apis/${EXPORT_GROUP}/v1/${EXPORT}`, expected: 403, allowed: [] },
    // tenant-a's admin holds apiexports/content there (cluster-admin), so learns only that tenant-a has no such export.
    { principal: p, family: 'apiexport/other', path: `/services/apiexport/${fx.a}/${EXPORT}/clusters/*/apis/${EXPORT_GROUP}/v1/${EXPORT}`, expected: p === 'adminA' ? 404 : 403, allowed: [] },
    { principal: p, family: 'apiexport/other', path: `/services/apiexport/root:tenant-a/${EXPORT}/clusters/*/api/v1/secrets`, expected: p === 'adminA' ? 404 : 403, allowed: [] },
  ];
  return rows;
}

/**
 * Reads through the export whose configmaps claim tenant-a narrowed to share=yes: the provider sees cm-shared-lapis-a5
 * and nothing else of tenant-a, by every read path; the others nothing at all.
 */
function claimReadRows(p: Principal): Row[] {
  const base = `/services/apiexport/${fx.provider}/${CLAIMS_EXPORT}/clusters`;
  const isProvider = p === 'provider';
  const shared = isProvider ? [...markers.aShared, fx.a] : [];
  const reads = isProvider ? 200 : 403;
  const row = (family: string, path: string, expected: number, headers?: Record<string, string>, mustSee?: string[]): Row => ({
    principal: p,
    family: `claim/${family}`,
    path,
    expected,
    allowed: expected === 200 ? shared : [],
    ...(headers ? { headers } : {}),
    ...(isProvider && mustSee ? { mustSee } : {}),
  });
  return [
    row('list', `${base}/${fx.a}/api/v1/configmaps`, reads, undefined, markers.aShared),
    row('list', `${base}/${fx.a}/api/v1/namespaces/ns-a/configmaps`, reads, undefined, markers.aShared),
    row('list', `${base}/*/api/v1/configmaps`, reads, undefined, markers.aShared),
    row('list', `${base}/*/api/v1/configmaps`, reads, TABLE),
    row('list', `${base}/*/api/v1/configmaps`, reads, PARTIAL),
    row('list', `${base}/${fx.a}/api/v1/configmaps?limit=1`, reads),
    row('list', `${base}/*/api/v1/configmaps${listExactQ()}`, reads),
    row('list', `${base}/${fx.a}/api/v1/configmaps?labelSelector=share%21%3Dyes`, reads),
    row('watch', `${base}/*/api/v1/configmaps${watchRv0Q}`, reads, undefined, markers.aShared),
    row('watch', `${base}/${fx.a}/api/v1/configmaps${watchListQ}`, reads),
    row('watch', `${base}/${fx.a}/api/v1/configmaps${watchHistoryQ}`, reads),
    row('get', `${base}/${fx.a}/api/v1/namespaces/ns-a/configmaps/cm-shared-lapis-a5`, reads, undefined, ['value-lapis-6d']),
    // tenant-a's unlabelled ConfigMap: not there for the provider.
    row('get', `${base}/${fx.a}/api/v1/namespaces/ns-a/configmaps/cm-amethyst-a7`, isProvider ? 404 : 403),
    row('get', `${base}/${fx.a}/api/v1/namespaces/ns-a/configmaps/cm-amethyst-a7`, isProvider ? 404 : 403, PARTIAL_ONE),
    // Unclaimed, and a tenant that did not bind.
    row('unclaimed', `${base}/${fx.a}/api/v1/namespaces/ns-a/secrets/secret-garnet-a3`, isProvider ? 404 : 403),
    row('unbound', `${base}/${fx.b}/api/v1/configmaps`, 403),
  ];
}

/**
 * The provider's writes through the narrowed claim, in order: each answers as kcp does and carries no marker of an
 * object outside the selector. The others are refused every one (no apiexports/content on the export).
 */
function claimWriteRows(p: Principal): Row[] {
  const cms = `/services/apiexport/${fx.provider}/${CLAIMS_EXPORT}/clusters/${fx.a}/api/v1/namespaces/ns-a/configmaps`;
  const isProvider = p === 'provider';
  const shared = isProvider ? [...markers.aShared, fx.a] : [];
  const row = (family: string, method: string, path: string, expected: number, body?: unknown, contentType?: string): Row => ({
    principal: p,
    family: `claim-write/${family}`,
    method,
    path,
    expected: isProvider ? expected : 403,
    allowed: isProvider && expected < 300 ? shared : [],
    ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
    ...(contentType ? { contentType } : {}),
  });
  const outside = `${cms}/cm-amethyst-a7`;
  const merge = 'application/merge-patch+json';
  return [
    row('deletecollection', 'DELETE', `${cms}?dryRun=All`, 200),
    row('create', 'POST', cms, 403, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'planted-a', labels: { share: 'no' } } }),
    row('create', 'POST', `${cms}?dryRun=All`, 403, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'planted-a', labels: { share: 'no' } } }),
    row('update', 'PUT', outside, 404, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm-amethyst-a7', labels: { share: 'yes' } }, data: { k: 'stolen' } }),
    row('patch', 'PATCH', outside, 404, '{"metadata":{"labels":{"share":"yes"}}}', merge),
    row('patch', 'PATCH', outside, 404, '{"metadata":{"labels":{"share":"yes"}}}', 'application/strategic-merge-patch+json'),
    row('patch', 'PATCH', outside, 404, '[{"op":"add","path":"/metadata/labels","value":{"share":"yes"}}]', 'application/json-patch+json'),
    row('apply', 'PATCH', `${outside}?fieldManager=p&force=true`, 409, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-amethyst-a7\ndata:\n  k: stolen\n', 'application/apply-patch+yaml'),
    row('delete', 'DELETE', `${outside}?dryRun=All`, 403),
    row('delete', 'DELETE', outside, 403),
    row('move out', 'PATCH', `${cms}/cm-shared-lapis-a5`, 403, '{"metadata":{"labels":{"share":"no"}}}', merge),
    row('move out', 'PATCH', `${cms}/cm-shared-lapis-a5?dryRun=All`, 403, '[{"op":"replace","path":"/metadata/labels/share","value":"no"}]', 'application/json-patch+json'),
    // Last: the one write the provider may make here, deleting what the claim selects (and only that).
    row('deletecollection', 'DELETE', cms, 200),
  ];
}

/**
 * Reserved fields and system objects (kcp's ReservedMetadata, LogicalCluster, PathAnnotation, system CRD admission):
 * every principal rewrites each tenant's LogicalCluster (its path, API set, type, object cap, phase label, spec,
 * status) by each write path, creates and deletes it, plants a Shard, binds a path that is in no workspace tree, and
 * the provider writes a reserved label through its claim. A workspace's own admin is refused by the write authority
 * (with kcp's message), everyone else already by authorization; nothing may change.
 */
function reservedWriteRows(p: Principal): Row[] {
  const rows: Row[] = [];
  const merge = 'application/merge-patch+json';
  const json = 'application/json-patch+json';
  const strategic = 'application/strategic-merge-patch+json';
  const apply = 'application/apply-patch+yaml';
  for (const tenant of ['a', 'b'] as const) {
    const admin = (p === 'adminA' && tenant === 'a') || (p === 'saB' && tenant === 'b');
    const ws = `/clusters/root:tenant-${tenant}`;
    const lc = `${ws}/apis/core.kcp.io/v1alpha1/logicalclusters`;
    const row = (family: string, method: string, path: string, reason: string, body?: string, contentType?: string): Row => ({
      principal: p,
      family: `reserved-write/${family}`,
      method,
      path,
      expected: 403,
      allowed: [],
      ...(admin ? { message: `logicalclusters.core.kcp.io "cluster" is forbidden: ${reason}` } : {}),
      ...(body !== undefined ? { body, ...(contentType ? { contentType } : {}) } : {}),
    });
    const system = (key: string, what = 'annotation') => `modification of system-reserved ${what}: "${key}"`;
    rows.push(
      row('path', 'PATCH', `${lc}/cluster`, system('kcp.io/path'), '{"metadata":{"annotations":{"kcp.io/path":"root:provider"}}}', merge),
      row('path', 'PATCH', `${lc}/cluster?dryRun=All`, system('kcp.io/path'), '[{"op":"remove","path":"/metadata/annotations/kcp.io~1path"}]', json),
      row('api set', 'PATCH', `${lc}/cluster`, system('internal.kcpt.dev/apis'), '{"metadata":{"annotations":{"internal.kcpt.dev/apis":"tenancy.kcp.io,shards.core.kcp.io"}}}', strategic),
      row('type', 'PATCH', `${lc}/cluster?fieldManager=m&force=true`, system('internal.tenancy.kcp.io/type'), 'apiVersion: core.kcp.io/v1alpha1\nkind: LogicalCluster\nmetadata:\n  name: cluster\n  annotations:\n    internal.tenancy.kcp.io/type: root:root\n', apply),
      row('object cap', 'PATCH', `${lc}/cluster`, 'modification of admin-reserved annotation: "core.kcp.io/max-total-objects"', '{"metadata":{"annotations":{"core.kcp.io/max-total-objects":"99999999"}}}', merge),
      row('phase label', 'PATCH', `${lc}/cluster`, system('tenancy.kcp.io/phase', 'label'), '{"metadata":{"labels":{"tenancy.kcp.io/phase":"Initializing"}}}', merge),
      row('spec', 'PATCH', `${lc}/cluster`, 'spec.initializers is immutable', '{"spec":{"initializers":["root:tenant-b:gate"]}}', merge),
      row('status', 'PATCH', `${lc}/cluster/status`, 'status.initializers do not equal spec.initializers', '{"status":{"phase":"Initializing","initializers":["root:tenant-a:gate-type"]}}', merge),
      row('status', 'PATCH', `${lc}/cluster/status?fieldManager=m&force=true`, 'status.URL can only be changed by system privileged users', 'apiVersion: core.kcp.io/v1alpha1\nkind: LogicalCluster\nmetadata:\n  name: cluster\nstatus:\n  URL: https://evil.example/\n', apply),
      row('create', 'POST', lc, 'LogicalCluster cannot be created', '{"apiVersion":"core.kcp.io/v1alpha1","kind":"LogicalCluster","metadata":{"name":"cluster"}}'),
      row('delete', 'DELETE', `${lc}/cluster?dryRun=All`, 'LogicalCluster cannot be deleted'),
      row('deletecollection', 'DELETE', `${lc}?dryRun=All`, 'LogicalCluster cannot be deleted'),
      {
        principal: p,
        family: 'reserved-write/shard',
        method: 'POST',
        path: `${ws}/apis/core.kcp.io/v1alpha1/shards`,
        body: '{"apiVersion":"core.kcp.io/v1alpha1","kind":"Shard","metadata":{"name":"evil"},"spec":{"baseURL":"https://evil.example:6443"}}',
        expected: admin ? 404 : 403,
        allowed: [],
      },
      {
        principal: p,
        family: 'reserved-write/binding to no workspace',
        method: 'POST',
        path: `${ws}/apis/apis.kcp.io/v1alpha2/apibindings`,
        body: JSON.stringify(apiBinding('nowhere', EXPORT, { exportPath: 'root:no-such-workspace' })),
        expected: 403,
        allowed: [],
        ...(admin ? { message: `apibindings.apis.kcp.io "nowhere" is forbidden: unable to create APIBinding: no permission to bind to export root:no-such-workspace:${EXPORT}` } : {}),
      },
    );
  }
  const shared = `/services/apiexport/${fx.provider}/${CLAIMS_EXPORT}/clusters/${fx.a}/api/v1/namespaces/ns-a/configmaps/cm-shared-lapis-a5`;
  rows.push({
    principal: p,
    family: 'reserved-write/claimed object',
    method: 'PATCH',
    path: shared,
    body: '{"metadata":{"labels":{"share":"yes","tenancy.kcp.io/phase":"Ready"}}}',
    contentType: merge,
    expected: 403,
    allowed: [],
    ...(p === 'provider' ? { message: 'configmaps "cm-shared-lapis-a5" is forbidden: modification of system-reserved label: "tenancy.kcp.io/phase"' } : {}),
  });
  return rows;
}

/**
 * The bare server URL (no /clusters/): a service account's token reaches its own workspace there, a token user no
 * workspace at all (kcp's root is for system:masters only on the bare URL).
 */
function bareRows(p: Principal): Row[] {
  const own = p === 'saB' ? [...markers.b, fx.b] : [];
  const reads = p === 'saB' ? 200 : 403;
  return [
    { principal: p, family: 'bare/discovery', path: '/api', expected: p === 'saB' || p === 'provider' ? 200 : 403, allowed: [] },
    { principal: p, family: 'bare/discovery', path: '/apis', headers: { accept: AGGREGATED }, expected: p === 'saB' || p === 'provider' ? 200 : 403, allowed: [] },
    { principal: p, family: 'bare/read', path: '/api/v1/secrets', expected: reads, allowed: own },
    { principal: p, family: 'bare/watch', path: `/api/v1/configmaps${watchRv0Q}`, expected: reads, allowed: own },
    { principal: p, family: 'bare/openapi', path: '/openapi/v3', expected: p === 'saB' || p === 'provider' ? 200 : 403, allowed: [] },
  ];
}

/**
 * Asking to be the shard admin: kcp's impersonation gatekeeper refuses a privileged group (system:masters,
 * system:kcp:admin, …) to anyone not already in it, wherever the request goes, even where the requester may
 * impersonate by RBAC (tenant-a's admin in tenant-a, every user in their home).
 */
function impersonationRows(p: Principal): Row[] {
  const asMasters = { 'impersonate-user': 'kcp-admin', 'impersonate-group': 'system:masters' };
  const asKcpAdmin = { 'impersonate-user': 'kcp-admin', 'impersonate-group': 'system:kcp:admin' };
  const paths = [
    '/clusters/root:tenant-a/api/v1/secrets',
    `/clusters/${fx.a}/api/v1/namespaces/ns-a/secrets/secret-garnet-a3`,
    '/clusters/root:tenant-b/api/v1/secrets',
    `/clusters/*/api/v1/secrets`,
    `/clusters/*/api/v1/configmaps${watchRv0Q}`,
    '/api/v1/secrets',
    '/services/workspaces/all/clusters/*/apis/tenancy.kcp.io/v1alpha1/workspaces',
    `/services/apiexport/${fx.provider}/${EXPORT}/clusters/*/apis/${EXPORT_GROUP}/v1/${EXPORT}`,
    '/services/initializingworkspaces/root:tenant-a:gate-type/clusters/*/apis/core.kcp.io/v1alpha1/logicalclusters',
    `/clusters/user:${users.user2.name}/api/v1/secrets`,
  ];
  return paths.flatMap((path) => [
    { principal: p, family: 'impersonation', path, headers: asMasters, expected: 403, allowed: [] },
    { principal: p, family: 'impersonation', path, headers: asKcpAdmin, expected: 403, allowed: [] },
  ]);
}

/** The lifecycle virtual workspaces: `initialize` / `terminate` on a type, which none of them has. */
function lifecycleRows(p: Principal): Row[] {
  const rows: Row[] = [];
  for (const vw of ['initializingworkspaces', 'terminatingworkspaces']) {
    for (const type of ['root:universal', 'root:organization']) {
      for (const rel of ['/*/apis/core.kcp.io/v1alpha1/logicalclusters', `/*/apis/core.kcp.io/v1alpha1/logicalclusters${watchRv0Q}`, `/${fx.a}/api/v1/configmaps`, `/${fx.b}/api/v1/secrets`]) {
        rows.push({ principal: p, family: `${vw}`, path: `/services/${vw}/${type}/clusters${rel}`, expected: 403, allowed: [] });
      }
    }
  }
  // tenant-a's own type, whose initializer and terminator its admin is (cluster-admin there): the virtual
  // workspaces open for them, but show only workspaces of that type, and none is of it.
  const own = p === 'adminA';
  for (const vw of ['initializingworkspaces', 'terminatingworkspaces']) {
    const base = `/services/${vw}/root:tenant-a:gate-type/clusters`;
    rows.push(
      { principal: p, family: vw, path: `${base}/*/apis/core.kcp.io/v1alpha1/logicalclusters`, expected: own ? 200 : 403, allowed: [] },
      { principal: p, family: vw, path: `${base}/*/apis/core.kcp.io/v1alpha1/logicalclusters${watchRv0Q}`, expected: own ? 200 : 403, allowed: [] },
      { principal: p, family: vw, path: `${base}/*/apis/core.kcp.io/v1alpha1/logicalclusters${watchHistoryQ}`, expected: own ? 200 : 403, allowed: [] },
      { principal: p, family: vw, path: `${base}/${fx.b}/api/v1/namespaces/ns-b/secrets/secret-onyx-b6`, expected: 403, allowed: [], twin: fakeCluster(`${base}/${fx.b}/api/v1/namespaces/ns-b/secrets/secret-onyx-b6`, fx.b) },
      // A cluster outside the view is not there for the type's initializer, like one that does not exist.
      { principal: p, family: vw, path: `${base}/${fx.b}/apis/core.kcp.io/v1alpha1/logicalclusters/cluster`, expected: own ? 404 : 403, allowed: [], twin: fakeCluster(`${base}/${fx.b}/apis/core.kcp.io/v1alpha1/logicalclusters/cluster`, fx.b) },
      { principal: p, family: vw, path: `${base}/${fx.inner}/api/v1/configmaps`, expected: 403, allowed: [], twin: fakeCluster(`${base}/${fx.inner}/api/v1/configmaps`, fx.inner) },
      { principal: p, family: vw, path: `${base}/${fx.a}/api/v1/secrets`, expected: 403, allowed: [], twin: fakeCluster(`${base}/${fx.a}/api/v1/secrets`, fx.a) },
    );
  }
  return rows;
}

const FAKE_CLUSTER = 'zzzzzzzzzzzzzzzz';
const fakeCluster = (path: string, real: string) => ({ path: path.replace(real, FAKE_CLUSTER), real, fake: FAKE_CLUSTER });

/** The workspace index (everyone gets their own list) and the home workspace `~`. */
function indexAndHomeRows(p: Principal): Row[] {
  const index = '/services/workspaces/all/clusters/*/apis/tenancy.kcp.io/v1alpha1/workspaces';
  const isUser = p === 'none' || p === 'adminA';
  // The workspaces each may enter, and so find in the index and in filtered lists.
  const enters = p === 'adminA' ? [fx.a] : p === 'saB' ? [fx.b] : [];
  const rootWs = '/clusters/root/apis/tenancy.kcp.io/v1alpha1/workspaces';
  return [
    { principal: p, family: 'index/list', path: index, expected: 200, allowed: enters, mustSee: enters },
    { principal: p, family: 'index/watch', path: `${index}${watchRv0Q}`, expected: 200, allowed: enters },
    { principal: p, family: 'root/workspaces', path: rootWs, expected: 200, allowed: enters },
    { principal: p, family: 'root/workspaces', path: `${rootWs}${watchRv0Q}`, expected: 200, allowed: enters },
    { principal: p, family: 'root/workspaces', path: `${rootWs}${watchListQ}`, expected: 200, allowed: enters },
    { principal: p, family: 'root/workspaces', path: rootWs, headers: TABLE, expected: 200, allowed: enters },
    { principal: p, family: 'root/workspaces', path: rootWs, headers: PARTIAL, expected: 200, allowed: enters },
    { principal: p, family: 'root/workspaces', path: `${rootWs}?limit=1`, expected: 200, allowed: enters },
    { principal: p, family: 'root/workspaces', path: `${rootWs}${watchRv0Q}`, headers: TABLE, expected: 200, allowed: enters },
    { principal: p, family: 'index/list', path: index, headers: TABLE, expected: 200, allowed: enters },
    { principal: p, family: 'index/list', path: index, headers: PARTIAL, expected: 200, allowed: enters },
    { principal: p, family: 'index/watch', path: `${index}${watchListQ}`, expected: 200, allowed: enters },
    { principal: p, family: 'index/watch', path: `${index}${watchHistoryQ}`, expected: 200, allowed: enters },
    { principal: p, family: 'index/list', path: `${index}${listExactQ()}`, expected: 200, allowed: enters },
    { principal: p, family: 'index/list', path: `${index}?limit=1`, expected: 200, allowed: enters },
    { principal: p, family: 'root/workspaces', path: `${rootWs}${watchHistoryQ}`, expected: 200, allowed: enters },
    { principal: p, family: 'root/workspaces', path: `${rootWs}${listExactQ()}`, expected: 200, allowed: enters },
    // Every authenticated user may read root's Workspaces by name (kcp's system:kcp:tenancy:reader in root): the
    // object, its cluster name included, is no secret; nothing inside the workspace comes with it.
    { principal: p, family: 'root/workspaces', path: `${rootWs}/tenant-b`, expected: 200, allowed: [fx.b] },
    // tenant-a's own children: only its admin may list them.
    { principal: p, family: 'direct/nested', path: '/clusters/root:tenant-a/apis/tenancy.kcp.io/v1alpha1/workspaces', expected: p === 'adminA' ? 200 : 403, allowed: p === 'adminA' ? [fx.a, fx.inner] : [] },
    { principal: p, family: 'direct/nested', path: `/clusters/root:tenant-a/apis/tenancy.kcp.io/v1alpha1/workspaces${watchRv0Q}`, expected: p === 'adminA' ? 200 : 403, allowed: p === 'adminA' ? [fx.a, fx.inner] : [] },
    // A foreign service account has no home (kcp: the home would be shared by every foreign account).
    { principal: p, family: 'home', path: '/clusters/root/apis/tenancy.kcp.io/v1alpha1/workspaces/~', expected: isUser ? 200 : 403, allowed: [] },
    { principal: p, family: 'home', path: '/clusters/user:kcp-admin/api/v1/configmaps', expected: 403, allowed: [] },
  ];
}

/**
 * Watches held open while kcp-admin writes new markers into both tenants: each stream must carry the new objects
 * its principal may see (so the watch was live) and nothing else.
 */
function liveRows(p: Principal): Row[] {
  const q = '?watch=1&allowWatchBookmarks=true&timeoutSeconds=3';
  const a = p === 'adminA';
  const b = p === 'saB';
  const vw = `/services/apiexport/${fx.provider}/${EXPORT}/clusters`;
  const refused = 403;
  const row = (family: string, path: string, status: number, allowed: string[], mustSee: string[]): Row => ({
    principal: p,
    family: `live/${family}`,
    path,
    expected: status,
    allowed: status === 200 ? allowed : [],
    mustSee: status === 200 ? mustSee : undefined,
  });
  const enters = a ? [fx.a] : b ? [fx.b] : [];
  // A watch without a resourceVersion starts with the current objects (kube's semantics), so the old markers too.
  const seesA = [...markers.a, ...markers.aShared, ...markers.aLate, fx.a];
  const seesB = [...markers.b, ...markers.bLate, fx.b];
  const bound = [...markers.aBound, ...markers.aBoundLate, fx.a];
  return [
    row('direct', `/clusters/root:tenant-a/api/v1/configmaps${q}`, a ? 200 : refused, seesA, ['cm-opal-late-a8', 'value-opal-late-3b']),
    row('by cluster name', `/clusters/${fx.a}/apis/${PRIVATE_GROUP}/v1/zirconites${q}`, a ? 200 : refused, seesA, ['cr-zircon-late-a2']),
    row('direct', `/clusters/root:tenant-a/apis/${EXPORT_GROUP}/v1/${EXPORT}${q}`, a ? 200 : refused, bound, ['gizmo-beryl-late-a9']),
    row('direct', `/clusters/root:tenant-b/api/v1/configmaps${q}`, b ? 200 : refused, seesB, ['cm-coral-late-b9']),
    row('bare', `/api/v1/configmaps${q}`, b ? 200 : refused, seesB, ['value-coral-late-5d']),
    row('wildcard', `/clusters/*/api/v1/configmaps${q}`, refused, [], []),
    row('apiexport', `${vw}/*/apis/${EXPORT_GROUP}/v1/${EXPORT}${q}`, p === 'provider' ? 200 : refused, bound, ['gizmo-beryl-late-a9']),
    // Configmaps are not claimed by the export: not even the provider has them.
    row('apiexport', `${vw}/*/api/v1/configmaps${q}`, p === 'provider' ? 404 : refused, [], []),
    row('index', `/services/workspaces/all/clusters/*/apis/tenancy.kcp.io/v1alpha1/workspaces${q}`, 200, enters, []),
  ];
}

async function writeLateMarkers(): Promise<void> {
  const a = 'root:tenant-a';
  const b = 'root:tenant-b';
  await Promise.all([
    adminCreate(a, '/api/v1/namespaces/ns-a/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm-opal-late-a8' }, data: { k: 'value-opal-late-3b' } }),
    adminCreate(a, `/apis/${PRIVATE_GROUP}/v1/namespaces/ns-a/zirconites`, { apiVersion: `${PRIVATE_GROUP}/v1`, kind: 'Zirconite', metadata: { name: 'cr-zircon-late-a2' } }),
    adminCreate(a, `/apis/${EXPORT_GROUP}/v1/namespaces/ns-a/${EXPORT}`, { apiVersion: `${EXPORT_GROUP}/v1`, kind: 'Gizmo', metadata: { name: 'gizmo-beryl-late-a9' } }),
    adminCreate(b, '/api/v1/namespaces/ns-b/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm-coral-late-b9' }, data: { k: 'value-coral-late-5d' } }),
  ]);
}

function messageOf(answer: HttpAnswer): string | undefined {
  try {
    return answer.json().message as string | undefined;
  } catch {
    return undefined;
  }
}

async function ask(p: Principal, path: string, headers?: Record<string, string>, write?: Pick<Row, 'method' | 'body' | 'contentType'>): Promise<HttpAnswer> {
  if (!write?.method) return apiRequest(e2e.server, path, { token: tokenOf(p), headers });
  const sent = write.body !== undefined ? { body: write.body, headers: { ...headers, 'content-type': write.contentType ?? 'application/json' } } : { headers };
  return apiRequest(e2e.server, path, { token: tokenOf(p), method: write.method, ...sent });
}

function named(path: string, headers?: Record<string, string>): string {
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    // keep it raw
  }
  return `${path}\n${decoded}\n${JSON.stringify(headers ?? {})}`;
}

/** The body with its continue tokens decoded: a token is opaque to the client but carries a storage key. */
function readable(body: string): string {
  const tokens = [...body.matchAll(/"continue":"([^"]+)"/g)].map((m) => Buffer.from(m[1]!, 'base64url').toString('utf8'));
  return [body, ...tokens].join('\n');
}

/** Markers in `body` the row does not allow and the request did not name. */
function leaked(body: string, row: Pick<Row, 'allowed' | 'path' | 'headers'>, all: string[]): string[] {
  const sent = named(row.path, row.headers);
  const text = readable(body);
  return all.filter((m) => m && !row.allowed.includes(m) && !sent.includes(m) && text.includes(m));
}

interface Outcome {
  checks: number;
  leaks: string[];
  wrongStatus: string[];
  distinguishable: string[];
}

async function run(rows: Row[], concurrency = 8): Promise<Outcome> {
  const out: Outcome = { checks: 0, leaks: [], wrongStatus: [], distinguishable: [] };
  const queue = [...rows];
  const all = allMarkers();
  const worker = async () => {
    for (let row = queue.shift(); row; row = queue.shift()) {
      const where = `${row.principal} ${row.family} ${row.method ?? 'GET'} ${row.path}`;
      const answer = await ask(row.principal, row.path, row.headers, row);
      out.checks += 2;
      if (answer.status !== row.expected) out.wrongStatus.push(`${where}: ${answer.status}, expected ${row.expected}: ${answer.body.slice(0, 240)}`);
      else if (row.message !== undefined && messageOf(answer) !== row.message) out.wrongStatus.push(`${where}: said ${answer.body.slice(0, 240)}, expected ${row.message}`);
      const names = leaked(answer.body, row, all);
      if (names.length > 0) out.leaks.push(`${where}: names ${names.join(', ')}: ${answer.body.slice(0, 240)}`);
      if (row.mustSee) {
        out.checks += 1;
        const missing = row.mustSee.filter((m) => !answer.body.includes(m));
        if (missing.length > 0) out.wrongStatus.push(`${where}: does not show ${missing.join(', ')}: ${answer.body.slice(0, 240)}`);
      }
      if (row.twin) {
        out.checks += 1;
        const twin = await ask(row.principal, row.twin.path, row.headers);
        const same = twin.body.replaceAll(row.twin.fake, row.twin.real);
        if (twin.status !== answer.status || same !== answer.body) {
          out.distinguishable.push(`${where}: ${answer.status} ${answer.body.slice(0, 200)} vs missing ${twin.status} ${twin.body.slice(0, 200)}`);
        }
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return out;
}

// ---------------------------------------------------------------------------------------------------- fixture

const admin = (path: string, method = 'GET', body?: Json) =>
  apiRequest(e2e.server, path, { method, ...(body ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } } : {}) });

async function adminCreate(cluster: string, collection: string, obj: Json): Promise<Json> {
  const answer = await admin(`/clusters/${cluster}${collection}`, 'POST', obj);
  if (answer.status !== 201 && answer.status !== 200) throw new Error(`creating ${collection} in ${cluster}: ${answer.status} ${answer.body}`);
  return answer.json();
}

async function readyWorkspace(name: string, parent = 'root'): Promise<string> {
  await adminCreate(parent, '/apis/tenancy.kcp.io/v1alpha1/workspaces', { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name } });
  return eventually(`${parent}:${name} Ready`, async () => {
    const ws = (await admin(`/clusters/${parent}/apis/tenancy.kcp.io/v1alpha1/workspaces/${name}`)).json();
    return ws.status?.phase === 'Ready' ? (ws.spec.cluster as string) : undefined;
  });
}

const rbac = '/apis/rbac.authorization.k8s.io/v1';

function bind(cluster: string, name: string, role: string, subject: Json): Promise<Json> {
  return adminCreate(cluster, `${rbac}/clusterrolebindings`, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
    subjects: [subject],
  });
}

async function serviceAccountToken(cluster: string, name: string): Promise<string> {
  await adminCreate(cluster, '/api/v1/namespaces/default/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name } });
  const request = await adminCreate(cluster, `/api/v1/namespaces/default/serviceaccounts/${name}/token`, {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenRequest',
    spec: { expirationSeconds: 3600 },
  });
  return request.status.token as string;
}

const saSubject = (name: string) => ({ kind: 'ServiceAccount', name, namespace: 'default' });
const namespace = (name: string) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });

beforeAll(async () => {
  [fx.a, fx.b, fx.provider] = await Promise.all([readyWorkspace('tenant-a'), readyWorkspace('tenant-b'), readyWorkspace('provider')]);
  const a = 'root:tenant-a';
  const b = 'root:tenant-b';
  const p = 'root:provider';

  // The provider: an export of gizmos, and its controller's identity with apiexports/content on it.
  await adminCreate(p, '/apis/apis.kcp.io/v1alpha1/apiresourceschemas', resourceSchema({ group: EXPORT_GROUP, plural: EXPORT, kind: 'Gizmo', openAPI: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } }));
  await adminCreate(p, '/apis/apis.kcp.io/v1alpha2/apiexports', apiExport({ name: EXPORT, group: EXPORT_GROUP, plural: EXPORT }));
  await adminCreate(p, '/apis/apis.kcp.io/v1alpha1/apiresourceschemas', resourceSchema({ group: CLAIMS_GROUP, plural: 'shares', kind: 'Share' }));
  await adminCreate(
    p,
    '/apis/apis.kcp.io/v1alpha2/apiexports',
    apiExport({ name: CLAIMS_EXPORT, group: CLAIMS_GROUP, plural: 'shares', permissionClaims: [{ group: '', resource: 'configmaps', verbs: CLAIM_VERBS }] }),
  );
  fx.providerToken = await serviceAccountToken(p, 'gizmo-controller');
  await adminCreate(p, `${rbac}/clusterroles`, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'gizmo-content' },
    rules: [
      { nonResourceURLs: ['/'], verbs: ['access'] },
      { apiGroups: ['apis.kcp.io'], resources: ['apiexports/content'], resourceNames: [EXPORT], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['apis.kcp.io'], resources: ['apiexports/content'], resourceNames: [CLAIMS_EXPORT], verbs: ['*'] },
    ],
  });
  await bind(p, 'gizmo-content', 'gizmo-content', saSubject('gizmo-controller'));

  // tenant-a: admin user-2, a private CRD, the bound export, and the markers.
  await Promise.all([
    bind(a, 'user-2-admin', 'cluster-admin', { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: users.user2.name }),
    adminCreate(a, '/api/v1/namespaces', namespace('ns-a')),
    adminCreate(
      a,
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      crdObject({ group: PRIVATE_GROUP, plural: 'zirconites', kind: 'Zirconite', schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } }),
    ),
    adminCreate(a, '/apis/apis.kcp.io/v1alpha2/apibindings', apiBinding(EXPORT, EXPORT, { exportPath: p })),
    adminCreate(
      a,
      '/apis/apis.kcp.io/v1alpha2/apibindings',
      apiBinding(CLAIMS_EXPORT, CLAIMS_EXPORT, {
        exportPath: p,
        permissionClaims: [{ group: '', resource: 'configmaps', verbs: CLAIM_VERBS, state: 'Accepted', selector: { matchLabels: { share: 'yes' } } }],
      }),
    ),
  ]);
  await eventually('the CRD and the binding served in tenant-a', async () => {
    const [crd, bound] = await Promise.all([admin(`/clusters/${a}/apis/${PRIVATE_GROUP}/v1`), admin(`/clusters/${a}/apis/${EXPORT_GROUP}/v1`)]);
    return crd.status === 200 && bound.status === 200 ? true : undefined;
  });
  await Promise.all([
    adminCreate(a, '/api/v1/namespaces/ns-a/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm-amethyst-a7' }, data: { k: 'value-amethyst-9f1' } }),
    adminCreate(a, '/api/v1/namespaces/ns-a/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm-shared-lapis-a5', labels: { share: 'yes' } }, data: { k: 'value-lapis-6d' } }),
    adminCreate(a, '/api/v1/namespaces/ns-a/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'secret-garnet-a3' }, stringData: { password: 'pw-garnet-5e2' } }),
    adminCreate(a, `/apis/${PRIVATE_GROUP}/v1/namespaces/ns-a/zirconites`, { apiVersion: `${PRIVATE_GROUP}/v1`, kind: 'Zirconite', metadata: { name: 'cr-zircon-a1' }, spec: { payload: 'payload-zircon-77' } }),
    adminCreate(a, `/apis/${EXPORT_GROUP}/v1/namespaces/ns-a/${EXPORT}`, { apiVersion: `${EXPORT_GROUP}/v1`, kind: 'Gizmo', metadata: { name: 'gizmo-beryl-a4' }, spec: { payload: 'payload-beryl-31' } }),
  ]);

  // tenant-b: its service account is cluster-admin there; its markers.
  // tenant-a:inner: a child none of the four may enter, with a marker of its own.
  fx.inner = await readyWorkspace('inner', a);
  await adminCreate(a, '/apis/tenancy.kcp.io/v1alpha1/workspacetypes', {
    apiVersion: 'tenancy.kcp.io/v1alpha1',
    kind: 'WorkspaceType',
    metadata: { name: 'gate-type' },
    spec: { initializer: true, terminator: true, extend: { with: [{ name: 'universal', path: 'root' }] } },
  });
  await adminCreate(`${a}:inner`, '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm-jade-i5' }, data: { k: 'value-jade-62e' } });

  fx.saBToken = await serviceAccountToken(b, 'robot-b');
  await Promise.all([bind(b, 'robot-b-admin', 'cluster-admin', saSubject('robot-b')), adminCreate(b, '/api/v1/namespaces', namespace('ns-b'))]);
  await Promise.all([
    adminCreate(b, '/api/v1/namespaces/ns-b/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm-topaz-b2' }, data: { k: 'value-topaz-4c8' } }),
    adminCreate(b, '/api/v1/namespaces/ns-b/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'secret-onyx-b6' }, stringData: { password: 'pw-onyx-0d9' } }),
  ]);

  fx.earlyRevision = (await admin('/clusters/root:tenant-b/api/v1/namespaces/ns-b/configmaps/cm-topaz-b2')).json().metadata.resourceVersion;
  // Everyone's RBAC and the provider's virtual workspace are live before the walk.
  await eventually('user-2 reads tenant-a', async () => ((await ask('adminA', `/clusters/${a}/api/v1/configmaps`)).status === 200 ? true : undefined));
  await eventually('robot-b reads tenant-b', async () => ((await ask('saB', `/clusters/${b}/api/v1/secrets`)).status === 200 ? true : undefined));
  await eventually('the provider reads the ConfigMap tenant-a shares', async () =>
    (await ask('provider', `/services/apiexport/${fx.provider}/${CLAIMS_EXPORT}/clusters/*/api/v1/configmaps`)).body.includes('cm-shared-lapis-a5') ? true : undefined,
  );
  await eventually('the provider lists gizmos', async () =>
    (await ask('provider', `/services/apiexport/${fx.provider}/${EXPORT}/clusters/*/apis/${EXPORT_GROUP}/v1/${EXPORT}`)).body.includes('gizmo-beryl-a4') ? true : undefined,
  );
}, 150_000);

describe('the isolation matrix', () => {
  it('no principal sees a marker it may not see, through any endpoint family', async () => {
    const rows = principals.flatMap(rowsFor);
    const outcome = await run(rows);
    const families = new Set(rows.map((r) => r.family.split('/')[0]));
    const perFamily = new Map<string, number>();
    for (const r of rows) perFamily.set(r.family.split('/')[0]!, (perFamily.get(r.family.split('/')[0]!) ?? 0) + 1);
    console.log(`rows per family: ${[...perFamily].map(([f, n]) => `${f} ${n}`).join(', ')}`);
    console.log(
      `isolation matrix: ${rows.length} rows (${principals.length} principals × ${families.size} endpoint families), ${outcome.checks} checks; leaks: ${outcome.leaks.length}; wrong status: ${outcome.wrongStatus.length}; distinguishable from missing: ${outcome.distinguishable.length}`,
    );
    const report = [
      ...outcome.leaks.map((l) => `LEAK ${l}`),
      ...outcome.wrongStatus.map((w) => `STATUS ${w}`),
      ...outcome.distinguishable.map((d) => `EXISTENCE ${d}`),
    ];
    expect(report.join('\n')).toBe('');
  }, 240_000);

  it('a workspace admin cannot become the shard admin with kubectl --as-group system:masters (kcp’s gatekeeper)', async () => {
    const asAdminA = e2e.asUser(users.user2.token, 'root:tenant-a');
    // Discovery is refused first, so kubectl get says only "Forbidden"; --raw shows the server's message.
    const escalated = await asAdminA(['get', 'secrets', '-A', '--as', 'kcp-admin', '--as-group', 'system:masters'], { reject: false });
    expect(escalated.exitCode).not.toBe(0);
    expect(escalated.stdout).not.toContain('secret-garnet-a3');
    const raw = await asAdminA(['get', '--raw', '/api/v1/secrets', '--as', 'kcp-admin', '--as-group', 'system:masters'], { reject: false });
    expect(raw.stderr).toContain('Error from server (Forbidden): forbidden: impersonation is not allowed for the requestor');
    // Impersonating an ordinary identity stays the workspace's RBAC question, not the gatekeeper's.
    const ordinary = await asAdminA(['get', '--raw', '/api/v1/namespaces/ns-a/secrets', '--as', 'someone-else', '--as-group', 'team-x'], { reject: false });
    expect(ordinary.stderr).not.toContain('impersonation is not allowed');
  });

  it('live watches carry the new objects their principal may see, and nothing of another tenant', async () => {
    const rows = principals.flatMap(liveRows);
    const streams = run(rows, rows.length);
    await new Promise((r) => setTimeout(r, 800));
    await writeLateMarkers();
    const outcome = await streams;
    console.log(`isolation matrix, live watches: ${rows.length} rows, ${outcome.checks} checks; leaks: ${outcome.leaks.length}`);
    const report = [...outcome.leaks.map((l) => `LEAK ${l}`), ...outcome.wrongStatus.map((w) => `STATUS ${w}`)];
    expect(report.join('\n')).toBe('');
  }, 60_000);
  it('no principal writes a reserved field or a system object, by any write path', async () => {
    const essence = async (tenant: string) => {
      const lc = (await admin(`/clusters/root:${tenant}/apis/core.kcp.io/v1alpha1/logicalclusters/cluster`)).json();
      return JSON.stringify([lc.metadata.annotations, lc.metadata.labels, lc.metadata.finalizers, lc.spec, lc.status]);
    };
    const before = await Promise.all(['tenant-a', 'tenant-b'].map(essence));
    const rows = principals.flatMap(reservedWriteRows);
    const outcome = await run(rows, 4);
    console.log(`isolation matrix, reserved writes: ${rows.length} rows, ${outcome.checks} checks; wrong answers: ${outcome.wrongStatus.length}`);
    const after = await Promise.all(['tenant-a', 'tenant-b'].map(essence));
    const shared = (await admin('/clusters/root:tenant-a/api/v1/namespaces/ns-a/configmaps/cm-shared-lapis-a5')).json();
    const report = [
      ...outcome.leaks.map((l) => `LEAK ${l}`),
      ...outcome.wrongStatus.map((w) => `STATUS ${w}`),
      ...after.flatMap((a, i) => (a === before[i] ? [] : [`CHANGED tenant-${'ab'[i]}'s LogicalCluster: ${a}`])),
      ...(shared.metadata?.labels?.['tenancy.kcp.io/phase'] === undefined ? [] : ['LABELLED cm-shared-lapis-a5']),
    ];
    expect(report.join('\n')).toBe('');
  }, 120_000);

  it('the provider’s writes through a narrowed claim reach only the objects it selects, by every verb', async () => {
    // The others first (all refused), then the provider's in order: its last row deletes what the claim selects.
    const others = await run(principals.filter((p) => p !== 'provider').flatMap(claimWriteRows));
    const provider = await run(claimWriteRows('provider'), 1);
    const outcome = { leaks: [...others.leaks, ...provider.leaks], wrongStatus: [...others.wrongStatus, ...provider.wrongStatus] };
    console.log(`isolation matrix, claim writes: ${principals.length * claimWriteRows('provider').length} rows, ${others.checks + provider.checks} checks; leaks: ${outcome.leaks.length}`);
    const unlabelled = (await admin('/clusters/root:tenant-a/api/v1/namespaces/ns-a/configmaps/cm-amethyst-a7')).json();
    const report = [
      ...outcome.leaks.map((l) => `LEAK ${l}`),
      ...outcome.wrongStatus.map((w) => `STATUS ${w}`),
      ...(JSON.stringify([unlabelled.metadata.labels, unlabelled.data]) === JSON.stringify([undefined, { k: 'value-amethyst-9f1' }]) ? [] : [`CHANGED cm-amethyst-a7: ${JSON.stringify(unlabelled)}`]),
      ...((await admin('/clusters/root:tenant-a/api/v1/namespaces/ns-a/configmaps/planted-a')).status === 404 ? [] : ['PLANTED planted-a']),
      ...((await admin('/clusters/root:tenant-a/api/v1/namespaces/ns-a/configmaps/cm-shared-lapis-a5')).status === 404 ? [] : ['NOT DELETED cm-shared-lapis-a5 (the provider’s allowed delete-collection)']),
    ];
    expect(report.join('\n')).toBe('');
  }, 60_000);
});
