import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ensureServingCertificates } from './certificates.js';
import { renderAdminKubeconfig, writeAdminKubeconfig } from './kubeconfig.js';
import { adminTokenEntries, loadOrCreateAdminTokens, StaticTokenAuthenticator } from './token-store.js';

const execFileAsync = promisify(execFile);

let root: string;
beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'kcpt-kubeconfig-'));
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

const CA = '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n';
const caData = Buffer.from(CA).toString('base64');

describe('renderAdminKubeconfig', () => {
  it('lays out clusters, users and contexts like kcp, sorted like clientcmd', () => {
    const text = renderAdminKubeconfig({
      baseUrl: 'https://127.0.0.1:6443/',
      caCertPem: CA,
      tokens: { kcpAdmin: 'ka', shardAdmin: 'sa', user: 'ua' },
      batteries: ['admin', 'workspace-types', 'user'],
    });
    expect(parse(text)).toEqual({
      apiVersion: 'v1',
      kind: 'Config',
      preferences: {},
      'current-context': 'root',
      clusters: [
        { name: 'base', cluster: { 'certificate-authority-data': caData, server: 'https://127.0.0.1:6443' } },
        { name: 'root', cluster: { 'certificate-authority-data': caData, server: 'https://127.0.0.1:6443/clusters/root' } },
        {
          name: 'system:admin',
          cluster: { 'certificate-authority-data': caData, server: 'https://127.0.0.1:6443/clusters/system:admin' },
        },
      ],
      contexts: [
        { name: 'base', context: { cluster: 'base', user: 'kcp-admin' } },
        { name: 'root', context: { cluster: 'root', user: 'kcp-admin' } },
        { name: 'shard-base', context: { cluster: 'base', user: 'shard-admin' } },
        { name: 'system:admin', context: { cluster: 'system:admin', user: 'shard-admin' } },
        { name: 'user', context: { cluster: 'root', user: 'user' } },
      ],
      users: [
        { name: 'kcp-admin', user: { token: 'ka' } },
        { name: 'shard-admin', user: { token: 'sa' } },
        { name: 'user', user: { token: 'ua' } },
      ],
    });
    expect(text).toMatch(/^clusters:\n- cluster:\n    certificate-authority-data: /m);
  });

  it('omits the user entries without the user battery or its token', () => {
    const tokens = { kcpAdmin: 'ka', shardAdmin: 'sa', user: 'ua' };
    for (const text of [
      renderAdminKubeconfig({ baseUrl: 'https://h', caCertPem: CA, tokens, batteries: ['admin'] }),
      renderAdminKubeconfig({ baseUrl: 'https://h', caCertPem: CA, tokens: { kcpAdmin: 'ka', shardAdmin: 'sa' } }),
    ]) {
      const doc = parse(text) as { users: Array<{ name: string }>; contexts: Array<{ name: string }> };
      expect(doc.users.map((u) => u.name)).toEqual(['kcp-admin', 'shard-admin']);
      expect(doc.contexts.map((c) => c.name)).toEqual(['base', 'root', 'shard-base', 'system:admin']);
    }
  });
});

describe('writeAdminKubeconfig', () => {
  it('writes atomically with mode 0600, replacing a more open file', async () => {
    const file = path.join(root, 'admin.kubeconfig');
    await fs.writeFile(file, 'old', { mode: 0o644 });
    await writeAdminKubeconfig({ path: file, baseUrl: 'https://h', caCertPem: CA, tokens: { kcpAdmin: 'a', shardAdmin: 'b' } });
    expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
    expect(await fs.readdir(root)).toEqual(['admin.kubeconfig']);
    expect(await fs.readFile(file, 'utf8')).toContain('token: a');
  });

  it('gives kubectl a kubeconfig that verifies the server and authenticates every context', async () => {
    const certs = await ensureServingCertificates(root, { hosts: [] });
    const tokens = await loadOrCreateAdminTokens(root, { withUser: true });
    const auth = new StaticTokenAuthenticator(adminTokenEntries(tokens));
    const requests: Array<{ path: string; user: string | null; agent: string }> = [];
    const server = https.createServer({ key: certs.keyPem, cert: certs.certPem }, (req, res) => {
      const header = req.headers.authorization ?? '';
      const user = header.startsWith('Bearer ') ? auth.authenticate(header.slice(7)) : undefined;
      requests.push({ path: req.url ?? '', user: user?.username ?? null, agent: req.headers['user-agent'] ?? '' });
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ major: '1', minor: '32', gitVersion: 'v1.32.0' }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const kubeconfigPath = path.join(root, 'admin.kubeconfig');
    const baseUrl = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    await writeAdminKubeconfig({ path: kubeconfigPath, baseUrl, caCertPem: certs.caCertPem, tokens, batteries: ['admin', 'user'] });
    const home = await fs.mkdtemp(path.join(root, 'home-'));
    // `get --raw` ignores the server URL's path, so use a discovery call, which does honour /clusters/<path>.
    const run = (context: string) =>
      execFileAsync('kubectl', ['--kubeconfig', kubeconfigPath, '--context', context, 'version', '-o', 'json'], {
        env: { ...process.env, HOME: home },
        timeout: 30_000,
      });
    try {
      const seen: Record<string, { path: string; user: string | null }> = {};
      for (const context of ['root', 'base', 'system:admin', 'shard-base', 'user']) {
        requests.length = 0;
        await run(context);
        // Skip the dispatcher's /version probe (its own user agent); keep what kubectl itself sent.
        const own = requests.filter((r) => r.agent.startsWith('kubectl/'));
        expect(own).toHaveLength(1);
        seen[context] = { path: own[0]!.path.split('?')[0]!, user: own[0]!.user };
      }
      expect(seen).toEqual({
        root: { path: '/clusters/root/version', user: 'kcp-admin' },
        base: { path: '/version', user: 'kcp-admin' },
        'system:admin': { path: '/clusters/system:admin/version', user: 'shard-admin' },
        'shard-base': { path: '/version', user: 'shard-admin' },
        user: { path: '/clusters/root/version', user: 'user' },
      });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
