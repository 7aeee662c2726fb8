/**
 * The same-machine hop: a shard started with `--proxy-socket` also serves plaintext HTTP on a unix socket (mode
 * 0600 in its root directory), and `kcpt front-proxy --shard-socket NAME=PATH` forwards to it there instead of over
 * TLS. Driven as a user would: kubectl through the proxy, curl on the socket. The socket grants nothing by itself
 * (the bearer token is still what the shard authenticates), a client certificate is not an identity on either
 * path, and a socket that is not there is kcp's 503 for that shard, not a hang and not a silent fallback.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { printedKubeconfig, spawnKcpt, useScratchDirectory } from '../helpers/cli.js';
import { kubectl } from '../helpers/kubectl.js';
import { freePort, startServer, type TestServer } from '../helpers/server.js';
import { eventually } from './tenancy-fixtures.js';
import { adminToken } from '../helpers/http.js';

const scratch = useScratchDirectory('kcpt-proxy-socket-');
let shard: TestServer;
const proxies: ResultPromise[] = [];

beforeAll(async () => {
  shard = await startServer({ sharded: false, extraArgs: ['--proxy-socket', 'proxy.sock'] });
}, 60_000);
afterAll(async () => {
  for (const p of proxies) {
    p.kill('SIGTERM');
    await p;
  }
  await shard?.stop();
}, 60_000);

const socketPath = () => join(shard.rootDir, 'proxy.sock');


/** `kcpt front-proxy` in front of the shard with `--shard-socket root=<socket>`; resolves to its URL and kubeconfig. */
async function startProxy(name: string, socket: string): Promise<{ url: string; kubeconfig: string }> {
  const dir = join(scratch.path, name);
  mkdirSync(dir, { mode: 0o700 });
  for (const f of ['ca.crt', 'ca.key']) copyFileSync(join(shard.rootDir, f), join(dir, f));
  const port = await freePort();
  const proxy = spawnKcpt(
    ['front-proxy', '--root-kubeconfig', shard.kubeconfig, '--root-directory', dir, '--secure-port', String(port), '--shard-socket', `root=${socket}`],
    { NO_COLOR: '1', HOME: shard.env.HOME! },
  );
  proxies.push(proxy.child);
  const kubeconfig = await printedKubeconfig(proxy);
  const url = `https://127.0.0.1:${port}`;
  // Ready = the index has listed the shard once: a 503 after this is the hop's, not the proxy still starting.
  await eventually(`the proxy ${name} to be ready`, async () => ((await curl([`${url}/readyz`])).status === 200 ? true : undefined));
  return { url, kubeconfig };
}

/** curl with the deployment's CA; `args` add the target and credentials. */
async function curl(args: string[]): Promise<{ status: number; body: Record<string, unknown> }> {
  const r = await execa('curl', ['-s', '--max-time', '20', '--cacert', join(shard.rootDir, 'ca.crt'), '-w', '\n%{http_code}', ...args], { reject: false });
  const lines = String(r.stdout).split('\n');
  const status = Number(lines.pop());
  try {
    return { status, body: JSON.parse(lines.join('\n')) as Record<string, unknown> };
  } catch {
    return { status, body: { text: lines.join('\n') } };
  }
}

describe('kcpt start --proxy-socket and kcpt front-proxy --shard-socket', () => {
  it('serves the socket only to its owner: mode 0600 inside the root directory', () => {
    const stat = statSync(socketPath());
    expect(stat.isSocket()).toBe(true);
    expect(stat.mode & 0o777).toBe(0o600);
  });

  it('answers plaintext HTTP on the socket and still authenticates the bearer token', async () => {
    const path = 'http://localhost/clusters/root/api/v1/namespaces/default';
    const ok = await curl(['--unix-socket', socketPath(), '-H', `Authorization: Bearer ${adminToken(shard.kubeconfig)}`, path]);
    expect(ok).toMatchObject({ status: 200, body: { kind: 'Namespace', metadata: { name: 'default' } } });
    // Reaching the socket is not an identity: no token is a 401, as on HTTPS.
    const anonymous = await curl(['--unix-socket', socketPath(), path]);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toMatchObject({ kind: 'Status', code: 401, reason: 'Unauthorized' });
    const wrong = await curl(['--unix-socket', socketPath(), '-H', 'Authorization: Bearer not-a-token', path]);
    expect(wrong.status).toBe(401);
  });

  it('forwards kubectl through the proxy over the socket: create, get, a workspace, a watch', async () => {
    const proxy = await startProxy('proxy-socket', socketPath());
    const env = { KUBECONFIG: proxy.kubeconfig };
    await eventually('the proxy to route root', async () => {
      const r = await kubectl(shard, ['get', 'namespaces', '-o', 'name'], { env, reject: false });
      return r.exitCode === 0 ? r : undefined;
    });
    await kubectl(shard, ['create', 'configmap', 'via-socket', '--from-literal', 'hop=unix'], { env });
    const direct = JSON.parse((await kubectl(shard, ['get', 'configmap', 'via-socket', '-o', 'json'])).stdout) as { data: Record<string, string> };
    expect(direct.data).toEqual({ hop: 'unix' });
    await kubectl(shard, ['create', '-f', '-'], { env, input: 'apiVersion: tenancy.kcp.io/v1alpha1\nkind: Workspace\nmetadata:\n  name: sock\nspec:\n  type:\n    name: universal\n    path: root\n' });
    const inChild = await eventually('root:sock to answer through the proxy', async () => {
      const r = await kubectl(shard, ['--server', `${proxy.url}/clusters/root:sock`, 'get', 'namespace', 'default', '-o', 'name'], { env, reject: false });
      return r.exitCode === 0 ? r : undefined;
    });
    expect(inChild.stdout.trim()).toBe('namespace/default');
    // A watch streams over the socket: its first event arrives while the connection stays open.
    const watch = execa('kubectl', ['get', 'configmaps', '--watch', '-o', 'name'], { env: { ...shard.env, ...env }, reject: false, timeout: 60_000 });
    let seen = '';
    watch.stdout?.on('data', (chunk: Buffer) => (seen += chunk.toString()));
    await eventually('the watch to list', async () => (seen.includes('configmap/via-socket') ? true : undefined));
    await kubectl(shard, ['create', 'configmap', 'while-watching'], { env });
    await eventually('the watch to see the new ConfigMap', async () => (seen.includes('configmap/while-watching') ? true : undefined));
    watch.kill('SIGTERM');
    await watch;
  }, 90_000);

  it('a client certificate is no identity, direct or through the proxy: 401 both ways', async () => {
    // A certificate the deployment's CA signed, naming system:masters: kcpt authenticates bearer tokens only, so it
    // must not make anyone an admin, and the plaintext hop must not turn it into one either.
    const dir = join(scratch.path, 'client-cert');
    mkdirSync(dir);
    const key = join(dir, 'client.key');
    const csr = join(dir, 'client.csr');
    const crt = join(dir, 'client.crt');
    execFileSync('openssl', ['req', '-new', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', csr, '-subj', '/O=system:masters/CN=cert-admin'], { stdio: 'ignore' });
    execFileSync('openssl', ['x509', '-req', '-in', csr, '-CA', join(shard.rootDir, 'ca.crt'), '-CAkey', join(shard.rootDir, 'ca.key'), '-CAcreateserial', '-out', crt, '-days', '1'], { stdio: 'ignore' });
    const proxy = await startProxy('proxy-client-cert', socketPath());
    const path = '/clusters/root/api/v1/namespaces/default/configmaps';
    const direct = await curl(['--cert', crt, '--key', key, `${shard.url}${path}`]);
    expect(direct.status).toBe(401);
    const proxied = await curl(['--cert', crt, '--key', key, `${proxy.url}${path}`]);
    expect(proxied.status).toBe(401);
    expect(proxied.body).toMatchObject({ kind: 'Status', code: 401 });
  }, 60_000);

  it('a socket that is not there answers 503 for that shard, promptly, and does not fall back to TLS', async () => {
    const proxy = await startProxy('proxy-missing-socket', join(shard.rootDir, 'no-such.sock'));
    const path = `${proxy.url}/clusters/root/api/v1/namespaces/default`;
    // curl gives up after 20 s (status 000): a hang fails here as surely as a wrong answer.
    const r = await curl(['-H', `Authorization: Bearer ${adminToken(shard.kubeconfig)}`, path]);
    expect(r.status).toBe(503);
    expect(r.body).toMatchObject({ kind: 'Status', code: 503, message: 'Not available.', reason: 'ServiceUnavailable' });
    // The shard itself is up over TLS the whole time.
    expect((await curl(['-H', `Authorization: Bearer ${adminToken(shard.kubeconfig)}`, `${shard.url}/clusters/root/api/v1/namespaces/default`])).status).toBe(200);
  }, 60_000);
});
