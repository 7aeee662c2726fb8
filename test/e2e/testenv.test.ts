/**
 * `kcpt testenv` as a Go or Python suite would use it: against a running `kcpt start`, one call per test, then the
 * real kubectl with nothing but the printed kubeconfig.
 */
import { chmod, mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectl } from '../helpers/kubectl.js';
import { repoRoot, startServer, type TestServer } from '../helpers/server.js';
import { runKcpt } from '../helpers/cli.js';

let server: TestServer;
let scratch: string;
const crdFile = join(repoRoot, 'test/testing-library/widget-crd.yaml');

beforeAll(async () => {
  server = await startServer();
  scratch = await mkdtemp(join(tmpdir(), 'kcpt-testenv-e2e-'));
}, 90_000);

afterAll(async () => {
  await server?.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

function kcpt(args: string[], env: Record<string, string> = {}) {
  return runKcpt(args, { ...server.env, ...env }, { extendEnv: false });
}

/** kubectl that knows only `file` (and an empty HOME). */
async function kubectlWith(file: string, args: string[], input?: string) {
  const home = await mkdtemp(join(scratch, 'home-'));
  return kubectl(server, args, { env: { KUBECONFIG: file, HOME: home }, reject: false, input });
}

interface Printed {
  kubeconfig: string;
  workspace: string;
  clusterName: string;
  url: string;
}

describe('kcpt testenv', () => {
  it('creates a Ready workspace with the CRDs Established and prints a kubeconfig kubectl uses alone', async () => {
    const made = await kcpt(['testenv', '--crd', crdFile]);
    expect(made.exitCode, made.stderr).toBe(0);
    const env = JSON.parse(made.stdout) as Printed;
    expect(env.workspace).toMatch(/^root:testenv-[0-9a-f]{10}$/);
    expect(env.url).toBe(`${server.url}/clusters/${env.workspace}`);
    expect((await stat(env.kubeconfig)).mode & 0o777).toBe(0o600);

    const widget = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'default' }, spec: { size: 2 } };
    const created = await kubectlWith(env.kubeconfig, ['create', '-f', '-'], JSON.stringify(widget));
    expect(created.stdout, created.stderr).toBe('widget.example.com/w created');
    const cluster = await kubectlWith(env.kubeconfig, ['get', 'widget', 'w', '-n', 'default', '-o', "jsonpath={.metadata.annotations['kcp\\.io/cluster']}"]);
    expect(cluster.stdout).toBe(env.clusterName);
    // The parent sees it Ready.
    const phase = await kubectl(server, ['--context', 'root', 'get', 'workspace', env.workspace.slice('root:'.length), '-o', 'jsonpath={.status.phase}']);
    expect(phase.stdout).toBe('Ready');
  });

  it('gives every call its own workspace', async () => {
    const [a, b] = await Promise.all([kcpt(['testenv']), kcpt(['testenv'])]);
    const [ea, eb] = [JSON.parse(a.stdout) as Printed, JSON.parse(b.stdout) as Printed];
    expect(ea.workspace).not.toBe(eb.workspace);
    expect(ea.kubeconfig).not.toBe(eb.kubeconfig);
    await kubectlWith(ea.kubeconfig, ['create', 'configmap', 'mine']);
    const other = await kubectlWith(eb.kubeconfig, ['get', 'configmap', 'mine']);
    expect(other.stderr).toContain('configmaps "mine" not found');
  });

  it('takes --parent, --type and --kubeconfig-out, and prints KEY=value lines with -o env', async () => {
    const org = JSON.parse((await kcpt(['testenv', '--type', 'root:organization'])).stdout) as Printed;
    const file = join(scratch, 'child.kubeconfig');
    const made = await kcpt(['testenv', '--parent', org.workspace, '--type', 'universal', '--kubeconfig-out', file, '-o', 'env']);
    expect(made.exitCode, made.stderr).toBe(0);
    const vars = Object.fromEntries(made.stdout.trim().split('\n').map((line) => line.split(/=(.*)/s).slice(0, 2)));
    expect(Object.keys(vars)).toEqual(['KUBECONFIG', 'KCPT_WORKSPACE', 'KCPT_CLUSTER_NAME', 'KCPT_URL']);
    expect(vars.KUBECONFIG).toBe(file);
    expect(vars.KCPT_WORKSPACE.startsWith(`${org.workspace}:testenv-`)).toBe(true);
    const type = await kubectlWith(org.kubeconfig, ['get', 'workspace', vars.KCPT_WORKSPACE.split(':').pop()!, '-o', 'jsonpath={.spec.type.name} {.spec.cluster}']);
    expect(type.stdout).toBe(`universal ${vars.KCPT_CLUSTER_NAME}`);
    expect(await readFile(file, 'utf8')).toContain(`server: ${vars.KCPT_URL}`);
  });

  it('fails with one line and exit 1 on a missing parent, a bad CRD file or a CRD the server refuses', async () => {
    const parent = await kcpt(['testenv', '--parent', 'root:nope']);
    expect(parent.exitCode).toBe(1);
    expect(parent.stderr.trim()).toBe('Error from server (NotFound): workspaces.tenancy.kcp.io "root:nope" not found');

    const missing = await kcpt(['testenv', '--crd', join(scratch, 'missing.yaml')]);
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toContain('no such file or directory');

    const bad = join(scratch, 'bad-crd.yaml');
    await writeFile(bad, (await readFile(crdFile, 'utf8')).replace('name: widgets.example.com', 'name: wrong.example.com'));
    const refused = await kcpt(['testenv', '--crd', bad]);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toMatch(/installing CRD "wrong\.example\.com" in root:testenv-[0-9a-f]+: .*must be spec\.names\.plural\+"\."\+spec\.group/);
    // The workspace made for it is deleted again (gone, or on its way out).
    const name = /root:(testenv-[0-9a-f]+)/.exec(refused.stderr)![1]!;
    const left = await kubectl(server, ['--context', 'root', 'get', 'workspace', name, '-o', 'jsonpath={.metadata.deletionTimestamp}'], { reject: false });
    expect(left.stderr.includes('NotFound') || left.stdout !== '').toBe(true);
  });

  it('testenv delete removes the workspace and the kubeconfig, from the file or from KUBECONFIG as -o env set it', async () => {
    const made = JSON.parse((await kcpt(['testenv'])).stdout) as Printed;
    const name = made.workspace.slice('root:'.length);
    const deleted = await kcpt(['testenv', 'delete', made.kubeconfig]);
    expect([deleted.exitCode, deleted.stdout, deleted.stderr]).toEqual([0, `Deleted workspace ${made.workspace} and ${made.kubeconfig}.`, '']);
    await expect(stat(made.kubeconfig)).rejects.toMatchObject({ code: 'ENOENT' });
    const left = await kubectl(server, ['--context', 'root', 'get', 'workspace', name, '-o', 'jsonpath={.metadata.deletionTimestamp}'], { reject: false });
    expect(left.stderr.includes('NotFound') || left.stdout !== '').toBe(true);

    // As a shell script does it: export $(kcpt testenv -o env) … kcpt testenv delete.
    const lines = (await kcpt(['testenv', '-o', 'env'])).stdout.trim().split('\n');
    const vars = Object.fromEntries(lines.map((line) => line.split(/=(.*)/s).slice(0, 2))) as Record<string, string>;
    const again = await kcpt(['testenv', 'delete', '-o', 'json'], { KUBECONFIG: vars.KUBECONFIG! });
    expect(JSON.parse(again.stdout)).toEqual([{ kubeconfig: vars.KUBECONFIG, workspace: vars.KCPT_WORKSPACE, deleted: true }]);
    // A second time there is nothing left to delete.
    const gone = await kcpt(['testenv', 'delete', vars.KUBECONFIG!]);
    expect([gone.exitCode, gone.stderr]).toEqual([1, `Error: ${vars.KUBECONFIG} does not exist`]);
  });

  it('testenv delete refuses a kubeconfig of any other workspace, and --all cleans the default directory', async () => {
    const admin = await kcpt(['testenv', 'delete', server.kubeconfig]);
    expect([admin.exitCode, admin.stderr]).toEqual([1, expect.stringContaining('is not a kubeconfig written by kcpt testenv')]);
    await stat(server.kubeconfig);

    const tmp = await mkdtemp(join(scratch, 'tmp-'));
    const made = await Promise.all([kcpt(['testenv', '-o', 'jsonpath={.kubeconfig}'], { TMPDIR: tmp }), kcpt(['testenv', '-o', 'yaml'], { TMPDIR: tmp })]);
    expect(made.map((m) => m.exitCode)).toEqual([0, 0]);
    expect(made[0]!.stdout.startsWith(join(tmp, `kcpt-testenv-${process.getuid!()}`))).toBe(true);
    expect(made[1]!.stdout).toMatch(/^kubeconfig: .*\nworkspace: root:testenv-/);
    const all = await kcpt(['testenv', 'delete', '--all'], { TMPDIR: tmp });
    expect([all.exitCode, all.stdout.trim().split('\n').length]).toEqual([0, 2]);
    expect(await readdir(join(tmp, `kcpt-testenv-${process.getuid!()}`))).toEqual([]);
  });

  it('writes kubeconfigs only into a directory no one else can read', async () => {
    const tmp = await mkdtemp(join(scratch, 'shared-tmp-'));
    const dir = join(tmp, `kcpt-testenv-${process.getuid!()}`);
    await mkdir(dir);
    await chmod(dir, 0o777);
    const refused = await kcpt(['testenv'], { TMPDIR: tmp });
    expect([refused.exitCode, refused.stderr]).toEqual([1, expect.stringContaining('is not a private directory of yours')]);
    expect(await readdir(dir)).toEqual([]);
  });
});
