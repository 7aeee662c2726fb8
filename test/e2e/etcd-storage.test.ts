/**
 * `kcpt start --etcd-servers`: objects live in a real etcd under kcp's key layout, and a restarted server on the
 * same etcd serves the same objects with the same resourceVersions and resumes watches from before the restart.
 */
import { Etcd3 } from 'etcd3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiRequest } from '../helpers/http.js';
import { kubectl } from '../helpers/kubectl.js';
import { startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ etcd: true });
});
afterAll(async () => {
  await server?.stop();
});

const ok = async (args: string[]) => {
  const result = await kubectl(server, args);
  expect(result.exitCode, result.stderr).toBe(0);
  return result.stdout;
};
const resourceVersion = async (kind: string, name: string) => ok(['get', kind, name, '-o', 'jsonpath={.metadata.resourceVersion}']);

describe('etcd storage', () => {
  let beforeSecond = '';
  const before: Record<string, string> = {};

  it('stores objects in etcd under /registry/<group>/<resource>/<cluster>/<namespace>/<name>', async () => {
    await ok(['create', 'configmap', 'first', '--from-literal=k=v1']);
    beforeSecond = await resourceVersion('cm', 'first');
    await ok(['create', 'configmap', 'second', '--from-literal=k=v2']);
    await ok(['label', 'configmap', 'first', 'stage=labelled']);
    const etcd = new Etcd3({ hosts: server.etcd!.endpoint });
    try {
      const keys = await etcd.getAll().prefix('/registry/core/configmaps/').keys();
      expect(keys).toEqual(expect.arrayContaining(['/registry/core/configmaps/root/default/first', '/registry/core/configmaps/root/default/second']));
      const stored = await etcd.get('/registry/core/configmaps/root/default/first').string();
      expect(stored).toMatch(/^kcpt \d+ \d+\n\{/);
      expect(stored).toContain('"stage":"labelled"');
    } finally {
      etcd.close();
    }
    before.first = await resourceVersion('cm', 'first');
    before.second = await resourceVersion('cm', 'second');
  });

  it('a workspace created before a restart is still there, Ready', async () => {
    const manifest = 'apiVersion: tenancy.kcp.io/v1alpha1\nkind: Workspace\nmetadata:\n  name: kept\n';
    const result = await kubectl(server, ['create', '-f', '-'], { input: manifest });
    expect(result.exitCode, result.stderr).toBe(0);
    await ok(['wait', '--for=jsonpath={.status.phase}=Ready', 'workspace/kept', '--timeout=30s']);
    before.kept = await resourceVersion('workspace', 'kept');
  });

  it('after a restart on the same etcd: same objects, same resourceVersions, watches resume from before it', async () => {
    await server.restart();
    expect(await resourceVersion('cm', 'first')).toBe(before.first);
    expect(await resourceVersion('cm', 'second')).toBe(before.second);
    expect(await resourceVersion('workspace', 'kept')).toBe(before.kept);
    expect(await ok(['get', 'cm', 'first', '-o', 'jsonpath={.metadata.labels.stage}'])).toBe('labelled');

    // A watch from a resourceVersion handed out before the restart replays what followed it, in order.
    const answer = await apiRequest(
      server,
      `/clusters/root/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${beforeSecond}&timeoutSeconds=2`,
    );
    expect(answer.status).toBe(200);
    const events = answer.body
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; object: { metadata: { name: string; resourceVersion: string } } });
    const seen = events.map((e) => `${e.type} ${e.object.metadata.name} ${e.object.metadata.resourceVersion}`);
    expect(seen).toEqual([`ADDED second ${before.second}`, `MODIFIED first ${before.first}`]);

    // New writes continue after the old revisions.
    await ok(['create', 'configmap', 'third', '--from-literal=k=v3']);
    expect(Number(await resourceVersion('cm', 'third'))).toBeGreaterThan(Number(before.kept));
  });
});
