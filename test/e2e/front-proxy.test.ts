/**
 * `kcpt start --shards 3`: the root shard and two more behind the front-proxy, driven only through the proxy's
 * URL with the real kubectl and `kcpt ws`, as a developer would. Workspaces are placed on every shard (nested
 * across shards too), each answers kubectl get/create/apply/watch through the one URL, the CLI session works
 * unchanged, unknown paths get kcp's 403 and a killed shard's workspaces kcp's 503 while the others go on; the
 * restarted shard rejoins. Then `kcpt front-proxy` on its own with a kcp mapping file.
 */
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { printedKubeconfig, runKcpt, spawnKcpt, useScratchDirectory } from '../helpers/cli.js';
import { adminToken, apiRequest } from '../helpers/http.js';
import { kubectl, type KubectlOptions } from '../helpers/kubectl.js';
import { freePort, repoRoot, startServer, type TestServer } from '../helpers/server.js';
import { eventually } from './tenancy-fixtures.js';

const scratch = useScratchDirectory('kcpt-front-proxy-');
let cluster: TestServer;
const extraProcesses: ResultPromise[] = [];

beforeAll(async () => {
  cluster = await startServer({ extraArgs: ['--shards', '3'], readyTimeoutMs: 120_000 });
}, 150_000);
afterAll(async () => {
  for (const p of extraProcesses) {
    p.kill('SIGTERM');
    await p;
  }
  await cluster?.stop();
}, 60_000);

const at = (path: string) => `${cluster.url}/clusters/${path}`;
const k = (args: string[], opts?: KubectlOptions) => kubectl(cluster, args, opts);
const kIn = (path: string, args: string[], opts?: KubectlOptions) => k(['--server', at(path), ...args], opts);

/** A raw request through the proxy as kcp-admin (or with `token`), trusting the deployment's CA. */
async function raw(path: string, token = adminToken(cluster.kubeconfig)): Promise<{ status: number; body: Record<string, unknown> }> {
  const r = await execa('curl', ['-s', '--cacert', join(cluster.rootDir, 'ca.crt'), '-H', `Authorization: Bearer ${token}`, '-w', '\n%{http_code}', `${cluster.url}${path}`], { reject: false });
  const lines = String(r.stdout).split('\n');
  const status = Number(lines.pop());
  const text = lines.join('\n');
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    body = { text };
  }
  return { status, body };
}

async function kcpt(args: string[], env: Record<string, string>): Promise<string> {
  const r = await runKcpt(args, { ...cluster.env, ...env });
  expect(r.exitCode, `kcpt ${args.join(' ')}\n${r.stdout}\n${r.stderr}`).toBe(0);
  return r.stdout;
}

/** Creates root:<name> (or a child path) on the named shard and waits until it is Ready. */
async function workspaceOn(parentPath: string, name: string, shard: string): Promise<void> {
  const env = { KUBECONFIG: copyKubeconfig(`ws-${name}`) };
  await kcpt(['ws', ':' + parentPath], env);
  await kcpt(['ws', 'create', name, '--type', 'universal', '--location-selector', `name=${shard}`], env);
  const ws = JSON.parse((await kIn(parentPath, ['get', 'workspace', name, '-o', 'json'])).stdout) as {
    metadata: { annotations: Record<string, string> };
    status: { phase: string };
  };
  expect(ws.metadata.annotations['core.kcp.io/shard']).toBe(shard);
  expect(ws.status.phase).toBe('Ready');
}

function copyKubeconfig(name: string): string {
  const file = join(scratch.path, name);
  copyFileSync(cluster.kubeconfig, file);
  return file;
}

describe('kcpt start --shards 3 (front-proxy over three shards)', () => {
  it('registers three shards whose workspace URLs point at the proxy, and answers /readyz and /version itself', async () => {
    const shards = JSON.parse((await k(['get', 'shards', '-o', 'json'])).stdout) as { items: { metadata: { name: string }; spec: { baseURL: string; externalURL: string } }[] };
    expect(shards.items.map((s) => s.metadata.name).sort()).toEqual(['root', 'shard-1', 'shard-2']);
    for (const s of shards.items) {
      expect(s.spec.externalURL).toBe(cluster.url);
      expect(s.spec.baseURL).not.toBe(cluster.url);
    }
    expect(await raw('/readyz')).toEqual({ status: 200, body: { text: 'ok' } });
    // An idle client connection stays open for kube's 90 s, not Node's 5 s: a client reusing one the proxy was
    // closing at that moment would lose its request.
    expect((await apiRequest(cluster, '/readyz')).headers['keep-alive']).toBe('timeout=90');
    expect((await raw('/version')).body).toMatchObject({ major: '1', minor: '32' });
  });

  it('places workspaces on every shard, nested across shards, and kubectl works in each through the proxy', async () => {
    await workspaceOn('root', 'on-root', 'root');
    await workspaceOn('root', 'on-shard-1', 'shard-1');
    await workspaceOn('root', 'on-shard-2', 'shard-2');
    // root (root shard) → on-shard-1 (shard-1) → deep (shard-2): resolved segment by segment across three shards.
    await workspaceOn('root:on-shard-1', 'deep', 'shard-2');
    for (const path of ['root:on-root', 'root:on-shard-1', 'root:on-shard-2', 'root:on-shard-1:deep']) {
      const marker = `marker-${path.replaceAll(':', '-')}`;
      // kubectl's typed generator sends a protobuf body.
      await kIn(path, ['create', 'configmap', marker, '--from-literal', `path=${path}`]);
      await kIn(path, ['apply', '-f', '-'], { input: `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\ndata:\n  at: "${path}"\n` });
      await kIn(path, ['apply', '--server-side', '-f', '-'], { input: `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\ndata:\n  at: "${path}"\n  ssa: "yes"\n` });
      const names = (await kIn(path, ['get', 'configmaps', '-o', 'name'])).stdout.split('\n').filter((l) => l.includes('marker-') || l.includes('applied'));
      expect(names.sort()).toEqual(['configmap/applied', `configmap/${marker}`]);
      const applied = JSON.parse((await kIn(path, ['get', 'configmap', 'applied', '-o', 'json'])).stdout) as { data: Record<string, string> };
      expect(applied.data).toEqual({ at: path, ssa: 'yes' });
    }
  });

  it('streams a watch through the proxy from a workspace on another shard', async () => {
    const watch = execa('kubectl', ['--server', at('root:on-shard-2'), 'get', 'configmaps', '--watch', '-o', 'name'], {
      env: cluster.env,
      reject: false,
      timeout: 60_000,
    });
    let seen = '';
    watch.stdout?.on('data', (chunk: Buffer) => (seen += chunk.toString()));
    await eventually('the watch to list', async () => (seen.includes('configmap/applied') ? true : undefined));
    await kIn('root:on-shard-2', ['create', 'configmap', 'while-watching']);
    await eventually('the watch event', async () => (seen.includes('configmap/while-watching') ? true : undefined));
    watch.kill('SIGTERM');
    await watch;
  });

  it('lists and watches the workspace index (/services/workspaces) across every shard through the proxy', async () => {
    const index = `${cluster.url}/services/workspaces/all/clusters/*`;
    const paths = async () => {
      const list = JSON.parse((await k(['--server', index, 'get', 'workspaces', '-o', 'json'])).stdout) as { items: { metadata: { annotations: Record<string, string> } }[] };
      return list.items.map((w) => w.metadata.annotations['kcp.io/path']);
    };
    // deep's Workspace is stored on shard-1 (its parent's shard), the others on root: both shards answer.
    expect(await paths()).toEqual(expect.arrayContaining(['root:on-root', 'root:on-shard-1', 'root:on-shard-2', 'root:on-shard-1:deep']));
    const watch = execa('kubectl', ['--server', index, 'get', 'workspaces', '--watch', '-o', 'name'], { env: cluster.env, reject: false, timeout: 60_000 });
    let seen = '';
    watch.stdout?.on('data', (chunk: Buffer) => (seen += chunk.toString()));
    await eventually('the watch to list', async () => (seen.includes('workspace.tenancy.kcp.io/deep') ? true : undefined));
    // A child of a workspace on shard-2 is stored there: its events come from shard-2's index.
    await workspaceOn('root:on-shard-2', 'watched', 'shard-1');
    await eventually('the watch event from shard-2', async () => (seen.includes('workspace.tenancy.kcp.io/watched') ? true : undefined));
    watch.kill('SIGTERM');
    await watch;
    // The merged list's resourceVersion resumes a watch on every shard; one this proxy did not issue is refused.
    const list = await raw('/services/workspaces/all/clusters/*/apis/tenancy.kcp.io/v1alpha1/workspaces');
    expect(String((list.body.metadata as { resourceVersion: string }).resourceVersion)).toMatch(/^fanout\./);
    expect((await raw('/services/workspaces/all/clusters/*/apis/tenancy.kcp.io/v1alpha1/workspaces', 'not-a-token')).status).toBe(401);
  }, 90_000);

  it('runs the kcpt ws session through the proxy: create, enter, up, tree, home', async () => {
    const env = { KUBECONFIG: copyKubeconfig('session') };
    expect(await kcpt(['ws', 'create', 'org', '--enter'], env)).toContain("Current workspace is 'root:org' (type root:organization).");
    expect(await kcpt(['ws', 'create', 'team', '--type', 'universal', '--location-selector', 'name=shard-2', '--enter'], env)).toContain(
      "Current workspace is 'root:org:team' (type root:universal).",
    );
    await kubectl(cluster, ['create', 'configmap', 'in-team'], { env });
    expect((await kIn('root:org:team', ['get', 'configmaps', '-o', 'name'])).stdout).toContain('configmap/in-team');
    expect(await kcpt(['ws', '..'], env)).toBe("Current workspace is 'root:org' (type root:organization).");
    expect(await kcpt(['ws', 'tree'], env)).toBe('.\n└── org\n    └── team\n');
    expect(await kcpt(['ws', '~'], env)).toBe("Current workspace is 'root:users:zu:yc:kcp-admin' (type root:home).");
    await kubectl(cluster, ['create', 'configmap', 'at-home'], { env });
    // The same home through kcp's user: alias and kcpt's ~ segment, resolved by the proxy.
    expect((await kIn('user:kcp-admin', ['get', 'configmaps', '-o', 'name'])).stdout).toContain('configmap/at-home');
    expect((await raw('/clusters/~/api/v1/namespaces/default/configmaps/at-home')).status).toBe(200);
  });

  it("answers kcp's errors for what it cannot route", async () => {
    const unknown = await raw('/clusters/root:no-such-workspace/api/v1/namespaces');
    expect(unknown.status).toBe(403);
    expect(unknown.body.message).toBe('forbidden: User "kcp-admin" cannot get path "/clusters/root:no-such-workspace/api/v1/namespaces": workspace access not permitted');
    expect((await raw('/clusters/root:no-such-workspace/api', 'not-a-token')).status).toBe(401);
    // The wildcard spans shards: not routable through the proxy, as in kcp.
    expect((await raw('/clusters/*/api/v1/configmaps')).status).toBe(403);
    const r = await kIn('root:no-such-workspace', ['get', 'configmaps'], { reject: false });
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr).toContain('Forbidden');
  });

  it('publishes every shard\'s virtual workspaces through the proxy; an initializer releases a workspace on shard-1 there', async () => {
    const shards = JSON.parse((await k(['get', 'shards', '-o', 'json'])).stdout) as { items: { metadata: { name: string }; spec: { virtualWorkspaceURL: string } }[] };
    for (const s of shards.items) expect(s.spec.virtualWorkspaceURL).toBe(`${cluster.url}/shards/${s.metadata.name}`);
    await k(['create', '-f', '-'], {
      input: 'apiVersion: tenancy.kcp.io/v1alpha1\nkind: WorkspaceType\nmetadata:\n  name: gated\nspec:\n  initializer: true\n  extend:\n    with:\n    - {name: universal, path: root}\n',
    });
    await k(['create', '-f', '-'], {
      input: 'apiVersion: tenancy.kcp.io/v1alpha1\nkind: Workspace\nmetadata:\n  name: gated-ws\nspec:\n  type: {name: gated, path: root}\n  location:\n    selector:\n      matchLabels: {name: shard-1}\n',
    });
    const ws = await eventually('gated-ws to wait for its initializer', async () => {
      const got = JSON.parse((await k(['get', 'workspace', 'gated-ws', '-o', 'json'])).stdout) as { spec: { cluster?: string }; status: { phase?: string } };
      return got.status.phase === 'Initializing' && got.spec.cluster ? got : undefined;
    });
    // The type lists the initializing and terminating URL of every shard, each through the proxy.
    const urls = await eventually('the type\'s virtual workspace URLs', async () => {
      const wst = JSON.parse((await k(['get', 'workspacetype', 'gated', '-o', 'json'])).stdout) as { status?: { virtualWorkspaces?: { url: string }[] } };
      const list = (wst.status?.virtualWorkspaces ?? []).map((v) => v.url);
      return list.length === 6 ? list : undefined;
    });
    expect(urls).toEqual(
      ['root', 'shard-1', 'shard-2'].flatMap((s) => ['initializing', 'terminating'].map((vw) => `${cluster.url}/shards/${s}/services/${vw}workspaces/root:gated`)),
    );
    // Only shard-1's lists the workspace: it initializes where it was placed.
    const waitingAt = async (shard: string) => {
      const list = JSON.parse((await k(['--server', `${cluster.url}/shards/${shard}/services/initializingworkspaces/root:gated/clusters/*`, 'get', 'logicalclusters', '-o', 'json'])).stdout) as {
        items: { metadata: { annotations: Record<string, string> } }[];
      };
      return list.items.map((lc) => lc.metadata.annotations['kcp.io/cluster']);
    };
    expect(await waitingAt('shard-1')).toEqual([ws.spec.cluster]);
    expect(await waitingAt('root')).toEqual([]);
    const inside = `${cluster.url}/shards/shard-1/services/initializingworkspaces/root:gated/clusters/${ws.spec.cluster}`;
    await k(['--server', inside, 'create', 'configmap', 'seeded', '-n', 'default']);
    const patched = await k(['--server', inside, 'patch', 'logicalcluster', 'cluster', '--subresource=status', '--type=json', '-p', '[{"op":"remove","path":"/status/initializers/0"}]']);
    expect(patched.stdout).toBe('logicalcluster.core.kcp.io/cluster patched');
    await eventually('gated-ws to turn Ready', async () => ((await k(['get', 'workspace', 'gated-ws', '-o', 'jsonpath={.status.phase}'])).stdout === 'Ready' ? true : undefined));
    expect((await kIn('root:gated-ws', ['get', 'configmap', 'seeded', '-n', 'default', '-o', 'name'])).stdout.trim()).toBe('configmap/seeded');
    // A shard nobody registered is not a place to go.
    const nowhere = await raw('/shards/no-such-shard/services/initializingworkspaces/root:gated/clusters/*/apis/core.kcp.io/v1alpha1/logicalclusters');
    expect(nowhere).toMatchObject({ status: 404, body: { message: 'shards.core.kcp.io "no-such-shard" not found' } });
  }, 120_000);

  it("an APIExport's endpoint slice URL points through the proxy and reaches the virtual workspace", async () => {
    await k(['create', '-f', '-'], {
      input: [
        'apiVersion: apis.kcp.io/v1alpha1\nkind: APIResourceSchema\nmetadata:\n  name: v1.widgets.example.io\nspec:\n  group: example.io\n',
        '  names: {kind: Widget, listKind: WidgetList, plural: widgets, singular: widget}\n  scope: Namespaced\n',
        '  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema: {type: object, x-kubernetes-preserve-unknown-fields: true}\n',
        '---\napiVersion: apis.kcp.io/v1alpha1\nkind: APIExport\nmetadata:\n  name: widgets\nspec:\n  latestResourceSchemas: [v1.widgets.example.io]\n',
        '---\napiVersion: apis.kcp.io/v1alpha1\nkind: APIExportEndpointSlice\nmetadata:\n  name: widgets-slice\nspec:\n  export: {path: root, name: widgets}\n',
      ].join(''),
    });
    await kIn('root:on-root', ['create', '-f', '-'], {
      input: 'apiVersion: apis.kcp.io/v1alpha2\nkind: APIBinding\nmetadata:\n  name: widgets\nspec:\n  reference:\n    export: {path: root, name: widgets}\n',
    });
    const url = await eventually('the endpoint slice to list the root shard', async () => {
      const out = (await k(['get', 'apiexportendpointslice', 'widgets-slice', '-o', 'jsonpath={.status.endpoints[*].url}'])).stdout;
      return out || undefined;
    });
    expect(url).toBe(`${cluster.url}/shards/root/services/apiexport/root/widgets`);
    await eventually('the bound API to be served', async () => {
      const r = await kIn('root:on-root', ['create', '-f', '-'], { input: 'apiVersion: example.io/v1\nkind: Widget\nmetadata:\n  name: w1\n  namespace: default\n', reject: false });
      return r.exitCode === 0 ? r : undefined;
    });
    const seen = JSON.parse((await k(['--server', `${url}/clusters/*`, 'get', 'widgets', '-A', '-o', 'json'])).stdout) as { items: { metadata: { name: string; annotations: Record<string, string> } }[] };
    expect(seen.items.map((w) => w.metadata.name)).toEqual(['w1']);
  }, 90_000);

  it('a killed shard: its workspaces answer 503, the others work; restarted, it rejoins', async () => {
    const lockPid = Number(readFileSync(join(cluster.rootDir, 'shards', 'shard-2', 'kcpt.lock'), 'utf8').trim());
    process.kill(lockPid, 'SIGKILL');
    const down = await eventually('503 for a workspace on the killed shard', async () => {
      const r = await raw('/clusters/root:on-shard-2/api/v1/namespaces/default/configmaps');
      return r.status === 503 ? r : undefined;
    });
    expect(down.body).toMatchObject({ kind: 'Status', code: 503, message: 'Not available.', reason: 'ServiceUnavailable' });
    // A path through a healthy shard down to the dead one is unavailable too; the others are untouched.
    expect((await raw('/clusters/root:on-shard-1:deep/api/v1/namespaces')).status).toBe(503);
    expect((await kIn('root:on-shard-1', ['get', 'configmap', 'applied', '-o', 'name'])).stdout.trim()).toBe('configmap/applied');
    expect((await kIn('root:on-root', ['get', 'configmap', 'applied', '-o', 'name'])).stdout.trim()).toBe('configmap/applied');
    const kubectlDown = await kIn('root:on-shard-2', ['get', 'configmaps'], { reject: false });
    expect(kubectlDown.exitCode).not.toBe(0);
    expect(kubectlDown.stderr).toContain('ServiceUnavailable');
    // The workspace index would be missing shard-2's workspaces: kcp's 503 rather than a partial list.
    expect((await raw('/services/workspaces/all/clusters/*/apis/tenancy.kcp.io/v1alpha1/workspaces')).body).toMatchObject({ code: 503, message: 'Not available.' });

    // The cluster says how to bring it back; do exactly that.
    const line = await eventually('the restart hint', async () => /shard shard-2 exited \(SIGKILL\).*runs again: node (\S+) start (.+)/.exec(cluster.output()) ?? undefined);
    const restarted = execa('node', [line[1]!, 'start', ...line[2]!.trim().split(' ')], { cwd: repoRoot, reject: false, env: { NO_COLOR: '1' } });
    extraProcesses.push(restarted);
    await eventually('the restarted shard to serve its workspaces again', async () => {
      const r = await raw('/clusters/root:on-shard-2/api/v1/namespaces/default/configmaps/marker-root-on-shard-2');
      return r.status === 200 ? r : undefined;
    }, 60_000);
    expect((await kIn('root:on-shard-1:deep', ['get', 'configmap', 'applied', '-o', 'name'])).stdout.trim()).toBe('configmap/applied');
  }, 120_000);
});

describe('kcpt front-proxy on its own, with a kcp mapping file', () => {
  it('routes /clusters through the index and sends a mapped prefix to its backend (503 when that is down)', async () => {
    const dir = join(scratch.path, 'standalone-proxy');
    await execa('mkdir', ['-m', '700', '-p', dir]);
    for (const f of ['ca.crt', 'ca.key']) copyFileSync(join(cluster.rootDir, f), join(dir, f));
    const closed = await freePort();
    const mapping = join(scratch.path, 'mapping.yaml');
    writeFileSync(mapping, `- path: /clusters/\n  backend: https://ignored.invalid\n- path: /services/\n  backend: https://127.0.0.1:${closed}\n`);
    const port = await freePort();
    const proxy = spawnKcpt(
      ['front-proxy', '--root-kubeconfig', join(cluster.rootDir, 'shards', 'root', 'admin.kubeconfig'), '--root-directory', dir, '--secure-port', String(port), '--mapping-file', mapping],
      { NO_COLOR: '1', HOME: cluster.env.HOME! },
    );
    extraProcesses.push(proxy.child);
    const kubeconfig = await printedKubeconfig(proxy);
    const env = { KUBECONFIG: kubeconfig };
    await eventually('the index to sync', async () => {
      const r = await kubectl(cluster, ['--server', `https://127.0.0.1:${port}/clusters/root:on-shard-1`, 'get', 'configmap', 'applied', '-o', 'name'], { env, reject: false });
      return r.exitCode === 0 ? r : undefined;
    });
    const vw = await kubectl(cluster, ['--server', `https://127.0.0.1:${port}/services/apiexport/root/x/clusters/*`, 'get', 'configmaps'], { env, reject: false });
    expect(vw.exitCode).not.toBe(0);
    expect(vw.stderr).toContain('ServiceUnavailable');
  }, 90_000);
});
