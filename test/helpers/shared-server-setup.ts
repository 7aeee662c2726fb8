/**
 * globalSetup of the e2e projects: starts the project's shared `kcpt start` (kcp's SharedKcpServer) while the
 * earlier tiers run, and tells the test files where it will be (test/helpers/shared-server.ts waits for it). The
 * project's env picks what it is: one server on SQLite (e2e), on etcd (e2e-etcd), or a sharded cluster behind its
 * front-proxy (e2e-sharded). It stops after the last test.
 */
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startServer, type TestServer } from './server.js';
import { sharedServerArgs, type SharedServerDescriptor, type SharedServerHandle } from './shared-server.js';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const env = (project.config.env ?? {}) as Record<string, string | undefined>;
  const sharded = env.KCPT_E2E_TOPOLOGY === 'sharded';
  const etcd = env.KCPT_E2E_STORAGE === 'etcd';
  const dir = await mkdtemp(join(tmpdir(), 'kcpt-shared-server-'));
  const handle: SharedServerHandle = { dir, project: project.name };
  project.provide('kcptSharedServer', handle);

  // Not awaited: the files that use it wait for server.json (or error.txt), so the start overlaps the unit tier.
  const starting = (async (): Promise<TestServer | undefined> => {
    let server: TestServer | undefined;
    try {
      server = await startServer({
        sharded,
        etcd: sharded ? undefined : etcd,
        extraArgs: await sharedServerArgs(dir),
        logFile: join(dir, 'server.log'),
      });
      const descriptor: SharedServerDescriptor = {
        url: server.url,
        port: server.port,
        rootDir: server.rootDir,
        kubeconfig: server.kubeconfig,
        etcdEndpoint: server.etcd?.endpoint,
        sharded,
        logFile: join(dir, 'server.log'),
      };
      // Renamed into place: a reader never sees half of it.
      await writeFile(join(dir, 'server.json.tmp'), JSON.stringify(descriptor));
      await rename(join(dir, 'server.json.tmp'), join(dir, 'server.json'));
      return server;
    } catch (err) {
      await writeFile(join(dir, 'error.txt'), err instanceof Error ? (err.stack ?? err.message) : String(err));
      await server?.stop();
      return undefined;
    }
  })();

  return async () => {
    await (await starting)?.stop();
    await rm(dir, { recursive: true, force: true });
  };
}
