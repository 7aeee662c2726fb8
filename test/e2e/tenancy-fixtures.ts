/**
 * Shared pieces of the tenancy suites (workspaces*, workspacetypes*, home-workspaces, lifecycle-virtual-workspaces):
 * one server per file with two extra token users, kubectl pointed at a workspace path, a cluster name, the `*`
 * wildcard or a virtual workspace URL as kcp-admin, the shard admin or a token user, and builders for the
 * Workspace and WorkspaceType YAML a user writes.
 */
import { afterAll, beforeAll } from 'vitest';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import type { Workspace } from '../../src/client/workspace-api.js';
import { createWorkspaceByApi } from '../helpers/api-setup.js';
import { cleanupTempFiles, kubectl, tempFile, uniqueName, type ClusterKubectl, type KubectlOptions } from '../helpers/kubectl.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { canShare, sharedServer, type ServerChoice } from '../helpers/shared-server.js';
import { tokenFileLines } from '../helpers/users.js';

export type Json = Record<string, any>;

export { users } from '../helpers/users.js';

export interface TenancyE2E {
  readonly server: TestServer;
  /** kubectl as kcp-admin at `/clusters/<path>` (a workspace path, a cluster name or `*`); `binary` picks a kubectl. */
  at(path: string, binary?: string): ClusterKubectl;
  /** kubectl as the shard admin (`system:masters`, context shard-base) at `/clusters/<path>`. */
  asShardAdmin(path: string): ClusterKubectl;
  /** kubectl with a bearer token from the token file at `/clusters/<path>`. */
  asUser(token: string, path: string): ClusterKubectl;
  /** kubectl as kcp-admin at any URL of the server (virtual workspaces under /services). */
  atUrl(url: string): ClusterKubectl;
  /** `<server>/clusters/<path>` */
  url(path: string): string;
  /**
   * The items of a `/clusters/*` wildcard list (`rawPath`), as the shard admin, from every Shard's base URL: one
   * server answers for all of its workspaces; in a sharded cluster each shard answers for those it hosts (the
   * front-proxy routes no wildcard, as kcp's does not; kcp's e2e uses a client per shard for such views). A shard
   * that does not serve the resource (none of its workspaces binds it) adds nothing.
   */
  wildcardItems(rawPath: string): Promise<Json[]>;
}

/** The project's shared server (which knows the token users), or one of the file's own (see ServerChoice). */
export function useTenancyServer(opts: ServerChoice = {}): TenancyE2E {
  let server: TestServer | undefined;
  beforeAll(async () => {
    if (canShare(opts)) {
      server = await sharedServer();
      return;
    }
    const { private: _own, ...start } = opts;
    const file = await tempFile('tokens.csv', tokenFileLines());
    server = await startServer({ ...start, extraArgs: ['--token-auth-file', file, ...(opts.extraArgs ?? [])] });
    // A sharded cluster (the e2e-sharded project) starts four processes and an etcd.
  }, 180_000);
  afterAll(async () => {
    await server?.stop();
    await cleanupTempFiles();
  }, 30_000);

  const e2e: TenancyE2E = {
    get server() {
      if (!server) throw new Error('the server did not start (see the beforeAll error)');
      return server;
    },
    url: (path) => `${e2e.server.url}/clusters/${path}`,
    at: (path, binary) => (args, o) => kubectl(e2e.server, ['--context', 'root', '--server', e2e.url(path), ...args], { binary, ...o }),
    asShardAdmin: (path) => (args, o) => kubectl(e2e.server, ['--context', 'shard-base', '--server', e2e.url(path), ...args], o),
    asUser: (token, path) => (args, o) =>
      kubectl(e2e.server, ['--context', 'root', '--token', token, '--server', e2e.url(path), ...args], o),
    atUrl: (url) => (args, o) => kubectl(e2e.server, ['--context', 'root', '--server', url, ...args], o),
    wildcardItems: async (rawPath) => {
      const shards = (await getJson(e2e.at('root'), ['shards'])).items as Json[];
      const lists = await Promise.all(
        shards.map(async (shard) => {
          const out = await kubectl(e2e.server, ['--context', 'shard-base', '--server', `${shard.spec.baseURL}/clusters/root`, 'get', '--raw', rawPath], {
            reject: false,
          });
          // A shard serving no workspace with that resource (no binding of that identity) does not serve it at all.
          if (out.exitCode !== 0 && /could not find the requested resource/.test(out.stderr)) return [];
          if (out.exitCode !== 0) throw new Error(`GET ${rawPath} on Shard ${shard.metadata.name} failed: ${out.stderr}`);
          return JSON.parse(out.stdout).items as Json[];
        }),
      );
      return lists.flat();
    },
  };
  return e2e;
}

export interface TypeRef {
  name: string;
  path?: string;
}

export function workspace(name: string, type?: TypeRef, extra: Json = {}): Json {
  const { metadata, spec, ...rest } = extra;
  return {
    apiVersion: 'tenancy.kcp.io/v1alpha1',
    kind: 'Workspace',
    metadata: { name, ...(metadata ?? {}) },
    ...(type || spec ? { spec: { ...(type ? { type } : {}), ...(spec ?? {}) } } : {}),
    ...rest,
  };
}

export function workspaceType(name: string, spec: Json = {}): Json {
  return { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'WorkspaceType', metadata: { name }, spec };
}

export const root = (name: string): TypeRef => ({ name, path: 'root' });

/** `kubectl create -f <file>` with `obj` written to a file, as a user does. */
export async function create(k: ClusterKubectl, obj: Json, opts: KubectlOptions = {}) {
  const file = await tempFile(`${String(obj.metadata?.name ?? 'object')}.yaml`, toYaml(obj));
  return k(['create', '-f', file], opts);
}

export async function getJson(k: ClusterKubectl, args: string[]): Promise<Json> {
  return JSON.parse((await k(['get', ...args, '-o', 'json'])).stdout) as Json;
}

export async function getYaml(k: ClusterKubectl, args: string[]): Promise<Json> {
  return parseYaml((await k(['get', ...args, '-o', 'yaml'])).stdout) as Json;
}

/** `kubectl wait --for=jsonpath='{.status.phase}'=<phase> ws/<name>`. */
export async function waitForPhase(k: ClusterKubectl, name: string, phase = 'Ready') {
  return k(['wait', `--for=jsonpath={.status.phase}=${phase}`, `workspace/${name}`, '--timeout=60s']);
}

/**
 * An organization of the caller's own in root under a unique name: a file on the shared server keeps its workspaces,
 * types and exports under it, so what it makes and asserts is its own.
 */
export function ownOrganization(e2e: TenancyE2E, prefix: string) {
  const name = uniqueName(prefix);
  const path = `root:${name}`;
  return {
    name,
    path,
    /** `root:<org>:<child>` */
    child: (child: string) => `${path}:${child}`,
    /** Creates it over the API and waits for Ready (setup: the files that test creating workspaces use kubectl). */
    async create() {
      await workspaceByApi(e2e, 'root', name, root('organization'));
    },
  };
}

/** Creates a Workspace (default type unless given), waits for Ready and returns it as kubectl shows it. */
export async function createWorkspace(k: ClusterKubectl, name: string, type?: TypeRef): Promise<Json> {
  await create(k, workspace(name, type));
  await waitForPhase(k, name);
  return getJson(k, ['workspace', name]);
}

/**
 * Creates a Workspace (default type unless given) over the API as kcp-admin, waits for `phase` (Ready by default) and
 * returns it: for tests that need a workspace. Those about what kubectl does with workspaces use createWorkspace.
 */
export async function workspaceByApi(e2e: TenancyE2E, parentPath: string, name: string, type?: TypeRef, phase = 'Ready'): Promise<Json> {
  return (await createWorkspaceByApi(e2e.server, parentPath, workspace(name, type) as Workspace, phase)) as Json;
}

/** Polls a probe until it yields a value (controllers work asynchronously; no fixed sleeps): test/helpers/eventually.ts. */
export { eventually } from '../helpers/eventually.js';

/** Condition `type` of an object as `status reason message`. */
export function condition(obj: Json, type: string): string | undefined {
  const c = (obj.status?.conditions as Json[] | undefined)?.find((x) => x.type === type);
  return c ? [c.status, c.reason ?? '', c.message ?? ''].join(' ').trim() : undefined;
}
