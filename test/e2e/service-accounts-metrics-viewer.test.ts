/**
 * The metrics-viewer battery (`kcpt start --batteries-included +metrics-viewer`): kcp's service account, token Secret
 * and RBAC in root, and a token that reads /metrics. A server of its own: the battery is a start flag.
 */
import { describe, expect, it } from 'vitest';
import { eventually, getJson, useTenancyServer, type Json } from './tenancy-fixtures.js';

const e2e = useTenancyServer({ extraArgs: ['--batteries-included', '+metrics-viewer'] });

/** kubectl with nothing but a bearer token at the bare URL. */
const withToken = (token: string) => (args: string[]) => e2e.asUser(token, '')(['--server', e2e.server.url, ...args], { reject: false });

describe('the metrics-viewer battery', () => {
  it("creates kcp's service account, token Secret and RBAC in root, and the token reads /metrics", async () => {
    const root = e2e.at('root');
    // A LIST of serviceaccounts of its own, for the counter read below (in the file it came from, an earlier test made it).
    await root(['get', 'serviceaccounts']);
    await root(['get', 'serviceaccount', 'metrics']);
    const role = await getJson(root, ['clusterrole', 'metrics-viewer']);
    expect(role.rules).toEqual([{ nonResourceURLs: ['/metrics'], verbs: ['get'] }]);
    const binding = await getJson(root, ['clusterrolebinding', 'metrics-viewer']);
    expect(binding.subjects.map((s: Json) => `${s.kind}/${s.name}`)).toEqual(['ServiceAccount/metrics', 'User/metrics-viewer']);
    const secret = await eventually('metrics token', async () => (await getJson(root, ['secret', 'metrics'])).data?.token as string | undefined);
    const token = Buffer.from(secret, 'base64').toString('utf8');
    const metrics = await withToken(token)(['get', '--raw', '/metrics']);
    expect(metrics.exitCode).toBe(0);
    expect(metrics.stdout).toMatch(/^apiserver_request_total\{verb="LIST",group="",version="v1",resource="serviceaccounts",.*code="200"\} \d+$/m);
    expect(metrics.stdout).toContain('# TYPE apiserver_request_duration_seconds histogram');
    expect((await withToken('not-a-token')(['get', '--raw', '/metrics'])).stderr).toContain('Unauthorized');
  });
});
