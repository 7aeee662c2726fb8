/**
 * Tenant isolation: a user without access to a workspace learns nothing about its content through any endpoint. One
 * server holds two fixtures, each with outsiders of its own, walked in two ways.
 *
 * The vault (hand-written probes). kcp-admin builds an organisation with two teams; one, the vault, holds a CRD and
 * its CR, a ConfigMap, a Secret, a namespace, RBAC objects, a service account, a WorkspaceType with an initializer and
 * a workspace waiting on it. Their names, data, labels and cluster names are canaries. Then, as
 *   (a) a token user with no access at all (user-1),
 *   (b) a token user who administers the sibling team only (user-2),
 *   (c) a service account of the sibling (a foreign identity in the vault; the vault has a service account of the
 *       same namespace and name, bound to cluster-admin there, so any confusion of the two shows), and
 *   (d) that token again once the vault grants `system:cluster:<sibling>` workspace access but no RBAC,
 * every endpoint family is walked with raw HTTPS: by path, by cluster name, the `*` wildcard, reads, watches,
 * writes, subresources, discovery, OpenAPI, reviews, /metrics, the lifecycle virtual workspaces, the workspace
 * index, another user's home, malformed paths and impersonation. Every answer must carry the status kcp gives and
 * no canary the request did not itself name; for a workspace the requester cannot see, the answer must be the one
 * a missing workspace gets (so probing tells nothing about existence). Watches run while kcp-admin writes new
 * canaries into the vault. A few real kubectl runs cover what users type.
 *
 * The matrix (generated as data, so the count of checks is a figure): the systematic cross product of who × where ×
 * which endpoint, with a provider's export access. root:tenant-a holds a ConfigMap, a Secret, a CR of its own CRD
 * and an object of a provider's API it binds; it also binds a second export of the provider that claims configmaps,
 * accepting the claim for objects labelled share=yes, which only its ConfigMap cm-shared-lapis-a5 is; root:tenant-b
 * holds its own ConfigMap and Secret; every name and value is a marker string. Principals:
 *   none     — a token user with no access anywhere (user-3);
 *   adminA   — a token user who is cluster-admin in tenant-a only (user-4);
 *   saB      — a ServiceAccount of tenant-b, cluster-admin there, with its own token (a foreign identity elsewhere);
 *   provider — the provider's controller: a ServiceAccount of root:provider with `apiexports/content` on its export.
 * Each row is (principal, family, path, expected status, markers the principal may see). A check passes when the
 * status is the expected one and the body names no marker outside the row's allowance (a marker the request itself
 * named does not count). The provider's writes through the narrowed claim (every verb, the attack shapes of
 * permission claims) are rows too, checked the same way, and tenant-a's objects are checked unchanged after them;
 * so are every principal's attempts on reserved fields and system objects (LogicalClusters, Shards, kcp.io/path).
 * Rows marked with a twin also require that a workspace the principal may not enter answers exactly as a missing
 * one does (kcp's front-proxy answers both with 403 "workspace access not permitted"-style refusals).
 *
 * The server is the project's shared one: the organisation and the matrix's workspaces in root have names of this
 * run's own (root:tenant-a above stands for root:<tenant-a-…>), every marker is a string no other file writes, and
 * user-3 and user-4 are this file's alone. Every watch probe carries its timeoutSeconds.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { apiRequest, type HttpAnswer, type HttpOptions } from '../helpers/http.js';
import { kubectl, sleep, uniqueName } from '../helpers/kubectl.js';
import { apiBinding, apiExport, resourceSchema } from '../e2e/apis-fixtures.js';
import { crdObject } from '../e2e/crds-fixtures.js';
import { eventually, useTenancyServer, users, type Json } from '../e2e/tenancy-fixtures.js';

const e2e = useTenancyServer();

// ---------------------------------------------------------------------------------------------------- kcp-admin

const admin = (path: string, opts: HttpOptions = {}) => apiRequest(e2e.server, path, opts);

async function adminCreate(cluster: string, collection: string, obj: Json): Promise<Json> {
  const answer = await admin(`/clusters/${cluster}${collection}`, { method: 'POST', body: JSON.stringify(obj), headers: { 'content-type': 'application/json' } });
  if (answer.status !== 201 && answer.status !== 200) throw new Error(`creating ${collection} in ${cluster}: ${answer.status} ${answer.body}`);
  return answer.json();
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

/** What the request itself said: a canary named there is no leak. */
function sentText(path: string, probe: { headers?: Record<string, string>; body?: string }): string {
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    // keep the raw path
  }
  return [path, decoded, JSON.stringify(probe.headers ?? {}), probe.body ?? ''].join('\n');
}


// ---------------------------------------------------------------------------------------------------- the vault

const AGGREGATED = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';
const GROUP = 'cloak.isolation.example';
const org = uniqueName('isolation-org');
const vaultName = 'hushvault';
const vaultPath = `root:${org}:${vaultName}`;
const siblingPath = `root:${org}:sibling`;
const SA = 'phantom-operator';
const secretValue = 'zephyr-quartz';

type Who = 'a' | 'b' | 'c' | 'd';
const everyone: Who[] = ['a', 'b', 'c', 'd'];

/** What kcp-admin learns while building the tree. */
const tree = { vaultCluster: '', siblingCluster: '', pendingCluster: '', saToken: '' };

/** Every string the vault holds that an outsider must never read (filled in once the cluster names are known). */
function canaries(): string[] {
  return [
    vaultName,
    vaultPath,
    tree.vaultCluster,
    tree.pendingCluster,
    GROUP,
    'HushWidget',
    'hushwidgets',
    'whisper-widget',
    'ultraviolet',
    'obsidian-lantern',
    'nightshade',
    'moonlit-cm',
    'orchid-velvet',
    'shadow-secret',
    secretValue,
    Buffer.from(secretValue).toString('base64'),
    'covert-reader',
    'covert-binding',
    'covert-clusterrole',
    'phantom-admin',
    SA,
    'stealth-type',
    'pending-child',
    // Written while the watches run.
    'latecomer-cm',
    'midnight-ink',
  ];
}

/** Canaries a requester legitimately knows: their own name; with workspace access, the vault and its APIs. */
function known(who: Who): string[] {
  const own = who === 'c' || who === 'd' ? [SA] : [];
  const entered = who === 'd' ? [vaultName, vaultPath, tree.vaultCluster] : [];
  return [...own, ...entered];
}

/** Discovery and OpenAPI show the APIs of a workspace one may enter (kcp's system:discovery for the authenticated). */
const apiCanaries = [GROUP, 'HushWidget', 'hushwidgets'];

function tokenOf(who: Who): string {
  if (who === 'a') return users.user1.token;
  if (who === 'b') return users.user2.token;
  return tree.saToken;
}

interface Probe {
  label: string;
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** The status each requester must get. */
  expect: (who: Who) => number;
  /** The same request at a workspace (or type) that does not exist: an outsider must get the same answer. */
  twin?: { path: string; real: string; fake: string };
  /** Requesters for whom the twin must look the same (those who cannot see the target). */
  hiddenFrom?: Who[];
  /** Discovery/OpenAPI: the vault's API names are fine for requesters who may enter it. */
  showsApis?: boolean;
}

const all403 = () => 403;
const for403ElseD = (d: number) => (who: Who) => (who === 'd' ? d : 403);

const json = (obj: Json) => ({ body: JSON.stringify(obj), headers: { 'content-type': 'application/json' } });
const configMap = (name: string) => json({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'nightshade' }, data: { x: 'y' } });

/** Every request into one workspace `x` (a path or a cluster name), with its twin at `fake`. */
function workspaceProbes(x: string, fake: string, hiddenFrom: Who[]): Probe[] {
  const probes: Omit<Probe, 'twin' | 'hiddenFrom'>[] = [
    // Discovery, legacy and aggregated, and OpenAPI v3 and v2: for (d) as kcp serves them to anyone who may enter.
    { label: 'aggregated /api', path: '/api', headers: { accept: AGGREGATED }, expect: for403ElseD(200), showsApis: true },
    { label: 'aggregated /apis', path: '/apis', headers: { accept: AGGREGATED }, expect: for403ElseD(200), showsApis: true },
    { label: 'legacy /api', path: '/api', expect: for403ElseD(200) },
    { label: 'legacy /apis', path: '/apis', expect: for403ElseD(200), showsApis: true },
    { label: '/api/v1', path: '/api/v1', expect: for403ElseD(200) },
    { label: 'CRD group', path: `/apis/${GROUP}`, expect: for403ElseD(200), showsApis: true },
    { label: 'CRD group version', path: `/apis/${GROUP}/v1`, expect: for403ElseD(200), showsApis: true },
    { label: 'tenancy group version', path: '/apis/tenancy.kcp.io/v1alpha1', expect: for403ElseD(200) },
    { label: 'OpenAPI v3 index', path: '/openapi/v3', expect: for403ElseD(200), showsApis: true },
    { label: 'OpenAPI v3 CRD group', path: `/openapi/v3/apis/${GROUP}/v1`, expect: for403ElseD(200), showsApis: true },
    { label: 'OpenAPI v3 core', path: '/openapi/v3/api/v1', expect: for403ElseD(200) },
    { label: 'OpenAPI v2', path: '/openapi/v2', expect: for403ElseD(200), showsApis: true },
    // Public paths (kube's system:public-info-viewer): the same answer for everyone, about nothing in particular.
    { label: '/version', path: '/version', expect: () => 200 },
    { label: '/healthz', path: '/healthz', expect: () => 200 },
    { label: '/livez', path: '/livez', expect: () => 200 },
    { label: '/readyz', path: '/readyz', expect: () => 200 },
    { label: '/metrics', path: '/metrics', expect: all403 },
    { label: 'unknown non-resource path', path: '/nothing/here', expect: all403 },
    { label: 'unknown resource', path: `/apis/${GROUP}/v1/nonexistents`, expect: all403 },
    // Reads of every kind: built-in, CRD, kcp's own.
    ...[
      '/api/v1/namespaces',
      '/api/v1/namespaces/nightshade',
      '/api/v1/configmaps',
      '/api/v1/namespaces/nightshade/configmaps',
      '/api/v1/namespaces/nightshade/configmaps/moonlit-cm',
      '/api/v1/secrets',
      '/api/v1/namespaces/nightshade/secrets/shadow-secret',
      '/api/v1/serviceaccounts',
      `/api/v1/namespaces/default/serviceaccounts/${SA}`,
      '/api/v1/events',
      `/apis/${GROUP}/v1/hushwidgets`,
      `/apis/${GROUP}/v1/namespaces/nightshade/hushwidgets/whisper-widget`,
      `/apis/${GROUP}/v1/hushwidgets?labelSelector=clearance%3Dultraviolet`,
      `/apis/${GROUP}/v1/hushwidgets?fieldSelector=metadata.name%3Dwhisper-widget`,
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/hushwidgets.${GROUP}`,
      '/apis/rbac.authorization.k8s.io/v1/roles',
      '/apis/rbac.authorization.k8s.io/v1/namespaces/nightshade/roles/covert-reader',
      '/apis/rbac.authorization.k8s.io/v1/namespaces/nightshade/rolebindings/covert-binding',
      '/apis/rbac.authorization.k8s.io/v1/clusterroles',
      '/apis/rbac.authorization.k8s.io/v1/clusterroles/covert-clusterrole',
      '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
      '/apis/core.kcp.io/v1alpha1/logicalclusters',
      '/apis/core.kcp.io/v1alpha1/logicalclusters/cluster',
      '/apis/tenancy.kcp.io/v1alpha1/workspaces',
      '/apis/tenancy.kcp.io/v1alpha1/workspaces/pending-child',
      '/apis/tenancy.kcp.io/v1alpha1/workspacetypes',
      '/apis/tenancy.kcp.io/v1alpha1/workspacetypes/stealth-type',
    ].map((path) => ({ label: `GET ${path}`, path, expect: all403 })),
    // Watches (they would stay open a second if they were let in).
    ...['/api/v1/namespaces', '/api/v1/configmaps', `/apis/${GROUP}/v1/hushwidgets`, '/apis/tenancy.kcp.io/v1alpha1/workspaces'].map((path) => ({
      label: `WATCH ${path}`,
      path: `${path}?watch=1&timeoutSeconds=1`,
      expect: all403,
    })),
    // Writes and subresources.
    { label: 'create configmap', method: 'POST', path: '/api/v1/namespaces/nightshade/configmaps', ...configMap('intruder'), expect: all403 },
    { label: 'dry-run create', method: 'POST', path: '/api/v1/namespaces/nightshade/configmaps?dryRun=All', ...configMap('moonlit-cm'), expect: all403 },
    { label: 'update configmap', method: 'PUT', path: '/api/v1/namespaces/nightshade/configmaps/moonlit-cm', ...configMap('moonlit-cm'), expect: all403 },
    {
      label: 'merge patch',
      method: 'PATCH',
      path: '/api/v1/namespaces/nightshade/configmaps/moonlit-cm',
      body: '{"data":{"x":"y"}}',
      headers: { 'content-type': 'application/merge-patch+json' },
      expect: all403,
    },
    {
      label: 'server-side apply',
      method: 'PATCH',
      path: '/api/v1/namespaces/nightshade/configmaps/moonlit-cm?fieldManager=intruder',
      body: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: moonlit-cm\n  namespace: nightshade\n',
      headers: { 'content-type': 'application/apply-patch+yaml' },
      expect: all403,
    },
    { label: 'delete configmap', method: 'DELETE', path: '/api/v1/namespaces/nightshade/configmaps/moonlit-cm', expect: all403 },
    { label: 'deletecollection', method: 'DELETE', path: '/api/v1/namespaces/nightshade/configmaps', expect: all403 },
    { label: 'delete namespace', method: 'DELETE', path: '/api/v1/namespaces/nightshade', expect: all403 },
    { label: 'namespace finalize', method: 'PUT', path: '/api/v1/namespaces/nightshade/finalize', ...json({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'nightshade' } }), expect: all403 },
    { label: 'CR status', method: 'PATCH', path: `/apis/${GROUP}/v1/namespaces/nightshade/hushwidgets/whisper-widget/status`, body: '{"status":{"replicas":9}}', headers: { 'content-type': 'application/merge-patch+json' }, expect: all403 },
    { label: 'CR scale', path: `/apis/${GROUP}/v1/namespaces/nightshade/hushwidgets/whisper-widget/scale`, expect: all403 },
    {
      label: 'CR scale update',
      method: 'PUT',
      path: `/apis/${GROUP}/v1/namespaces/nightshade/hushwidgets/whisper-widget/scale`,
      ...json({ apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'whisper-widget', namespace: 'nightshade' }, spec: { replicas: 5 } }),
      expect: all403,
    },
    {
      label: 'token request',
      method: 'POST',
      path: `/api/v1/namespaces/default/serviceaccounts/${SA}/token`,
      ...json({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} }),
      expect: all403,
    },
    {
      label: 'create CRD',
      method: 'POST',
      path: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      ...json({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `hushwidgets.${GROUP}` } }),
      expect: all403,
    },
    {
      label: 'grant oneself cluster-admin',
      method: 'POST',
      path: '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
      ...json({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: 'self-service' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
        subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'system:authenticated' }],
      }),
      expect: all403,
    },
    {
      label: 'create workspace',
      method: 'POST',
      path: '/apis/tenancy.kcp.io/v1alpha1/workspaces',
      ...json({ apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name: 'squatter' } }),
      expect: all403,
    },
    // Reviews: (d) may ask about itself (system:basic-user), nobody here may ask about others.
    {
      label: 'SelfSubjectAccessReview',
      method: 'POST',
      path: '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
      ...json({ apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { verb: 'get', resource: 'secrets', namespace: 'nightshade', name: 'shadow-secret' } } }),
      expect: for403ElseD(201),
    },
    {
      label: 'SelfSubjectRulesReview',
      method: 'POST',
      path: '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews',
      ...json({ apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace: 'nightshade' } }),
      expect: for403ElseD(201),
    },
    {
      label: 'SelfSubjectReview',
      method: 'POST',
      path: '/apis/authentication.k8s.io/v1/selfsubjectreviews',
      ...json({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }),
      expect: for403ElseD(201),
    },
    {
      label: 'SubjectAccessReview',
      method: 'POST',
      path: '/apis/authorization.k8s.io/v1/subjectaccessreviews',
      ...json({ apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user: 'kcp-admin', resourceAttributes: { verb: 'list', resource: 'secrets' } } }),
      expect: all403,
    },
    {
      label: 'TokenReview',
      method: 'POST',
      path: '/apis/authentication.k8s.io/v1/tokenreviews',
      ...json({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: 'guess' } }),
      expect: all403,
    },
    // Impersonation: asking to be someone else is checked in the workspace, and refused.
    {
      label: 'impersonate kcp-admin as system:masters',
      path: '/api/v1/namespaces/nightshade/secrets',
      headers: { 'impersonate-user': 'kcp-admin', 'impersonate-group': 'system:masters' },
      expect: all403,
    },
    {
      label: 'impersonate the vault’s service account',
      path: '/api/v1/namespaces/nightshade/secrets',
      headers: { 'impersonate-user': `system:serviceaccount:default:${SA}` },
      expect: all403,
    },
  ];
  return probes.map((p) => ({
    ...p,
    path: `/clusters/${x}${p.path}`,
    twin: { path: `/clusters/${fake}${p.path}`, real: x, fake },
    hiddenFrom,
  }));
}

/** The `*` wildcard: list and watch are for system:masters only; other verbs are refused before anything is read. */
function wildcardProbes(): Probe[] {
  const lists = [
    '/api/v1/configmaps',
    '/api/v1/secrets',
    '/api/v1/namespaces',
    `/apis/${GROUP}/v1/hushwidgets`,
    '/apis/tenancy.kcp.io/v1alpha1/workspaces',
    '/apis/core.kcp.io/v1alpha1/logicalclusters',
    '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
    '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
  ];
  return [
    ...lists.map((p) => ({ label: `wildcard LIST ${p}`, path: `/clusters/*${p}`, expect: all403 })),
    ...lists.map((p) => ({ label: `wildcard WATCH ${p}`, path: `/clusters/*${p}?watch=1&timeoutSeconds=1`, expect: all403 })),
    { label: 'wildcard discovery', path: '/clusters/*/apis', headers: { accept: AGGREGATED }, expect: all403 },
    { label: 'wildcard OpenAPI', path: '/clusters/*/openapi/v3', expect: all403 },
    { label: 'wildcard create', method: 'POST', path: '/clusters/*/api/v1/namespaces/nightshade/configmaps', ...configMap('intruder'), expect: all403 },
  ];
}

/** The lifecycle virtual workspaces of the vault's type; the twin names a type that does not exist. */
function lifecycleProbes(): Probe[] {
  const probes: Probe[] = [];
  for (const vw of ['initializingworkspaces', 'terminatingworkspaces']) {
    const base = (type: string) => `/services/${vw}/${vaultPath}:${type}/clusters`;
    const paths = [
      '/*/apis/core.kcp.io/v1alpha1/logicalclusters',
      '/*/apis/core.kcp.io/v1alpha1/logicalclusters?watch=1&timeoutSeconds=1',
      '/*/apis',
      `/${tree.pendingCluster}/apis/core.kcp.io/v1alpha1/logicalclusters/cluster`,
      `/${tree.pendingCluster}/api/v1/namespaces`,
      `/${tree.pendingCluster}/api/v1/namespaces/default/configmaps`,
    ];
    for (const p of paths) {
      probes.push({
        label: `${vw} ${p}`,
        path: `${base('stealth-type')}${p}`,
        expect: all403,
        twin: { path: `${base('nope-type')}${p}`, real: 'stealth-type', fake: 'nope-type' },
        hiddenFrom: everyone,
      });
    }
    probes.push({
      label: `${vw} status patch`,
      method: 'PATCH',
      path: `${base('stealth-type')}/${tree.pendingCluster}/apis/core.kcp.io/v1alpha1/logicalclusters/cluster/status`,
      body: '{"status":{"initializers":[]}}',
      headers: { 'content-type': 'application/merge-patch+json' },
      expect: all403,
    });
  }
  return probes;
}

/** Paths that are not the vault's but come near it: homes, malformed and encoded paths, the waiting child. */
function edgeProbes(): Probe[] {
  const hidden = (path: string, fake: string, real: string, from = everyone): Probe => ({
    label: `hidden ${path}`,
    path,
    expect: all403,
    twin: { path: path.replace(real, fake), real, fake },
    hiddenFrom: from,
  });
  return [
    hidden('/clusters/user:kcp-admin/api/v1/namespaces', 'user:nobody-at-all', 'user:kcp-admin'),
    hidden(`/clusters/${tree.pendingCluster}/api/v1/namespaces`, 'zzzzzzzzzzzzzzzz', tree.pendingCluster),
    hidden(`/clusters/${vaultPath}:pending-child/api/v1/namespaces`, `${vaultPath}:no-such-child`, `${vaultPath}:pending-child`),
    hidden(`/clusters/${vaultPath}:pending-child:deeper/api`, `${vaultPath}:no-such-child:deeper`, `${vaultPath}:pending-child`),
    // Encoded colons are the same path.
    hidden(`/clusters/${vaultPath.replaceAll(':', '%3A')}/api/v1/configmaps`, `root%3A${org}%3Anothere`, vaultPath.replaceAll(':', '%3A'), ['a', 'b', 'c']),
    { label: 'dot-dot segment in the cluster', path: `/clusters/root:${org}:..:${vaultName}/api`, expect: () => 400 },
    { label: 'bad cluster name', path: '/clusters/Hush_Vault/api', expect: () => 400 },
    { label: 'encoded slash', path: `/clusters/${vaultPath}/api/v1/namespaces/nightshade%2fconfigmaps`, expect: () => 400 },
    // A `..` segment is refused as it is sent (test/e2e/bad-input.test.ts), before any workspace is looked at.
    { label: 'dot-dot out of another workspace', path: `/clusters/root:${org}:sibling/../${vaultPath}/api/v1/configmaps`, expect: () => 400 },
    // The shared root: what any authenticated user sees there is filtered to what they may enter.
    { label: 'root workspaces', path: '/clusters/root/apis/tenancy.kcp.io/v1alpha1/workspaces', expect: () => 200 },
    { label: 'org workspaces', path: `/clusters/root:${org}/apis/tenancy.kcp.io/v1alpha1/workspaces`, expect: all403 },
    { label: 'org workspace by name', path: `/clusters/root:${org}/apis/tenancy.kcp.io/v1alpha1/workspaces/${vaultName}`, expect: all403 },
    // The workspace index: everyone gets their own list.
    { label: 'workspace index', path: '/services/workspaces/all/clusters/*/apis/tenancy.kcp.io/v1alpha1/workspaces', expect: () => 200 },
    { label: 'workspace index discovery', path: '/services/workspaces/all/clusters/*/apis', headers: { accept: AGGREGATED }, expect: () => 200 },
  ];
}

/** Bare server URL (no /clusters/): token users reach no cluster; a service account reaches its own. */
function bareProbes(): Probe[] {
  const own = (who: Who) => (who === 'c' || who === 'd' ? 200 : 403);
  return [
    // The shard's metrics count every tenant's requests: being admin of one's own home does not open them.
    { label: 'metrics in user-1’s home', path: `/clusters/user:${users.user1.name}/metrics`, expect: (who) => (who === 'a' ? 404 : 403) },
    { label: 'metrics in the sibling', path: `/clusters/${siblingPath}/metrics`, expect: (who) => (who === 'a' ? 403 : 404) },
    { label: 'bare /api', path: '/api', expect: own },
    { label: 'bare /apis', path: '/apis', headers: { accept: AGGREGATED }, expect: own },
    { label: 'bare configmaps', path: '/api/v1/configmaps', expect: own },
    // A service account's bare URL is its own workspace, where the shard's metrics are not served.
    { label: 'bare /metrics', path: '/metrics', expect: (who) => (who === 'c' || who === 'd' ? 404 : 403) },
  ];
}

async function ask(who: Who, path: string, probe: Pick<Probe, 'method' | 'headers' | 'body'>): Promise<HttpAnswer> {
  const opts: HttpOptions = { method: probe.method ?? 'GET', headers: probe.headers, body: probe.body, token: tokenOf(who) };
  return apiRequest(e2e.server, path, opts);
}

function leaksIn(who: Who, text: string, sent: string, showsApis = false): string[] {
  const allowed = new Set([...known(who), ...(who === 'd' && showsApis ? apiCanaries : [])]);
  return canaries().filter((c) => c && !allowed.has(c) && !sent.includes(c) && text.includes(c));
}

interface Finding {
  who: Who;
  probe: string;
  problem: string;
}

/** Runs the probes for one requester (a few at a time) and returns what went wrong. */
async function walk(who: Who, probes: Probe[]): Promise<Finding[]> {
  const findings: Finding[] = [];
  const queue = [...probes];
  const worker = async () => {
    for (let probe = queue.shift(); probe; probe = queue.shift()) {
      const answer = await ask(who, probe.path, probe);
      const note = (problem: string) => findings.push({ who, probe: `${probe.label} (${probe.method ?? 'GET'} ${probe.path})`, problem });
      const expected = probe.expect(who);
      if (answer.status !== expected) note(`status ${answer.status}, expected ${expected}: ${answer.body.slice(0, 300)}`);
      const leaked = leaksIn(who, answer.body, sentText(probe.path, probe), probe.showsApis);
      if (leaked.length > 0) note(`body names ${leaked.join(', ')}: ${answer.body.slice(0, 300)}`);
      if (probe.twin && probe.hiddenFrom?.includes(who)) {
        const twin = await ask(who, probe.twin.path, probe);
        const same = twin.body.replaceAll(probe.twin.fake, probe.twin.real).replaceAll(decodeURIComponent(probe.twin.fake), decodeURIComponent(probe.twin.real));
        if (twin.status !== answer.status || same !== answer.body) {
          note(`differs from a missing one (${twin.status}: ${twin.body.slice(0, 200)}) vs (${answer.status}: ${answer.body.slice(0, 200)})`);
        }
      }
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
  return findings;
}

function matrix(requesters: Who[]): Promise<Finding[]>[] {
  return requesters.map((who) => {
    const hiddenFrom: Who[] = who === 'd' ? [] : [who];
    const probes = [
      ...workspaceProbes(vaultPath, `root:${org}:nothere`, hiddenFrom),
      ...workspaceProbes(tree.vaultCluster, 'zzzzzzzzzzzzzzzz', hiddenFrom),
      ...wildcardProbes(),
      ...lifecycleProbes(),
      ...edgeProbes(),
      ...bareProbes(),
    ];
    return walk(who, probes);
  });
}


async function workspaceIn(parent: string, name: string, phase: string, type?: Json): Promise<string> {
  await adminCreate(parent, '/apis/tenancy.kcp.io/v1alpha1/workspaces', {
    apiVersion: 'tenancy.kcp.io/v1alpha1',
    kind: 'Workspace',
    metadata: { name },
    ...(type ? { spec: { type } } : {}),
  });
  return eventually(`${parent}:${name} ${phase}`, async () => {
    const ws = (await admin(`/clusters/${parent}/apis/tenancy.kcp.io/v1alpha1/workspaces/${name}`)).json();
    return ws.status?.phase === phase ? (ws.spec.cluster as string) : undefined;
  });
}

const rbac = '/apis/rbac.authorization.k8s.io/v1';
const roleRef = (name: string, kind = 'ClusterRole') => ({ apiGroup: 'rbac.authorization.k8s.io', kind, name });
const serviceAccountSubject = { kind: 'ServiceAccount', name: SA, namespace: 'default' };

function bindClusterRole(cluster: string, name: string, role: string, subject: Json): Promise<Json> {
  return adminCreate(cluster, `${rbac}/clusterrolebindings`, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name },
    roleRef: roleRef(role),
    subjects: [subject],
  });
}

/** The vault, its sibling and the homes the probes name. */
async function buildVault(): Promise<void> {
  await workspaceIn('root', org, 'Ready');
  [tree.vaultCluster, tree.siblingCluster] = await Promise.all([
    workspaceIn(`root:${org}`, vaultName, 'Ready'),
    workspaceIn(`root:${org}`, 'sibling', 'Ready'),
  ]);
  const v = vaultPath;
  await adminCreate(v, '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `hushwidgets.${GROUP}` },
    spec: {
      group: GROUP,
      names: { kind: 'HushWidget', plural: 'hushwidgets', singular: 'hushwidget', listKind: 'HushWidgetList' },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } },
        },
      ],
    },
  });
  await adminCreate(v, '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'nightshade', labels: { clearance: 'ultraviolet' } } });
  await eventually('the CRD served', async () => ((await admin(`/clusters/${v}/apis/${GROUP}/v1`)).status === 200 ? true : undefined));
  const ns = '/api/v1/namespaces/nightshade';
  await Promise.all([
    adminCreate(v, `${ns}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'moonlit-cm', labels: { clearance: 'ultraviolet' } }, data: { codeword: 'orchid-velvet' } }),
    adminCreate(v, `${ns}/secrets`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'shadow-secret' }, stringData: { password: secretValue } }),
    adminCreate(v, `/apis/${GROUP}/v1/namespaces/nightshade/hushwidgets`, {
      apiVersion: `${GROUP}/v1`,
      kind: 'HushWidget',
      metadata: { name: 'whisper-widget', labels: { clearance: 'ultraviolet' } },
      spec: { replicas: 2, payload: 'obsidian-lantern' },
    }),
    adminCreate(v, `${rbac}/namespaces/nightshade/roles`, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'covert-reader' },
      rules: [{ apiGroups: [''], resources: ['secrets'], resourceNames: ['shadow-secret'], verbs: ['get'] }],
    }),
    adminCreate(v, `${rbac}/namespaces/nightshade/rolebindings`, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'covert-binding' },
      roleRef: roleRef('covert-reader', 'Role'),
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'ultraviolet-auditor' }],
    }),
    adminCreate(v, `${rbac}/clusterroles`, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'covert-clusterrole' },
      rules: [{ apiGroups: [GROUP], resources: ['hushwidgets'], verbs: ['*'] }],
    }),
    // The vault's own service account, named like the sibling's, may do anything in the vault.
    adminCreate(v, '/api/v1/namespaces/default/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: SA } }),
    bindClusterRole(v, 'phantom-admin', 'cluster-admin', serviceAccountSubject),
    adminCreate(v, '/apis/tenancy.kcp.io/v1alpha1/workspacetypes', {
      apiVersion: 'tenancy.kcp.io/v1alpha1',
      kind: 'WorkspaceType',
      metadata: { name: 'stealth-type' },
      spec: { initializer: true, terminator: true, extend: { with: [{ name: 'universal', path: 'root' }] } },
    }),
  ]);
  tree.pendingCluster = await workspaceIn(v, 'pending-child', 'Initializing', { name: 'stealth-type', path: v });

  // The sibling: user-2 administers it; its service account of the same name may do anything there too.
  const s = siblingPath;
  await Promise.all([
    bindClusterRole(s, 'user-2-admin', 'cluster-admin', { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: users.user2.name }),
    adminCreate(s, '/api/v1/namespaces/default/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: SA } }),
    bindClusterRole(s, 'sibling-robot-admin', 'cluster-admin', serviceAccountSubject),
    // kcp-admin's home exists, so probing it is probing something real; so does user-1's.
    admin('/clusters/root/apis/tenancy.kcp.io/v1alpha1/workspaces/~'),
    eventually('user-1’s home', async () => {
      const home = await apiRequest(e2e.server, '/clusters/root/apis/tenancy.kcp.io/v1alpha1/workspaces/~', { token: users.user1.token });
      return home.status === 200 ? true : undefined;
    }),
  ]);
  const token = await adminCreate(s, `/api/v1/namespaces/default/serviceaccounts/${SA}/token`, {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenRequest',
    spec: { expirationSeconds: 3600 },
  });
  tree.saToken = token.status.token;
}

// ---------------------------------------------------------------------------------------------------- the matrix

const AGGREGATED_V2 = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json';
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

/** The matrix's workspaces in root (root:tenant-a, root:tenant-b, root:provider below), named for this run. */
const [tenantA, tenantB, providerWs] = [uniqueName('tenant-a'), uniqueName('tenant-b'), uniqueName('provider')];

/** What the fixture learns: cluster names (markers too) and the service accounts' tokens. */
const fx = { a: '', b: '', inner: '', provider: '', saBToken: '', providerToken: '', earlyRevision: '' };

function principalToken(p: Principal): string {
  if (p === 'none') return users.user3.token;
  if (p === 'adminA') return users.user4.token;
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
    { family: 'discovery', rel: '/apis', ok: 200, headers: { accept: AGGREGATED_V2 } },
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
      { family: 'direct', x: `root:${tenant === 'a' ? tenantA : tenantB}`, fake: undefined },
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
  rows.push({ principal: p, family: 'wildcard/discovery', path: '/clusters/*/apis', headers: { accept: AGGREGATED_V2 }, expected: 403, allowed: [] });
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
      path: `/clusters/root:${tenantA}:inner${rel}`,
      expected: 403,
      allowed: [],
      twin: conceal ? { path: `/clusters/root:${tenantA}:inner-gone${rel}`, real: `root:${tenantA}:inner`, fake: `root:${tenantA}:inner-gone` } : undefined,
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
    { principal: p, family: 'apiexport/discovery', path: `${base}/*/apis`, headers: { accept: AGGREGATED_V2 }, expected: isProvider ? 200 : 403, allowed: [] },
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
    { principal: p, family: 'apiexport/other', path: `/services/apiexport/root:${tenantA}/${EXPORT}/clusters/*/api/v1/secrets`, expected: p === 'adminA' ? 404 : 403, allowed: [] },
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
    const ws = `/clusters/root:${tenant === 'a' ? tenantA : tenantB}`;
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
      row('path', 'PATCH', `${lc}/cluster`, system('kcp.io/path'), `{"metadata":{"annotations":{"kcp.io/path":"root:${providerWs}"}}}`, merge),
      row('path', 'PATCH', `${lc}/cluster?dryRun=All`, system('kcp.io/path'), '[{"op":"remove","path":"/metadata/annotations/kcp.io~1path"}]', json),
      row('api set', 'PATCH', `${lc}/cluster`, system('internal.kcpt.dev/apis'), '{"metadata":{"annotations":{"internal.kcpt.dev/apis":"tenancy.kcp.io,shards.core.kcp.io"}}}', strategic),
      row('type', 'PATCH', `${lc}/cluster?fieldManager=m&force=true`, system('internal.tenancy.kcp.io/type'), 'apiVersion: core.kcp.io/v1alpha1\nkind: LogicalCluster\nmetadata:\n  name: cluster\n  annotations:\n    internal.tenancy.kcp.io/type: root:root\n', apply),
      row('object cap', 'PATCH', `${lc}/cluster`, 'modification of admin-reserved annotation: "core.kcp.io/max-total-objects"', '{"metadata":{"annotations":{"core.kcp.io/max-total-objects":"99999999"}}}', merge),
      row('phase label', 'PATCH', `${lc}/cluster`, system('tenancy.kcp.io/phase', 'label'), '{"metadata":{"labels":{"tenancy.kcp.io/phase":"Initializing"}}}', merge),
      row('spec', 'PATCH', `${lc}/cluster`, 'spec.initializers is immutable', `{"spec":{"initializers":["root:${tenantB}:gate"]}}`, merge),
      row('status', 'PATCH', `${lc}/cluster/status`, 'status.initializers do not equal spec.initializers', `{"status":{"phase":"Initializing","initializers":["root:${tenantA}:gate-type"]}}`, merge),
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
    { principal: p, family: 'bare/discovery', path: '/apis', headers: { accept: AGGREGATED_V2 }, expected: p === 'saB' || p === 'provider' ? 200 : 403, allowed: [] },
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
    `/clusters/root:${tenantA}/api/v1/secrets`,
    `/clusters/${fx.a}/api/v1/namespaces/ns-a/secrets/secret-garnet-a3`,
    `/clusters/root:${tenantB}/api/v1/secrets`,
    `/clusters/*/api/v1/secrets`,
    `/clusters/*/api/v1/configmaps${watchRv0Q}`,
    '/api/v1/secrets',
    '/services/workspaces/all/clusters/*/apis/tenancy.kcp.io/v1alpha1/workspaces',
    `/services/apiexport/${fx.provider}/${EXPORT}/clusters/*/apis/${EXPORT_GROUP}/v1/${EXPORT}`,
    `/services/initializingworkspaces/root:${tenantA}:gate-type/clusters/*/apis/core.kcp.io/v1alpha1/logicalclusters`,
    `/clusters/user:${users.user4.name}/api/v1/secrets`,
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
    const base = `/services/${vw}/root:${tenantA}:gate-type/clusters`;
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
    { principal: p, family: 'root/workspaces', path: `${rootWs}/${tenantB}`, expected: 200, allowed: [fx.b] },
    // tenant-a's own children: only its admin may list them.
    { principal: p, family: 'direct/nested', path: `/clusters/root:${tenantA}/apis/tenancy.kcp.io/v1alpha1/workspaces`, expected: p === 'adminA' ? 200 : 403, allowed: p === 'adminA' ? [fx.a, fx.inner] : [] },
    { principal: p, family: 'direct/nested', path: `/clusters/root:${tenantA}/apis/tenancy.kcp.io/v1alpha1/workspaces${watchRv0Q}`, expected: p === 'adminA' ? 200 : 403, allowed: p === 'adminA' ? [fx.a, fx.inner] : [] },
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
    row('direct', `/clusters/root:${tenantA}/api/v1/configmaps${q}`, a ? 200 : refused, seesA, ['cm-opal-late-a8', 'value-opal-late-3b']),
    row('by cluster name', `/clusters/${fx.a}/apis/${PRIVATE_GROUP}/v1/zirconites${q}`, a ? 200 : refused, seesA, ['cr-zircon-late-a2']),
    row('direct', `/clusters/root:${tenantA}/apis/${EXPORT_GROUP}/v1/${EXPORT}${q}`, a ? 200 : refused, bound, ['gizmo-beryl-late-a9']),
    row('direct', `/clusters/root:${tenantB}/api/v1/configmaps${q}`, b ? 200 : refused, seesB, ['cm-coral-late-b9']),
    row('bare', `/api/v1/configmaps${q}`, b ? 200 : refused, seesB, ['value-coral-late-5d']),
    row('wildcard', `/clusters/*/api/v1/configmaps${q}`, refused, [], []),
    row('apiexport', `${vw}/*/apis/${EXPORT_GROUP}/v1/${EXPORT}${q}`, p === 'provider' ? 200 : refused, bound, ['gizmo-beryl-late-a9']),
    // Configmaps are not claimed by the export: not even the provider has them.
    row('apiexport', `${vw}/*/api/v1/configmaps${q}`, p === 'provider' ? 404 : refused, [], []),
    row('index', `/services/workspaces/all/clusters/*/apis/tenancy.kcp.io/v1alpha1/workspaces${q}`, 200, enters, []),
  ];
}

async function writeLateMarkers(): Promise<void> {
  const a = `root:${tenantA}`;
  const b = `root:${tenantB}`;
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

async function askAs(p: Principal, path: string, headers?: Record<string, string>, write?: Pick<Row, 'method' | 'body' | 'contentType'>): Promise<HttpAnswer> {
  if (!write?.method) return apiRequest(e2e.server, path, { token: principalToken(p), headers });
  const sent = write.body !== undefined ? { body: write.body, headers: { ...headers, 'content-type': write.contentType ?? 'application/json' } } : { headers };
  return apiRequest(e2e.server, path, { token: principalToken(p), method: write.method, ...sent });
}


/** The body with its continue tokens decoded: a token is opaque to the client but carries a storage key. */
function readable(body: string): string {
  const tokens = [...body.matchAll(/"continue":"([^"]+)"/g)].map((m) => Buffer.from(m[1]!, 'base64url').toString('utf8'));
  return [body, ...tokens].join('\n');
}

/** Markers in `body` the row does not allow and the request did not name. */
function leaked(body: string, row: Pick<Row, 'allowed' | 'path' | 'headers'>, all: string[]): string[] {
  const sent = sentText(row.path, { headers: row.headers });
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
      const answer = await askAs(row.principal, row.path, row.headers, row);
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
        const twin = await askAs(row.principal, row.twin.path, row.headers);
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


/** The tenants, the provider and their markers. */
async function buildMatrix(): Promise<void> {
  [fx.a, fx.b, fx.provider] = await Promise.all([workspaceIn('root', tenantA, 'Ready'), workspaceIn('root', tenantB, 'Ready'), workspaceIn('root', providerWs, 'Ready')]);
  const a = `root:${tenantA}`;
  const b = `root:${tenantB}`;
  const p = `root:${providerWs}`;

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
  await bindClusterRole(p, 'gizmo-content', 'gizmo-content', saSubject('gizmo-controller'));

  // tenant-a: admin user-4, a private CRD, the bound export, and the markers.
  await Promise.all([
    bindClusterRole(a, 'user-4-admin', 'cluster-admin', { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: users.user4.name }),
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
  fx.inner = await workspaceIn(a, 'inner', 'Ready');
  await adminCreate(a, '/apis/tenancy.kcp.io/v1alpha1/workspacetypes', {
    apiVersion: 'tenancy.kcp.io/v1alpha1',
    kind: 'WorkspaceType',
    metadata: { name: 'gate-type' },
    spec: { initializer: true, terminator: true, extend: { with: [{ name: 'universal', path: 'root' }] } },
  });
  await adminCreate(`${a}:inner`, '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm-jade-i5' }, data: { k: 'value-jade-62e' } });

  fx.saBToken = await serviceAccountToken(b, 'robot-b');
  await Promise.all([bindClusterRole(b, 'robot-b-admin', 'cluster-admin', saSubject('robot-b')), adminCreate(b, '/api/v1/namespaces', namespace('ns-b'))]);
  await Promise.all([
    adminCreate(b, '/api/v1/namespaces/ns-b/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm-topaz-b2' }, data: { k: 'value-topaz-4c8' } }),
    adminCreate(b, '/api/v1/namespaces/ns-b/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'secret-onyx-b6' }, stringData: { password: 'pw-onyx-0d9' } }),
  ]);

  fx.earlyRevision = (await admin(`/clusters/root:${tenantB}/api/v1/namespaces/ns-b/configmaps/cm-topaz-b2`)).json().metadata.resourceVersion;
  // Everyone's RBAC and the provider's virtual workspace are live before the walk.
  await eventually('user-4 reads tenant-a', async () => ((await askAs('adminA', `/clusters/${a}/api/v1/configmaps`)).status === 200 ? true : undefined));
  await eventually('robot-b reads tenant-b', async () => ((await askAs('saB', `/clusters/${b}/api/v1/secrets`)).status === 200 ? true : undefined));
  // The token users' homes exist before the walk: the first `~` creates one and may answer 429 "Creating the home
  // workspace" until it is Ready (how long that takes depends on the load, not on isolation).
  for (const p of ['none', 'adminA'] as const) {
    await eventually(`${p}'s home`, async () => ((await askAs(p, '/clusters/root/apis/tenancy.kcp.io/v1alpha1/workspaces/~')).status === 200 ? true : undefined));
  }
  await eventually('the provider reads the ConfigMap tenant-a shares', async () =>
    (await askAs('provider', `/services/apiexport/${fx.provider}/${CLAIMS_EXPORT}/clusters/*/api/v1/configmaps`)).body.includes('cm-shared-lapis-a5') ? true : undefined,
  );
  await eventually('the provider lists gizmos', async () =>
    (await askAs('provider', `/services/apiexport/${fx.provider}/${EXPORT}/clusters/*/apis/${EXPORT_GROUP}/v1/${EXPORT}`)).body.includes('gizmo-beryl-a4') ? true : undefined,
  );
}

// ---------------------------------------------------------------------------------------------------- the tests

beforeAll(async () => {
  await Promise.all([buildVault(), buildMatrix()]);
}, 180_000);

function report(findings: Finding[]): string {
  return findings.map((f) => `(${f.who}) ${f.probe}: ${f.problem}`).join('\n');
}

describe('an outsider learns nothing about the vault', () => {
  it('through any endpoint, as a user without access, a sibling’s admin and a sibling’s service account', async () => {
    const findings = (await Promise.all(matrix(['a', 'b', 'c']))).flat();
    expect(report(findings)).toBe('');
  }, 120_000);

  it('through watches, while kcp-admin writes new secrets into the vault', async () => {
    const watches = [
      `/clusters/${vaultPath}/api/v1/configmaps`,
      `/clusters/${tree.vaultCluster}/api/v1/namespaces/nightshade/configmaps`,
      '/clusters/*/api/v1/configmaps',
      `/clusters/*/apis/${GROUP}/v1/hushwidgets`,
      '/clusters/*/apis/tenancy.kcp.io/v1alpha1/workspaces',
      '/clusters/root/apis/tenancy.kcp.io/v1alpha1/workspaces',
      `/clusters/${vaultPath}/apis/tenancy.kcp.io/v1alpha1/workspaces`,
      '/services/workspaces/all/clusters/*/apis/tenancy.kcp.io/v1alpha1/workspaces',
      `/services/initializingworkspaces/${vaultPath}:stealth-type/clusters/*/apis/core.kcp.io/v1alpha1/logicalclusters`,
    ];
    const streams = (['a', 'b', 'c'] as Who[]).flatMap((who) =>
      watches.map(async (path) => {
        const answer = await ask(who, `${path}?watch=1&timeoutSeconds=3&allowWatchBookmarks=true`, {});
        return { who, path, answer };
      }),
    );
    await sleep(500);
    await adminCreate(vaultPath, '/api/v1/namespaces/nightshade/configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'latecomer-cm' },
      data: { ink: 'midnight-ink' },
    });
    await adminCreate(vaultPath, `/apis/${GROUP}/v1/namespaces/nightshade/hushwidgets`, {
      apiVersion: `${GROUP}/v1`,
      kind: 'HushWidget',
      metadata: { name: 'latecomer-cm' },
      spec: { payload: 'midnight-ink' },
    });
    const findings: Finding[] = [];
    for (const { who, path, answer } of await Promise.all(streams)) {
      const open = path.startsWith('/services/workspaces/') || path === '/clusters/root/apis/tenancy.kcp.io/v1alpha1/workspaces';
      if (answer.status !== (open ? 200 : 403)) findings.push({ who, probe: `watch ${path}`, problem: `status ${answer.status}: ${answer.body.slice(0, 200)}` });
      const leaked = leaksIn(who, answer.body, path);
      if (leaked.length > 0) findings.push({ who, probe: `watch ${path}`, problem: `stream names ${leaked.join(', ')}` });
    }
    expect(report(findings)).toBe('');
  }, 60_000);

  it('nor with kubectl, as users type it', async () => {
    const as = (who: Who, server: string) => (args: string[]) =>
      kubectl(e2e.server, ['--context', 'root', '--token', tokenOf(who), '--server', `${e2e.server.url}${server}`, ...args], { reject: false });
    const runs = await Promise.all([
      as('a', `/clusters/${vaultPath}`)(['get', 'configmaps', '-n', 'nightshade']),
      as('a', `/clusters/${tree.vaultCluster}`)(['api-resources']),
      as('b', `/clusters/root:${org}`)(['get', 'workspaces']),
      as('c', `/clusters/${vaultPath}`)(['get', 'secrets', '-A', '-o', 'yaml']),
    ]);
    const [cms, resources, workspaces, secrets] = runs;
    // kubectl prints no message for a refused discovery.
    expect(cms!.stderr).toContain('Error from server (Forbidden)');
    expect(resources!.exitCode).not.toBe(0);
    expect(workspaces!.stderr).toContain('Error from server (Forbidden)');
    expect(secrets!.exitCode).not.toBe(0);
    const who: Who[] = ['a', 'a', 'b', 'c'];
    runs.forEach((run, i) => expect(leaksIn(who[i]!, run.stdout + run.stderr, run.command)).toEqual([]));
    // The workspace index shows the sibling's admin, of this file's workspaces, the sibling only (other files on a
    // shared server let user-2 into workspaces of theirs).
    const index = await as('b', '/services/workspaces/all/clusters/*')(['get', 'workspaces', '-o', 'jsonpath={range .items[*]}{.metadata.annotations.kcp\\.io/path}{"\\n"}{end}']);
    expect(index.exitCode, index.stderr).toBe(0);
    const ours = index.stdout.split('\n').filter((path) => path === `root:${org}` || path.startsWith(`root:${org}:`));
    expect(ours).toEqual([siblingPath]);
  }, 60_000);

  it('not even with a home: a foreign service account has none (it would be shared by every foreign account)', async () => {
    const answer = await ask('c', '/clusters/root/apis/tenancy.kcp.io/v1alpha1/workspaces/~', {});
    expect(answer.status).toBe(403);
    expect(answer.json().message).toBe(
      'workspaces.tenancy.kcp.io "~" is forbidden: User "system:anonymous" cannot create resource "workspaces" in API group "tenancy.kcp.io" at the cluster scope: workspace access not permitted',
    );
  });

  it('nor from workspace types: a type in the vault is as unknown as a missing one, and the vault’s namesake account lends nothing', async () => {
    // user-1 in their home; the sibling's account in the sibling, where it may create workspaces.
    const create = (who: Who, cluster: string, type: string) =>
      ask(who, `/clusters/${cluster}/apis/tenancy.kcp.io/v1alpha1/workspaces`, {
        method: 'POST',
        ...json({ apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name: `typed-${who}` }, spec: { type: { name: type, path: vaultPath } } }),
      });
    for (const [who, cluster] of [
      ['a', `user:${users.user1.name}`],
      ['c', siblingPath],
    ] as [Who, string][]) {
      const real = await create(who, cluster, 'stealth-type');
      const missing = await create(who, cluster, 'nope-type');
      expect(real.status).toBe(403);
      expect(real.body).toBe(missing.body.replaceAll('nope-type', 'stealth-type'));
    }
  });
});

describe('with workspace access granted to the sibling’s accounts, but no RBAC', () => {
  it('the service account enters the vault and still reads nothing of its content', async () => {
    await bindClusterRole(vaultPath, 'sibling-access', 'system:kcp:workspace:access', {
      kind: 'Group',
      apiGroup: 'rbac.authorization.k8s.io',
      name: `system:cluster:${tree.siblingCluster}`,
    });
    await eventually('access for the sibling', async () => ((await ask('d', `/clusters/${vaultPath}/api`, {})).status === 200 ? true : undefined));
    const [findings] = await Promise.all(matrix(['d']));
    expect(report(findings!)).toBe('');
  }, 120_000);
});

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
    const asAdminA = e2e.asUser(users.user4.token, `root:${tenantA}`);
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
    const before = await Promise.all([tenantA, tenantB].map(essence));
    const rows = principals.flatMap(reservedWriteRows);
    const outcome = await run(rows, 4);
    console.log(`isolation matrix, reserved writes: ${rows.length} rows, ${outcome.checks} checks; wrong answers: ${outcome.wrongStatus.length}`);
    const after = await Promise.all([tenantA, tenantB].map(essence));
    const shared = (await admin(`/clusters/root:${tenantA}/api/v1/namespaces/ns-a/configmaps/cm-shared-lapis-a5`)).json();
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
    const unlabelled = (await admin(`/clusters/root:${tenantA}/api/v1/namespaces/ns-a/configmaps/cm-amethyst-a7`)).json();
    const report = [
      ...outcome.leaks.map((l) => `LEAK ${l}`),
      ...outcome.wrongStatus.map((w) => `STATUS ${w}`),
      ...(JSON.stringify([unlabelled.metadata.labels, unlabelled.data]) === JSON.stringify([undefined, { k: 'value-amethyst-9f1' }]) ? [] : [`CHANGED cm-amethyst-a7: ${JSON.stringify(unlabelled)}`]),
      ...((await admin(`/clusters/root:${tenantA}/api/v1/namespaces/ns-a/configmaps/planted-a`)).status === 404 ? [] : ['PLANTED planted-a']),
      ...((await admin(`/clusters/root:${tenantA}/api/v1/namespaces/ns-a/configmaps/cm-shared-lapis-a5`)).status === 404 ? [] : ['NOT DELETED cm-shared-lapis-a5 (the provider’s allowed delete-collection)']),
    ];
    expect(report.join('\n')).toBe('');
  }, 60_000);
});
