/**
 * Tenant isolation ("a user without access to a workspace learns nothing about its content through any
 * endpoint"). kcp-admin builds an organisation with two teams; one, the vault, holds a CRD and its CR, a ConfigMap,
 * a Secret, a namespace, RBAC objects, a service account, a WorkspaceType with an initializer and a workspace waiting
 * on it. Their names, data, labels and cluster names are canaries. Then, as
 *   (a) a token user with no access at all,
 *   (b) a token user who administers the sibling team only,
 *   (c) a service account of the sibling (a foreign identity in the vault; the vault has a service account of the
 *       same namespace and name, bound to cluster-admin there, so any confusion of the two shows), and
 *   (d) that token again once the vault grants `system:cluster:<sibling>` workspace access but no RBAC,
 * every endpoint family is walked with raw HTTPS: by path, by cluster name, the `*` wildcard, reads, watches,
 * writes, subresources, discovery, OpenAPI, reviews, /metrics, the lifecycle virtual workspaces, the workspace
 * index, another user's home, malformed paths and impersonation. Every answer must carry the status kcp gives and
 * no canary the request did not itself name; for a workspace the requester cannot see, the answer must be the one
 * a missing workspace gets (so probing tells nothing about existence). Watches run while kcp-admin writes new
 * canaries into the vault. A few real kubectl runs cover what users type.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { apiRequest, type HttpAnswer, type HttpOptions } from '../helpers/http.js';
import { kubectl, sleep } from '../helpers/kubectl.js';
import { eventually, useTenancyServer, users, type Json } from './tenancy-fixtures.js';

const e2e = useTenancyServer();

const AGGREGATED = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';
const GROUP = 'cloak.isolation.example';
const org = 'isolation-org';
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

/** What the request itself said: a canary named there is no leak. */
function sentText(path: string, probe: Pick<Probe, 'headers' | 'body'>): string {
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    // keep the raw path
  }
  return [path, decoded, JSON.stringify(probe.headers ?? {}), probe.body ?? ''].join('\n');
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

const admin = (path: string, opts: HttpOptions = {}) => apiRequest(e2e.server, path, opts);

async function adminCreate(cluster: string, collection: string, obj: Json): Promise<Json> {
  const answer = await admin(`/clusters/${cluster}${collection}`, { method: 'POST', ...json(obj) });
  if (answer.status !== 201 && answer.status !== 200) throw new Error(`creating ${collection} in ${cluster}: ${answer.status} ${answer.body}`);
  return answer.json();
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

beforeAll(async () => {
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
}, 120_000);

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
    // The workspace index and `kubectl get workspaces` in root show the sibling's admin the sibling only.
    const index = await as('b', '/services/workspaces/all/clusters/*')(['get', 'workspaces', '-o', 'jsonpath={.items[*].metadata.name}']);
    expect(index.stdout.trim()).toBe('sibling');
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
