/**
 * The server as a process: health endpoints, one server per root directory, clean shutdown with open watches,
 * and data, tokens and CA that survive a restart, including a SIGKILL right after acknowledged writes.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ResultPromise } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/server.js';
import { printedKubeconfig, runKcpt, spawnKcpt } from '../helpers/cli.js';
import { adminToken } from '../helpers/http.js';

interface Proc {
  child: ResultPromise;
  port: number;
  output: () => string;
}

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

async function start(rootDir: string, port?: number): Promise<Proc> {
  const p = port ?? (await freePort());
  const server = spawnKcpt(['start', '--root-directory', rootDir, '--secure-port', String(p)]);
  await printedKubeconfig(server, 20_000);
  return { ...server, port: p };
}

async function api(port: number, token: string, path: string, init: { method?: string; body?: unknown } = {}) {
  const { request } = await import('node:https');
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: init.method ?? 'GET',
        rejectUnauthorized: false,
        headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), 'content-type': 'application/json' },
      },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    if (init.body !== undefined) req.write(JSON.stringify(init.body));
    req.end();
  });
}

const rootAdminToken = (rootDir: string) => adminToken(join(rootDir, 'admin.kubeconfig'));

describe('kcpt start as a process', () => {
  it('answers ok on /healthz, /livez and /readyz without credentials', async () => {
    const root = await tempDir('kcpt-life-');
    const server = await start(root);
    try {
      for (const path of ['/healthz', '/livez', '/readyz']) {
        const res = await api(server.port, '', path);
        expect([path, res.status, res.body]).toEqual([path, 200, 'ok']);
      }
      const unauth = await api(server.port, 'wrong-token', '/clusters/root/api/v1/namespaces');
      expect(unauth.status).toBe(401);
      expect(JSON.parse(unauth.body)).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
    } finally {
      server.child.kill('SIGTERM');
      await server.child;
    }
  });

  it('refuses a second server on the same root directory with a clear message', async () => {
    const root = await tempDir('kcpt-life-');
    const first = await start(root);
    try {
      const second = await runKcpt(['start', '--root-directory', root, '--secure-port', String(await freePort())], {}, { timeout: 20_000 });
      expect(second.exitCode).not.toBe(0);
      expect(second.stderr).toContain(`is already using root directory`);
      // The first server is unharmed.
      const res = await api(first.port, rootAdminToken(root), '/clusters/root/api/v1/namespaces/default');
      expect(res.status).toBe(200);
    } finally {
      first.child.kill('SIGTERM');
      await first.child;
    }
  });

  it('shuts down on SIGTERM with a watch open, and keeps objects, tokens and CA across the restart', async () => {
    const root = await tempDir('kcpt-life-');
    const port = await freePort();
    const first = await start(root, port);
    const token = rootAdminToken(root);
    const ca = await readFile(join(root, 'ca.crt'), 'utf8');
    const created = await api(port, token, '/clusters/root/api/v1/namespaces/default/configmaps', {
      method: 'POST',
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'survivor' }, data: { a: '1' } },
    });
    expect(created.status).toBe(201);
    const rv = JSON.parse(created.body).metadata.resourceVersion as string;

    // An open watch must not keep the server from stopping.
    const { request } = await import('node:https');
    const watch = request({
      host: '127.0.0.1',
      port,
      path: '/clusters/root/api/v1/namespaces/default/configmaps?watch=true',
      rejectUnauthorized: false,
      headers: { authorization: `Bearer ${token}` },
    });
    watch.on('error', () => {});
    watch.on('response', (res) => res.resume());
    watch.end();
    await new Promise((r) => setTimeout(r, 300));

    // Nothing forces the process out: were the watch left open, this wait would last until the test's timeout.
    first.child.kill('SIGTERM');
    const result = await first.child;
    expect(result.exitCode).toBe(0);

    const second = await start(root, port);
    try {
      expect(rootAdminToken(root)).toBe(token);
      expect(await readFile(join(root, 'ca.crt'), 'utf8')).toBe(ca);
      const got = await api(port, token, '/clusters/root/api/v1/namespaces/default/configmaps/survivor');
      expect(got.status).toBe(200);
      expect(JSON.parse(got.body)).toMatchObject({ data: { a: '1' }, metadata: { resourceVersion: rv } });
    } finally {
      second.child.kill('SIGTERM');
      await second.child;
    }
  });

  it('keeps Shard root untouched across a restart on the same address, and moves its and the WorkspaceTypes\' URLs to a new one', async () => {
    const root = await tempDir('kcpt-shard-');
    const port = await freePort();
    const shardPath = '/clusters/root/apis/core.kcp.io/v1alpha1/shards/root';
    const stop = async (proc: Proc) => {
      proc.child.kill('SIGTERM');
      await proc.child;
    };
    let proc = await start(root, port);
    const token = rootAdminToken(root);
    const before = JSON.parse((await api(port, token, shardPath)).body);
    await stop(proc);

    proc = await start(root, port);
    const same = JSON.parse((await api(port, token, shardPath)).body);
    await stop(proc);
    expect(same.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    expect(same.spec).toEqual(before.spec);

    const other = await freePort();
    proc = await start(root, other);
    try {
      const moved = JSON.parse((await api(other, token, shardPath)).body);
      const url = `https://127.0.0.1:${other}`;
      expect(moved.spec).toEqual({ baseURL: url, externalURL: url, virtualWorkspaceURL: url });
      expect(Number(moved.metadata.resourceVersion)).toBeGreaterThan(Number(before.metadata.resourceVersion));
      // The built-in WorkspaceTypes' virtual workspace URLs follow too (their status controller, just after start).
      const typePath = '/clusters/root/apis/tenancy.kcp.io/v1alpha1/workspacetypes/universal';
      let urls: string[] = [];
      for (let i = 0; i < 100; i++) {
        const type = JSON.parse((await api(other, token, typePath)).body);
        urls = (type.status?.virtualWorkspaces ?? []).map((v: { url: string }) => v.url);
        if (urls.every((u) => u.startsWith(url))) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(urls).toEqual([`${url}/services/initializingworkspaces/root:universal`, `${url}/services/terminatingworkspaces/root:universal`]);
    } finally {
      await stop(proc);
    }
  });

  it('loses no acknowledged write when killed with SIGKILL', async () => {
    const root = await tempDir('kcpt-life-');
    const port = await freePort();
    const first = await start(root, port);
    const token = rootAdminToken(root);
    const acknowledged: Array<{ name: string; rv: string }> = [];
    for (let i = 0; i < 50; i++) {
      const res = await api(port, token, '/clusters/root/api/v1/namespaces/default/configmaps', {
        method: 'POST',
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `ack-${i}` }, data: { i: String(i) } },
      });
      expect(res.status).toBe(201);
      acknowledged.push({ name: `ack-${i}`, rv: JSON.parse(res.body).metadata.resourceVersion });
    }
    first.child.kill('SIGKILL');
    await first.child;

    const second = await start(root, port);
    try {
      const list = await api(port, token, '/clusters/root/api/v1/namespaces/default/configmaps');
      const items = JSON.parse(list.body).items as Array<{ metadata: { name: string; resourceVersion: string } }>;
      const present = new Map(items.map((i) => [i.metadata.name, i.metadata.resourceVersion]));
      for (const { name, rv } of acknowledged) expect([name, present.get(name)]).toEqual([name, rv]);
      // Revisions keep growing after the restart.
      const next = await api(port, token, '/clusters/root/api/v1/namespaces/default/configmaps', {
        method: 'POST',
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'after-restart' } },
      });
      expect(Number(JSON.parse(next.body).metadata.resourceVersion)).toBeGreaterThan(Number(acknowledged.at(-1)!.rv));
    } finally {
      second.child.kill('SIGTERM');
      await second.child;
    }
  });
});
