/**
 * `controlPlane.workspace()`: a fresh Ready workspace with its CRDs Established and its APIBindings Bound, and a
 * kubeconfig for it. Each step uses what the server answers: the Workspace's Ready event from the control plane's
 * one watch, a CRD's conditions from its POST answer (kcpt establishes a CRD inside the create), and a watch on the
 * APIBinding only while it is not yet Bound. Requests share the control plane's keep-alive connection.
 */
import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { ApiError } from '../client/errors.js';
import type { KubeClient } from '../client/http-client.js';
import { standaloneKubeconfig, type KubeconfigDocument } from '../client/standalone-kubeconfig.js';
import { createWorkspace, parseTypeFlag, type Workspace } from '../client/workspace-api.js';
import { loadKubeConfig, type SharedAgents } from './client-node.js';
import { loadCRDs, type KubeManifest } from './manifests.js';
import { waitForObject } from '../client/object-watch.js';
import { installCRD, type WithConditions } from '../client/install-crd.js';
import type { WorkspaceReadiness } from './workspace-readiness.js';

export interface WorkspaceOptions {
  /** Workspace type: `universal`, `root:organization`, … (default: the parent type's default child type). */
  type?: string;
  /** Parent workspace path or a workspace made by this control plane (default `root`). */
  parent?: string | TestWorkspace;
  /** Name in the parent (default: generated, unique). */
  name?: string;
  /** CRDs to install, as objects or paths of YAML/JSON files; resolved once each is Established. */
  crds?: (KubeManifest | string)[];
  /** APIBindings to create (named after the export); resolved once each is Bound. */
  bindings?: { path: string; export: string; name?: string }[];
  /** How long to wait for Ready, Established and Bound (default 30 s). */
  timeoutMs?: number;
}

export interface TestWorkspace {
  /** `root:test-1a2b3c`. */
  path: string;
  /** The logical cluster name (`spec.cluster`). */
  clusterName: string;
  /** `https://127.0.0.1:PORT/clusters/<path>`. */
  url: string;
  /** A standalone kubeconfig for the workspace as the admin: the object, and the file it is written to (on first use of `path`). */
  kubeconfig: { object: KubeconfigDocument; path: string };
  /** A @kubernetes/client-node KubeConfig for the workspace (that package must be installed). */
  kubeConfig(): Promise<KubeConfig>;
  /** Deletes the workspace (and everything in it) and its kubeconfig file. */
  delete(): Promise<void>;
}

export interface WorkspaceContext {
  baseUrl: string;
  caCertPem: string;
  adminToken: string;
  client: KubeClient;
  readiness: WorkspaceReadiness;
  kubeconfigDirectory: string;
  /** The keep-alive agents the KubeConfigs handed out share (see client-node.ts). */
  agents: SharedAgents;
}

const workspacesPath = '/apis/tenancy.kcp.io/v1alpha1/workspaces';
const bindingsPath = '/apis/apis.kcp.io/v1alpha2/apibindings';
const runId = randomBytes(3).toString('hex');
let sequence = 0;

export async function createTestWorkspace(ctx: WorkspaceContext, opts: WorkspaceOptions = {}): Promise<TestWorkspace> {
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const parent = typeof opts.parent === 'object' ? opts.parent.path : (opts.parent ?? 'root');
  const name = opts.name ?? `test-${runId}-${(++sequence).toString(36)}`;
  // Files are read (and CRDs checked) before anything is created, so a wrong path leaves no workspace behind.
  const crds = await loadCRDs(opts.crds ?? []);
  const body: Workspace = {
    apiVersion: 'tenancy.kcp.io/v1alpha1',
    kind: 'Workspace',
    metadata: { name },
    spec: opts.type ? { type: parseTypeFlag(opts.type) } : {},
  };
  let ws = await createWorkspace(ctx.client, parent, body);
  if (ws.status?.phase !== 'Ready') ws = await ctx.readiness.waitReady(ws, timeoutMs);
  const wsPath = `${parent}:${name}`;
  const made = testWorkspace(ctx, parent, name, wsPath, ws.spec?.cluster ?? '');
  try {
    await Promise.all([
      ...crds.map((crd) => installCRD(ctx.client, wsPath, crd, timeoutMs)),
      ...(opts.bindings ?? []).map((b) => bind(ctx.client, wsPath, b, timeoutMs)),
    ]);
  } catch (err) {
    // A half-prepared workspace is of no use to anyone: it goes, and the reason is what the caller sees.
    await made.delete().catch(() => {});
    throw err;
  }
  return made;
}

function testWorkspace(ctx: WorkspaceContext, parent: string, name: string, wsPath: string, clusterName: string): TestWorkspace {
  const url = `${ctx.baseUrl}/clusters/${wsPath}`;
  const object = standaloneKubeconfig({
    server: url,
    workspace: wsPath,
    userName: 'kcp-admin',
    connection: { ca: Buffer.from(ctx.caCertPem), insecureSkipTLSVerify: false, token: ctx.adminToken },
  });
  const file = path.join(ctx.kubeconfigDirectory, `${wsPath.replaceAll(':', '_')}.kubeconfig`);
  // Written when its path is first asked for: most tests use the object or kubeConfig(), and a synchronous file
  // write per workspace was ~0.7 ms of every test. JSON is YAML: kubectl and every client read it.
  let fileState: 'unwritten' | 'written' | 'deleted' = 'unwritten';
  const kubeconfig = {
    object,
    get path() {
      if (fileState === 'unwritten') {
        writeFileSync(file, JSON.stringify(object, null, 2), { mode: 0o600 });
        fileState = 'written';
      }
      return file;
    },
  };
  let loaded: Promise<KubeConfig> | undefined;
  return {
    path: wsPath,
    clusterName,
    url,
    kubeconfig,
    kubeConfig() {
      loaded ??= loadKubeConfig(object, ctx.agents);
      return loaded;
    },
    async delete() {
      try {
        await ctx.client.request('DELETE', `/clusters/${parent}${workspacesPath}/${name}`);
      } catch (err) {
        if (!(err instanceof ApiError && err.notFound)) throw err;
      }
      fileState = 'deleted';
      rmSync(file, { force: true });
    },
  };
}

/** Creates an APIBinding to the export and resolves once it is Bound (or fails with its condition's message). */
async function bind(client: KubeClient, wsPath: string, b: { path: string; export: string; name?: string }, timeoutMs: number): Promise<void> {
  const collection = `/clusters/${wsPath}${bindingsPath}`;
  const body = {
    apiVersion: 'apis.kcp.io/v1alpha2',
    kind: 'APIBinding',
    metadata: { name: b.name ?? b.export },
    spec: { reference: { export: { path: b.path, name: b.export } } },
  };
  const what = `APIBinding to ${b.path}:${b.export} in ${wsPath}`;
  const created = await client.post<WithConditions>(collection, body).catch((err: Error) => {
    throw new Error(`creating ${what}: ${err.message}`, { cause: err });
  });
  let last = created;
  const settled = (obj: WithConditions) => ((last = obj), obj.status?.phase === 'Bound');
  if (settled(created)) return;
  await waitForObject(client, collection, created, settled, { timeoutMs, what: `${what} to be Bound` }).catch((err: Error) => {
    const failing = last.status?.conditions?.find((c) => c.status === 'False' && c.message);
    throw failing ? new Error(`${what} is not Bound: ${failing.message}`, { cause: err }) : err;
  });
}
