/**
 * A forged workspace path across shards. Another shard resolves `root:prov` through the `kcp.io/path` exports carry
 * (the README's "API sharing across shards"), so a path a tenant could write would bind someone else's consumers to
 * the tenant's export. Here alice (user-2) administers a workspace on shard-1, bob (user-1) a provider workspace on
 * shard-2 and a consumer workspace on shard-1 (where the workspace tree cannot lead to `root:prov`, so the exports'
 * paths answer): alice's forgeries are refused or overwritten, and bob's binding binds bob's export.
 */
import { describe, expect, it } from 'vitest';
import { runKcpt } from '../helpers/cli.js';
import { apiRequest, type HttpAnswer } from '../helpers/http.js';
import { apiBinding, apiExport, resourceSchema } from '../e2e/apis-fixtures.js';
import { eventually, getJson, useTenancyServer, users, type Json } from '../e2e/tenancy-fixtures.js';

// The project's shared cluster: the workspaces in root and the API group have names of the test's own.
const e2e = useTenancyServer({ sharded: true });
const alice = { token: users.user2.token };
const bob = { token: users.user1.token };

function call(who: { token: string } | { user: string }, method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<HttpAnswer> {
  return apiRequest(e2e.server, path, { method, ...who, ...(body !== undefined ? { body: JSON.stringify(body), headers: { 'content-type': contentType } } : {}) });
}

async function ok(who: { token: string } | { user: string }, method: string, path: string, body?: unknown, contentType?: string): Promise<Json> {
  const answer = await call(who, method, path, body, contentType);
  if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${answer.body}`);
  return answer.json();
}

/** `kcpt ws create` as kcp-admin in root, placed on `shard`, with `owner` its cluster-admin; its cluster name. */
async function placed(name: string, shard: string, owner: string): Promise<string> {
  const run = await runKcpt(['ws', 'create', name, '--location-selector', `name=${shard}`, '-w', ':root'], { ...e2e.server.env, KUBECONFIG: e2e.server.kubeconfig });
  expect(run.exitCode, `${run.stdout}\n${run.stderr}`).toBe(0);
  const ws = await eventually(`root:${name} Ready`, async () => {
    const got = await getJson(e2e.at('root'), ['workspace', name]);
    return got.status?.phase === 'Ready' ? got : undefined;
  }, 60_000);
  expect(ws.metadata.annotations['core.kcp.io/shard']).toBe(shard);
  await e2e.at(`root:${name}`)(['create', 'clusterrolebinding', `${owner}-admin`, '--clusterrole=cluster-admin', `--user=${owner}`]);
  return ws.spec.cluster as string;
}

describe('kcp.io/path across shards', () => {
  it('a tenant cannot claim another tenant’s path: the binding binds the real export', async () => {
    const suffix = Math.random().toString(36).slice(2, 6);
    const [prov, mine, consumer] = [`prov-${suffix}`, `alice-${suffix}`, `consumer-${suffix}`];
    const [provCluster, mineCluster] = await Promise.all([placed(prov, 'shard-2', users.user1.name), placed(mine, 'shard-1', users.user2.name)]);
    await placed(consumer, 'shard-1', users.user1.name);
    const group = `widgets-${suffix}.example.com`;
    const schema = resourceSchema({ group, plural: 'widgets', kind: 'Widget' });
    await ok(bob, 'POST', `/clusters/root:${prov}/apis/apis.kcp.io/v1alpha1/apiresourceschemas`, schema);
    await ok(bob, 'POST', `/clusters/root:${prov}/apis/apis.kcp.io/v1alpha2/apiexports`, apiExport({ name: 'widgets', group, plural: 'widgets' }));

    // alice forges her workspace's path to bob's: refused.
    const forge = { metadata: { annotations: { 'kcp.io/path': `root:${prov}` } } };
    const refused = await call(alice, 'PATCH', `/clusters/root:${mine}/apis/core.kcp.io/v1alpha1/logicalclusters/cluster`, forge, 'application/merge-patch+json');
    expect([refused.status, refused.json().message]).toEqual([403, 'logicalclusters.core.kcp.io "cluster" is forbidden: modification of system-reserved annotation: "kcp.io/path"']);
    // Her export asks for bob's path itself and gets her own; anyone may bind it.
    await ok(alice, 'POST', `/clusters/root:${mine}/apis/apis.kcp.io/v1alpha1/apiresourceschemas`, schema);
    const exp = await ok(alice, 'POST', `/clusters/root:${mine}/apis/apis.kcp.io/v1alpha2/apiexports`, { ...apiExport({ name: 'widgets', group, plural: 'widgets' }), metadata: { name: 'widgets', ...forge.metadata } });
    expect(exp.metadata.annotations['kcp.io/path']).toBe(`root:${mine}`);
    const relabel = await ok(alice, 'PATCH', `/clusters/root:${mine}/apis/apis.kcp.io/v1alpha2/apiexports/widgets`, forge, 'application/merge-patch+json');
    expect(relabel.metadata.annotations['kcp.io/path']).toBe(`root:${mine}`);
    await ok(alice, 'POST', `/clusters/root:${mine}/apis/rbac.authorization.k8s.io/v1/clusterroles`, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'bind-widgets' },
      rules: [{ apiGroups: ['apis.kcp.io'], resources: ['apiexports'], verbs: ['bind'] }],
    });
    await e2e.asUser(alice.token, `root:${mine}`)(['create', 'clusterrolebinding', 'everyone-binds', '--clusterrole=bind-widgets', '--group=system:authenticated']);

    // bob binds root:<prov>:widgets from shard-1, where alice's export lives and the tree does not reach root.
    // bob's export reaches shard-1 through the replication of exports: until then its path does not resolve there and
    // the bind is refused as one to an export bob may not bind (as apiexport-claims' sharded run waits for it too).
    await eventually('bob binds', async () => {
      const answer = await call(bob, 'POST', `/clusters/root:${consumer}/apis/apis.kcp.io/v1alpha2/apibindings`, apiBinding('widgets', 'widgets', { exportPath: `root:${prov}` }));
      if (answer.status === 403 && answer.json().message.includes('no permission to bind to export')) return undefined;
      if (answer.status !== 201) throw new Error(`POST apibindings: ${answer.status} ${answer.body}`);
      return true;
    }, 60_000);
    const bound = await eventually<Json>('the binding Bound', async () => {
      const b = await ok(bob, 'GET', `/clusters/root:${consumer}/apis/apis.kcp.io/v1alpha2/apibindings/widgets`);
      return b.status?.phase === 'Bound' ? b : undefined;
    }, 60_000);
    expect(bound.status.apiExportClusterName).toBe(provCluster);
    expect(bound.status.apiExportClusterName).not.toBe(mineCluster);
    // Nothing of bob's is served through alice's export: her view lists no binding.
    const hers = await ok(alice, 'GET', `/clusters/root:${mine}/apis/apis.kcp.io/v1alpha2/apiexports/widgets`);
    expect(hers.metadata.annotations['kcp.io/path']).toBe(`root:${mine}`);
    const slice = await call(alice, 'GET', `/clusters/root:${mine}/apis/apis.kcp.io/v1alpha1/apiexportendpointslices/widgets`);
    if (slice.status === 200) expect(slice.json().status?.endpoints ?? []).toEqual([]);
  }, 300_000);
});
