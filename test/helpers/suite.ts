/**
 * One server per test file, with a second logical cluster beside root, and small assertions shared by the
 * kubectl suites.
 */
import { afterAll, beforeAll, expect } from 'vitest';
import {
  cleanupTempFiles,
  inCluster,
  uniqueClusterName,
  type ClusterKubectl,
  type KubectlResult,
} from './kubectl.js';
import { createLogicalCluster } from './api-setup.js';
import type { TestServer } from './server.js';
import { e2eServer, type ServerChoice } from './shared-server.js';

export interface ClusterCase {
  /** Test-title label: `root` or `second logical cluster`. */
  label: string;
  /** The logical cluster name used in `/clusters/<name>`. */
  name: string;
}

export interface E2E {
  readonly server: TestServer;
  /** The second logical cluster's name. */
  readonly second: string;
  /** [root, second], for describe.each. */
  readonly clusters: ClusterCase[];
  /** The other cluster of the pair (to prove objects do not leak into it). */
  other(cluster: string): string;
  /** kubectl pointed at a cluster; throws the creation error first if that cluster could not be made. */
  k(cluster: string): ClusterKubectl;
  /** Throws if `cluster` is the second cluster and creating it failed. */
  ensure(cluster: string): void;
}

/** The project's shared server or one of the file's own (see ServerChoice), with a fresh second logical cluster. */
export function useE2EServer(opts: ServerChoice = {}): E2E {
  const second = uniqueClusterName();
  let server: TestServer | undefined;
  let secondError: unknown;

  beforeAll(async () => {
    server = await e2eServer(opts);
    try {
      await createLogicalCluster(server, second);
    } catch (err) {
      secondError = err;
    }
  }, 90_000);

  afterAll(async () => {
    await server?.stop();
    await cleanupTempFiles();
  }, 30_000);

  const e2e: E2E = {
    get server() {
      if (!server) throw new Error('the server did not start (see the beforeAll error)');
      return server;
    },
    second,
    clusters: [
      { label: 'root', name: 'root' },
      { label: 'second logical cluster', name: second },
    ],
    other: (cluster) => (cluster === 'root' ? second : 'root'),
    ensure(cluster) {
      if (cluster === second && secondError !== undefined) {
        throw new Error(`creating logical cluster ${second} failed: ${String(secondError)}`);
      }
    },
    k(cluster) {
      return async (args, o) => {
        e2e.ensure(cluster);
        return inCluster(e2e.server, cluster)(args, o);
      };
    },
  };
  return e2e;
}

/** Non-empty lines of an output, trailing blanks trimmed. */
export function lines(text: string): string[] {
  return text
    .split('\n')
    .map((l) => l.trimEnd())
    .filter((l) => l !== '');
}

/** Asserts kubectl failed with exactly this first error line on stderr. */
export function expectError(result: KubectlResult, message: string | RegExp): void {
  expect(result.exitCode, `${result.command} should fail\nstdout: ${result.stdout}`).not.toBe(0);
  const first = lines(result.stderr).find((l) => !l.startsWith('Warning:') && !l.startsWith('WARNING:')) ?? '';
  if (typeof message === 'string') expect(first, result.command).toBe(message);
  else expect(first, result.command).toMatch(message);
}

/** Asserts `kubectl get <resource> <name>` answers NotFound in a cluster (used to prove nothing leaked). */
export async function expectNotFound(
  k: ClusterKubectl,
  resource: string,
  name: string,
  namespace?: string,
): Promise<void> {
  const args = ['get', resource, name];
  if (namespace !== undefined) args.push('-n', namespace);
  const result = await k(args, { reject: false });
  const plural = resource.includes('.') ? resource : pluralOf(resource);
  expectError(result, `Error from server (NotFound): ${plural} "${name}" not found`);
}

/**
 * Asserts an object is not visible in a cluster (leak check). The namespace usually does not exist there either,
 * so a NotFound for the namespace is accepted too; the exact object message is asserted elsewhere.
 */
export async function expectNotVisible(
  k: ClusterKubectl,
  resource: string,
  name: string,
  namespace?: string,
): Promise<void> {
  if (namespace === undefined) return expectNotFound(k, resource, name);
  const result = await k(['get', resource, name, '-n', namespace], { reject: false });
  const plural = resource.includes('.') ? resource : pluralOf(resource);
  expectError(
    result,
    new RegExp(`^Error from server \\(NotFound\\): (${escapeRegExp(plural)} "${escapeRegExp(name)}"|namespaces "${escapeRegExp(namespace)}") not found$`),
  );
}

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function pluralOf(resource: string): string {
  const known: Record<string, string> = {
    cm: 'configmaps',
    configmap: 'configmaps',
    configmaps: 'configmaps',
    ns: 'namespaces',
    namespace: 'namespaces',
    namespaces: 'namespaces',
    secret: 'secrets',
    secrets: 'secrets',
    sa: 'serviceaccounts',
    serviceaccount: 'serviceaccounts',
    serviceaccounts: 'serviceaccounts',
  };
  return known[resource] ?? resource;
}
