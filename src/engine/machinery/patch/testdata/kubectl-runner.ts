/**
 * Runs the real kubectl to produce patch fixtures (used only by generate-fixtures.ts, never by the tests).
 *
 * - `patchLocally` is `kubectl patch --local`: kubectl applies the patch itself with the apimachinery code the
 *   API server uses (strategicpatch with the Go structs compiled into kubectl, evanphx/json-patch), so its output
 *   is the reference result.
 * - `capturePatch` points kubectl apply/edit at a tiny fake API server that serves discovery, the live object on
 *   GET and records the PATCH body: that is exactly the patch real kubectl sends.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const KUBECTL = process.env.KUBECTL ?? '/usr/lib/google-cloud-sdk/bin/kubectl.1.32';

type Obj = Record<string, any>;

export interface ResourceInfo {
  group: string;
  version: string;
  kind: string;
  plural: string;
  namespaced: boolean;
}

export const RESOURCES: ResourceInfo[] = [
  { group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true },
  { group: '', version: 'v1', kind: 'Secret', plural: 'secrets', namespaced: true },
  { group: '', version: 'v1', kind: 'ServiceAccount', plural: 'serviceaccounts', namespaced: true },
  { group: '', version: 'v1', kind: 'Service', plural: 'services', namespaced: true },
  { group: '', version: 'v1', kind: 'Namespace', plural: 'namespaces', namespaced: false },
  { group: '', version: 'v1', kind: 'Event', plural: 'events', namespaced: true },
  { group: '', version: 'v1', kind: 'LimitRange', plural: 'limitranges', namespaced: true },
  { group: '', version: 'v1', kind: 'ResourceQuota', plural: 'resourcequotas', namespaced: true },
  { group: 'coordination.k8s.io', version: 'v1', kind: 'Lease', plural: 'leases', namespaced: true },
  { group: 'events.k8s.io', version: 'v1', kind: 'Event', plural: 'events', namespaced: true },
  {
    group: 'admissionregistration.k8s.io',
    version: 'v1',
    kind: 'ValidatingWebhookConfiguration',
    plural: 'validatingwebhookconfigurations',
    namespaced: false,
  },
  { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'Role', plural: 'roles', namespaced: true },
  { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'ClusterRole', plural: 'clusterroles', namespaced: false },
  { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'RoleBinding', plural: 'rolebindings', namespaced: true },
  {
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    kind: 'ClusterRoleBinding',
    plural: 'clusterrolebindings',
    namespaced: false,
  },
];

export function resourceOf(obj: Obj): ResourceInfo {
  const [group, version] = String(obj.apiVersion).includes('/') ? String(obj.apiVersion).split('/') : ['', obj.apiVersion];
  const info = RESOURCES.find((r) => r.group === group && r.version === version && r.kind === obj.kind);
  if (!info) throw new Error(`no resource for ${obj.apiVersion} ${obj.kind}`);
  return info;
}

function withTempDir<T>(fn: (dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'kcpt-patch-fixtures-'));
  try {
    return fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const kubectlEnv = { ...process.env, KUBECONFIG: '/dev/null', HOME: tmpdir() };

/** `kubectl patch --local`: returns kubectl's patched object, or the error line kubectl printed. */
export function patchLocally(
  live: Obj,
  type: 'strategic' | 'merge' | 'json',
  patch: unknown,
): { result?: Obj; error?: string } {
  return withTempDir((dir) => {
    const file = join(dir, 'live.json');
    writeFileSync(file, JSON.stringify(live));
    try {
      const out = execFileSync(
        KUBECTL,
        ['patch', '--local', '-f', file, '--type', type, '-p', JSON.stringify(patch), '-o', 'json'],
        { env: kubectlEnv, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      return { result: JSON.parse(out.toString('utf8')) };
    } catch (err) {
      const stderr = String((err as { stderr?: Buffer }).stderr ?? err).trim();
      return { error: stderr.replace(/^error: /, '') };
    }
  });
}

function send(res: ServerResponse, code: number, body: unknown): void {
  res.writeHead(code, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
}

function discovery(path: string): unknown {
  if (path === '/version') return { major: '1', minor: '32', gitVersion: 'v1.32.4', platform: 'linux/amd64' };
  if (path === '/api') return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [] };
  const groups = [...new Set(RESOURCES.filter((r) => r.group).map((r) => `${r.group}/${r.version}`))];
  if (path === '/apis') {
    return {
      kind: 'APIGroupList',
      apiVersion: 'v1',
      groups: groups.map((gv) => {
        const version = { groupVersion: gv, version: gv.split('/')[1] };
        return { name: gv.split('/')[0], versions: [version], preferredVersion: version };
      }),
    };
  }
  const gv = path === '/api/v1' ? 'v1' : path.startsWith('/apis/') ? path.slice('/apis/'.length) : undefined;
  if (!gv || (gv !== 'v1' && !groups.includes(gv))) return undefined;
  const resources = RESOURCES.filter((r) => (r.group ? `${r.group}/${r.version}` : r.version) === gv).map((r) => ({
    name: r.plural,
    singularName: r.kind.toLowerCase(),
    namespaced: r.namespaced,
    kind: r.kind,
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
  }));
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: gv, resources };
}

function objectPath(obj: Obj): string {
  const r = resourceOf(obj);
  const prefix = r.group ? `/apis/${r.group}/${r.version}` : `/api/${r.version}`;
  const ns = r.namespaced ? `/namespaces/${obj.metadata.namespace ?? 'default'}` : '';
  return `${prefix}${ns}/${r.plural}/${obj.metadata.name}`;
}

export interface CapturedPatch {
  contentType: string;
  patch: unknown;
}

/**
 * Serves `live` and runs kubectl with `args` (plus --server/--cache-dir); returns the PATCH kubectl sent, or
 * undefined when kubectl sent none (for example `apply` found nothing to change).
 */
export async function capturePatch(
  live: Obj,
  args: string[],
  files: Record<string, unknown> = {},
  env: Record<string, string> = {},
): Promise<CapturedPatch | undefined> {
  let captured: CapturedPatch | undefined;
  const path = objectPath(live);
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname === path && req.method === 'GET') return send(res, 200, live);
      if (url.pathname === path && req.method === 'PATCH') {
        captured = {
          contentType: String(req.headers['content-type']),
          patch: JSON.parse(Buffer.concat(chunks).toString('utf8')),
        };
        return send(res, 200, live);
      }
      const body = req.method === 'GET' ? discovery(url.pathname) : undefined;
      if (body) return send(res, 200, body);
      send(res, 404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: 'not found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  try {
    await withTempDirAsync(async (dir) => {
      for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), JSON.stringify(content));
      const { execFile } = await import('node:child_process');
      await new Promise<void>((resolve, reject) => {
        execFile(
          KUBECTL,
          [...args.map((a) => a.replace('$DIR', dir)), `--server=http://127.0.0.1:${port}`, `--cache-dir=${join(dir, 'cache')}`],
          { env: { ...kubectlEnv, ...env, DIR: dir } },
          (err, _stdout, stderr) => (err ? reject(new Error(`kubectl ${args.join(' ')}: ${stderr}`)) : resolve()),
        );
      });
    });
  } finally {
    server.close();
  }
  return captured;
}

async function withTempDirAsync(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'kcpt-patch-fixtures-'));
  try {
    await fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
