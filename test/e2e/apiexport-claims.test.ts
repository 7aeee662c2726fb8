/**
 * Permission claims against a hostile provider, through the APIExport virtual workspace on the consumer's shard (one
 * server; or, sharded, the export on root and each consumer on another shard in turn). Alice (user-1) is admin of her provider workspace and exports a
 * resource with a `configmaps` claim; Bob (user-2) is admin of his workspace and accepts the claim for objects
 * labelled share=yes only. Bob's namespace holds `shared` (labelled) and `private` (not, with a password in it).
 * Every verb alice has through the view — get, list, watch, create, update, each patch type, apply, delete and
 * delete-collection, dry run or not — must reach exactly what the accepted claim selects, with kcp's answers; and an
 * export whose claim widens after Bob accepted it (the verbs `kcpt bind` recorded) gets nothing more.
 *
 * Each test has its own provider and consumer workspaces.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { apiRequest, openWatch, type HttpAnswer } from '../helpers/http.js';
import { runKcpt } from '../helpers/cli.js';
import { apiBinding, apiExport, resourceSchema } from './apis-fixtures.js';
import { eventually, users, useTenancyServer, type Json } from './tenancy-fixtures.js';

const e2e = useTenancyServer();
const alice = users.user1;
const bob = users.user2;
const SECRET = 'bob-password-7f3e';

/** Shard → the URL it serves virtual workspaces at. */
const virtualWorkspaceUrls = new Map<string, string>();

beforeAll(async () => {
  const shards = (await http('GET', '/clusters/root/apis/core.kcp.io/v1alpha1/shards')).json().items as Json[];
  for (const shard of shards) virtualWorkspaceUrls.set(shard.metadata.name, shard.spec.virtualWorkspaceURL ?? shard.spec.baseURL);
}, 60_000);

function http(method: string, path: string, body?: unknown, opts: { token?: string; contentType?: string } = {}): Promise<HttpAnswer> {
  const text = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  const headers: Record<string, string> = text === undefined ? {} : { 'content-type': opts.contentType ?? 'application/json' };
  return apiRequest(e2e.server, path, { method, headers, ...(text !== undefined ? { body: text } : {}), ...(opts.token ? { token: opts.token } : {}) });
}

async function ok(method: string, path: string, body?: unknown, opts: { token?: string; contentType?: string } = {}): Promise<Json> {
  const answer = await http(method, path, body, opts);
  if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${answer.body}`);
  return answer.json();
}

/** A Ready workspace under root, on `shard` when given. */
async function readyWorkspace(name: string, shard?: string): Promise<{ path: string; cluster: string; shard: string }> {
  const location = shard ? { location: { selector: { matchLabels: { name: shard } } } } : {};
  await ok('POST', '/clusters/root/apis/tenancy.kcp.io/v1alpha1/workspaces', { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name }, spec: location });
  const ws = await eventually(`root:${name} Ready`, async () => {
    const got = (await http('GET', `/clusters/root/apis/tenancy.kcp.io/v1alpha1/workspaces/${name}`)).json();
    return got.status?.phase === 'Ready' ? got : undefined;
  });
  return { path: `root:${name}`, cluster: ws.spec.cluster, shard: ws.metadata.annotations['core.kcp.io/shard'] };
}

const admin = (user: string): Json => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRoleBinding',
  metadata: { name: `${user}-admin` },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
  subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
});

const ALL_VERBS = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];
const SHARE = { matchLabels: { share: 'yes' } };

interface Tenants {
  provider: string;
  consumer: string;
  exportName: string;
  /** `<the consumer's shard's virtual workspace>/services/apiexport/<provider>/<export>/clusters/<consumer>` */
  vw: string;
  /** Bob's ConfigMaps collection, and one of them, through the view. */
  cms: string;
  cm(name: string): string;
}

let counter = 0;

/**
 * Alice's provider workspace exporting `widgets` with a configmaps claim of `verbs`, Bob's workspace binding it (his
 * binding accepting the claim with `selector`, unless `bind` is false), `bobns` with `shared` (share=yes) and
 * `private` (unlabelled, holding the password).
 */
async function tenants(verbs: string[] = ALL_VERBS, selector: Json = SHARE, bind = true): Promise<Tenants> {
  const n = counter++;
  const id = `${process.pid.toString(36)}${n.toString(36)}`;
  // Sharded: the export on root, the consumer (and so the view serving it) on another shard, each in turn.
  const others = [...virtualWorkspaceUrls.keys()].filter((s) => s !== 'root').sort();
  const [p, c] = await Promise.all([
    readyWorkspace(`alice-${id}`, others.length > 0 ? 'root' : undefined),
    readyWorkspace(`bob-${id}`, others.length > 0 ? others[n % others.length] : undefined),
  ]);
  await Promise.all([ok('POST', `/clusters/${p.path}/apis/rbac.authorization.k8s.io/v1/clusterrolebindings`, admin(alice.name)), ok('POST', `/clusters/${c.path}/apis/rbac.authorization.k8s.io/v1/clusterrolebindings`, admin(bob.name))]);
  const asAlice = { token: alice.token };
  const asBob = { token: bob.token };
  await eventually('alice is admin of her workspace', async () => ((await http('GET', `/clusters/${p.path}/api/v1/namespaces`, undefined, asAlice)).status === 200 ? true : undefined));
  await ok('POST', `/clusters/${p.path}/apis/apis.kcp.io/v1alpha1/apiresourceschemas`, resourceSchema({ group: 'claims.example.io', plural: 'widgets', kind: 'Widget' }), asAlice);
  await ok('POST', `/clusters/${p.path}/apis/apis.kcp.io/v1alpha2/apiexports`, apiExport({ name: 'widgets', group: 'claims.example.io', plural: 'widgets', permissionClaims: [{ group: '', resource: 'configmaps', verbs }] }), asAlice);
  await ok('POST', `/clusters/${p.path}/apis/rbac.authorization.k8s.io/v1/clusterroles`, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'bind-widgets' },
    rules: [{ apiGroups: ['apis.kcp.io'], resources: ['apiexports'], resourceNames: ['widgets'], verbs: ['bind'] }],
  }, asAlice);
  await ok('POST', `/clusters/${p.path}/apis/rbac.authorization.k8s.io/v1/clusterrolebindings`, { ...admin(bob.name), metadata: { name: 'bob-binds' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'bind-widgets' } }, asAlice);
  await eventually('bob is admin of his workspace', async () => ((await http('GET', `/clusters/${c.path}/api/v1/namespaces`, undefined, asBob)).status === 200 ? true : undefined));
  await ok('POST', `/clusters/${c.path}/api/v1/namespaces`, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bobns' } }, asBob);
  const cmsOf = `/clusters/${c.path}/api/v1/namespaces/bobns/configmaps`;
  await ok('POST', cmsOf, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'shared', labels: { share: 'yes' } }, data: { k: 'visible' } }, asBob);
  await ok('POST', cmsOf, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'private' }, data: { password: SECRET } }, asBob);
  if (bind) {
    const binding = apiBinding('widgets', 'widgets', { exportPath: p.path, permissionClaims: [{ group: '', resource: 'configmaps', verbs, state: 'Accepted', selector }] });
    await eventually('bob binds', async () => ((await http('POST', `/clusters/${c.path}/apis/apis.kcp.io/v1alpha2/apibindings`, binding, asBob)).status === 201 ? true : undefined));
    await boundAndApplied(c.path);
  }
  const vw = `${virtualWorkspaceUrls.get(c.shard)}/services/apiexport/${p.cluster}/widgets/clusters/${c.cluster}`;
  const cms = `${vw}/api/v1/namespaces/bobns/configmaps`;
  return { provider: p.path, consumer: c.path, exportName: 'widgets', vw, cms, cm: (name) => `${cms}/${name}` };
}

/** Bob's binding, once Bound and its claims reconciled (PermissionClaimsApplied set). */
async function boundAndApplied(consumer: string): Promise<Json> {
  return eventually('the binding Bound with its claims applied', async () => {
    const b = (await http('GET', `/clusters/${consumer}/apis/apis.kcp.io/v1alpha2/apibindings/widgets`, undefined, { token: bob.token })).json();
    const applied = (b.status?.conditions as Json[] | undefined)?.some((c) => c.type === 'PermissionClaimsApplied');
    return b.status?.phase === 'Bound' && applied ? b : undefined;
  }, 60_000);
}

/** A request as alice through the view. */
const asAlice = (method: string, url: string, body?: unknown, contentType?: string) => http(method, url, body, { token: alice.token, ...(contentType ? { contentType } : {}) });

/** Bob's ConfigMap as stored (read by Bob in his workspace). */
async function bobsConfigMap(t: Tenants, name: string): Promise<Json | undefined> {
  const answer = await http('GET', `/clusters/${t.consumer}/api/v1/namespaces/bobns/configmaps/${name}`, undefined, { token: bob.token });
  return answer.status === 200 ? answer.json() : undefined;
}

const names = (list: Json) => (list.items as Json[]).map((i) => i.metadata.name).sort();

describe('what a narrowed claim lets the provider read', () => {
  it('GET, LIST and a watch from resourceVersion 0 show only the selected ConfigMap', async () => {
    const t = await tenants();
    expect(names((await asAlice('GET', t.cms)).json())).toEqual(['shared']);
    const got = await asAlice('GET', t.cm('private'));
    expect([got.status, got.json().message]).toEqual([404, 'configmaps "private" not found']);
    const watch = await openWatch(e2e.server, `${t.cms}?watch=true&resourceVersion=0&timeoutSeconds=1`, { token: alice.token });
    await watch.ended;
    expect(watch.events.map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(['ADDED shared']);
    expect(JSON.stringify(watch.events)).not.toContain(SECRET);
  });

  it('delete-collection (dry run and real) lists and deletes only the selected ConfigMap', async () => {
    const t = await tenants();
    const dry = await asAlice('DELETE', `${t.cms}?dryRun=All`);
    expect(dry.status).toBe(200);
    expect(names(dry.json())).toEqual(['shared']);
    expect(dry.body).not.toContain(SECRET);
    const real = await asAlice('DELETE', t.cms);
    expect(names(real.json())).toEqual(['shared']);
    expect(real.body).not.toContain(SECRET);
    expect((await bobsConfigMap(t, 'private'))?.data).toEqual({ password: SECRET });
    expect(await bobsConfigMap(t, 'shared')).toBeUndefined();
  });
});

describe('what a narrowed claim lets the provider write', () => {
  it('create: the selector’s labels are put on, another value is refused as kcp refuses it (also on dry run)', async () => {
    const t = await tenants();
    const created = await asAlice('POST', t.cms, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'by-alice' }, data: { a: '1' } });
    expect(created.status).toBe(201);
    expect(created.json().metadata.labels).toEqual({ share: 'yes' });
    for (const dryRun of ['?dryRun=All', '']) {
      const planted = await asAlice('POST', `${t.cms}${dryRun}`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'planted', labels: { share: 'no' } } });
      expect([planted.status, planted.json().reason, planted.json().message]).toEqual([403, 'Forbidden', 'configmaps "planted" is forbidden: protected label share must have value yes']);
    }
    expect(await bobsConfigMap(t, 'planted')).toBeUndefined();
  });

  it('create under a matchExpressions selector: an object outside it is refused', async () => {
    const t = await tenants(ALL_VERBS, { matchExpressions: [{ key: 'share', operator: 'In', values: ['yes'] }] });
    const outside = await asAlice('POST', t.cms, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'planted' } });
    expect([outside.status, outside.json().message]).toEqual([403, 'configmaps "planted" is forbidden: object does not match required labels']);
    expect(await bobsConfigMap(t, 'planted')).toBeUndefined();
  });

  it('PUT, each patch type and apply of the unselected ConfigMap find nothing; DELETE is refused; it is unchanged', async () => {
    const t = await tenants();
    const put = await asAlice('PUT', t.cm('private'), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'private', labels: { share: 'yes' } }, data: { password: 'stolen' } });
    expect([put.status, put.json().message]).toEqual([404, 'configmaps "private" not found']);
    const patches: Array<[string, string]> = [
      ['application/merge-patch+json', '{"metadata":{"labels":{"share":"yes"}}}'],
      ['application/strategic-merge-patch+json', '{"metadata":{"labels":{"share":"yes"}}}'],
      ['application/json-patch+json', '[{"op":"add","path":"/metadata/labels","value":{"share":"yes"}}]'],
    ];
    for (const [type, patch] of patches) {
      const answer = await asAlice('PATCH', t.cm('private'), patch, type);
      expect([type, answer.status]).toEqual([type, 404]);
      expect(answer.body).not.toContain(SECRET);
    }
    const applied = await asAlice('PATCH', `${t.cm('private')}?fieldManager=alice&force=true`, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: private\ndata:\n  password: stolen\n', 'application/apply-patch+yaml');
    expect([applied.status, applied.json().reason]).toEqual([409, 'AlreadyExists']);
    for (const dryRun of ['?dryRun=All', '']) {
      const deleted = await asAlice('DELETE', `${t.cm('private')}${dryRun}`);
      expect([deleted.status, deleted.json().message]).toEqual([403, 'configmaps "private" is forbidden: object does not match required labels']);
    }
    const after = await bobsConfigMap(t, 'private');
    expect([after?.data, after?.metadata.labels]).toEqual([{ password: SECRET }, undefined]);
  });

  it('an update or patch cannot move a selected ConfigMap out of the selector; a dropped label comes back', async () => {
    const t = await tenants();
    const current = (await asAlice('GET', t.cm('shared'))).json();
    const put = await asAlice('PUT', t.cm('shared'), { ...current, metadata: { ...current.metadata, labels: { share: 'no' } } });
    expect([put.status, put.json().message]).toEqual([403, 'configmaps "shared" is forbidden: protected label share must have value yes']);
    const merge = await asAlice('PATCH', t.cm('shared'), '{"metadata":{"labels":{"share":"no"}}}', 'application/merge-patch+json');
    expect(merge.status).toBe(403);
    const json = await asAlice('PATCH', t.cm('shared'), '[{"op":"replace","path":"/metadata/labels/share","value":"no"}]', 'application/json-patch+json');
    expect(json.status).toBe(403);
    const dropped = await asAlice('PATCH', t.cm('shared'), '{"metadata":{"labels":null},"data":{"k":"edited"}}', 'application/merge-patch+json');
    expect(dropped.status).toBe(200);
    const after = await bobsConfigMap(t, 'shared');
    expect([after?.metadata.labels, after?.data]).toEqual([{ share: 'yes' }, { k: 'edited' }]);
  });
});

describe('a watch through the view', () => {
  it('sees a ConfigMap leave the selector as DELETED with its last shared content, and enter it as ADDED', async () => {
    const t = await tenants();
    const list = (await asAlice('GET', t.cms)).json();
    const watch = await openWatch(e2e.server, `${t.cms}?watch=true&resourceVersion=${list.metadata.resourceVersion}&timeoutSeconds=3`, { token: alice.token });
    const asBob = { token: bob.token };
    const bobs = `/clusters/${t.consumer}/api/v1/namespaces/bobns/configmaps`;
    // Out, with a secret written in the same update; a change while out; back in.
    await ok('PATCH', `${bobs}/shared`, { metadata: { labels: { share: 'no' } }, data: { k: 'after-leaving-7c1' } }, { ...asBob, contentType: 'application/merge-patch+json' });
    await ok('PATCH', `${bobs}/shared`, { data: { k: 'while-out-2b9' } }, { ...asBob, contentType: 'application/merge-patch+json' });
    await ok('PATCH', `${bobs}/private`, { metadata: { labels: { share: 'yes' } } }, { ...asBob, contentType: 'application/merge-patch+json' });
    await watch.ended;
    expect(watch.events.map((e) => [e.type, e.object.metadata.name, e.object.data])).toEqual([
      ['DELETED', 'shared', { k: 'visible' }],
      ['ADDED', 'private', { password: SECRET }],
    ]);
    expect(JSON.stringify(watch.events)).not.toMatch(/after-leaving-7c1|while-out-2b9/);
  });
});

describe('an accepted claim the provider widens', () => {
  it('kcpt bind records the export’s verbs; a widened claim gives nothing until Bob accepts it again, and the binding says so', async () => {
    const t = await tenants(['get', 'list', 'watch'], SHARE, false);
    const bound = await runKcpt(
      ['bind', `${t.provider}:widgets`, '--accept-permission-claim', 'configmaps.core', '--server', e2e.url(t.consumer), '--token', bob.token],
      { ...e2e.server.env, KUBECONFIG: e2e.server.kubeconfig },
    );
    expect(bound.exitCode, bound.stderr).toBe(0);
    const binding = await boundAndApplied(t.consumer);
    expect(binding.spec.permissionClaims).toEqual([{ group: '', resource: 'configmaps', verbs: ['get', 'list', 'watch'], selector: { matchAll: true }, state: 'Accepted' }]);
    expect((await asAlice('GET', t.cm('private'))).status).toBe(200);

    // Alice widens her claim to every verb.
    const exportUrl = `/clusters/${t.provider}/apis/apis.kcp.io/v1alpha2/apiexports/widgets`;
    await ok('PATCH', exportUrl, { spec: { permissionClaims: [{ group: '', resource: 'configmaps', verbs: ['*'] }] } }, { token: alice.token, contentType: 'application/merge-patch+json' });
    const mismatch = await eventually('PermissionClaimsValid False', async () => {
      const b = (await http('GET', `/clusters/${t.consumer}/apis/apis.kcp.io/v1alpha2/apibindings/widgets`, undefined, { token: bob.token })).json();
      const valid = (b.status?.conditions as Json[]).find((c) => c.type === 'PermissionClaimsValid');
      return valid?.status === 'False' ? valid : undefined;
    });
    expect(mismatch).toMatchObject({
      reason: 'PermissionClaimsMismatch',
      severity: 'Warning',
      message: '1 permission claim(s) have mismatched verbs or selectors (showing first 1): configmaps. (verbs: accepted [get list watch], exported [*])',
    });
    const current = (await bobsConfigMap(t, 'private'))!;
    const refused = 'failed to find suitable reason to allow access in APIBinding';
    const put = await asAlice('PUT', t.cm('private'), { ...current, data: { password: 'overwritten' } });
    expect([put.status, put.json().message]).toEqual([403, `configmaps "private" is forbidden: User "${alice.name}" cannot update resource "configmaps" in API group "" in the namespace "bobns": ${refused}`]);
    const post = await asAlice('POST', t.cms, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'planted' } });
    expect([post.status, post.json().message]).toEqual([403, `configmaps is forbidden: User "${alice.name}" cannot create resource "configmaps" in API group "" in the namespace "bobns": ${refused}`]);
    expect((await asAlice('GET', t.cms)).status).toBe(403);
    expect((await bobsConfigMap(t, 'private'))?.data).toEqual({ password: SECRET });

    // Bob accepts the new claim: now it is in force.
    await ok('PATCH', `/clusters/${t.consumer}/apis/apis.kcp.io/v1alpha2/apibindings/widgets`, { spec: { permissionClaims: [{ group: '', resource: 'configmaps', verbs: ['*'], selector: { matchAll: true }, state: 'Accepted' }] } }, { token: bob.token, contentType: 'application/merge-patch+json' });
    await eventually('alice may create once Bob accepted', async () => ((await asAlice('POST', t.cms, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'accepted' } })).status === 201 ? true : undefined));
  });

  it('kcpt bind refuses to accept a claim the export does not make', async () => {
    const t = await tenants(['get'], SHARE, false);
    const refused = await runKcpt(
      ['bind', `${t.provider}:widgets`, '--accept-permission-claim', 'secrets.core', '--server', e2e.url(t.consumer), '--token', bob.token],
      { ...e2e.server.env, KUBECONFIG: e2e.server.kubeconfig },
    );
    // The binding made for the claims is removed, and the error says so (as every failed kcpt bind does).
    expect([refused.exitCode, refused.stderr.trim()]).toEqual([1, 'Error: APIExport "widgets" claims no secrets.core (its claims: configmaps.core) (apibinding widgets deleted again)']);
    // Nothing accepted, nothing left behind.
    expect((await http('GET', `/clusters/${t.consumer}/apis/apis.kcp.io/v1alpha2/apibindings/widgets`, undefined, { token: bob.token })).status).toBe(404);
  });
});
