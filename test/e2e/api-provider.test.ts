/**
 * An API provider end to end, as a provider and its consumers work: `kcpt export init` copies the starter project,
 * `kcpt export` publishes its CRD from a provider workspace, consumers bind it with `kcpt bind` (and `kubectl kcp bind
 * apiexport` through the plugin shim), create Widgets with the real kubectl, and the template's controller (run
 * with tsx, one informer per URL of the export's virtual workspace at /clusters/*) writes every Widget's status, including
 * those of a workspace that binds after the controller started. Then the export is rolled to a changed CRD with
 * the objects kept, and wrong argument forms get kcp's messages.
 */
import { copyFileSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectl } from '../helpers/kubectl.js';
import { repoRoot } from '../helpers/server.js';
import { eventually, getJson, ownOrganization, useTenancyServer, type Json } from './tenancy-fixtures.js';
import { runKcpt } from '../helpers/cli.js';

// The shared server: the provider and its consumers are workspaces of an organization of this file's own.
const e2e = useTenancyServer();
const org = ownOrganization(e2e, 'api-provider');
const orgPath = org.path;
const exportRef = `${orgPath}:provider:widgets`;
let scratch: string;
let project: string;
let pluginPath: string;
let controller: ResultPromise | undefined;
let controllerOutput = '';
let vwUrl = '';

interface Run {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/** `node bin/run.js …` as a user's shell runs it (no TTY), with its own kubeconfig. */
function kcpt(args: string[], kubeconfig: string): Promise<Run> {
  return runKcpt(args, { ...e2e.server.env, KUBECONFIG: kubeconfig }, { stripFinalNewline: false });
}

async function ok(args: string[], kubeconfig: string): Promise<string> {
  const r = await kcpt(args, kubeconfig);
  expect(r.exitCode, `kcpt ${args.join(' ')}\n${r.stdout}\n${r.stderr}`).toBe(0);
  return r.stdout;
}

function kubeconfigCopy(name: string): string {
  const file = join(scratch, `${name}.kubeconfig`);
  copyFileSync(e2e.server.kubeconfig, file);
  return file;
}

/** A copy of the server's kubeconfig whose current workspace is the file's organization. */
async function kubeconfigInOrg(name: string): Promise<string> {
  const file = kubeconfigCopy(name);
  await ok(['ws', `:${orgPath}`], file);
  return file;
}

const widget = (name: string, size: number) => `apiVersion: demo.kcpt.dev/v1alpha1
kind: Widget
metadata:
  name: ${name}
spec:
  size: ${size}
`;

/** The Widget as kubectl sees it in a consumer, once the controller has reconciled its current generation. */
async function reconciled(path: string, name: string): Promise<Json> {
  return eventually(
    `widget ${name} in ${path} reconciled (controller output:\n${controllerOutput})`,
    async () => {
      const w = await getJson(e2e.at(path), ['widget', name, '-n', 'default']);
      const ready = (w.status?.conditions as Json[] | undefined)?.find((c) => c.type === 'Ready');
      return w.status?.observedGeneration === w.metadata.generation && ready?.status === 'True' ? w : undefined;
    },
    30_000,
  );
}

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'kcpt-api-provider-'));
  const bin = join(scratch, 'bin');
  mkdirSync(bin);
  symlinkSync(join(repoRoot, 'bin', 'kubectl-kcp.js'), join(bin, 'kubectl-kcp'));
  pluginPath = [bin, process.env.PATH ?? ''].join(delimiter);
  await org.create();
}, 90_000);

afterAll(async () => {
  controller?.kill('SIGTERM');
  await controller?.catch(() => undefined);
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('an API provider and its consumers (kcpt export, kcpt bind, the template controller)', () => {
  const provider = () => join(scratch, 'provider.kubeconfig');
  const consumer = () => join(scratch, 'consumer.kubeconfig');

  it('kcpt export init copies the starter project', async () => {
    project = join(scratch, 'widgets-provider');
    const out = await ok(['export', 'init', project], kubeconfigCopy('init'));
    expect(out).toContain('src/controller.ts');
    expect(readFileSync(join(project, 'crd.yaml'), 'utf8')).toBe(readFileSync(join(repoRoot, 'templates/api-provider/crd.yaml'), 'utf8'));
    // The project's dependencies: the ones this checkout already has (a user runs npm install).
    symlinkSync(join(repoRoot, 'node_modules'), join(project, 'node_modules'));
    const again = await kcpt(['export', 'init', project], kubeconfigCopy('init'));
    expect([again.exitCode, again.stderr.trim()]).toEqual([1, `Error: ${project} already exists and is not an empty directory; choose another DIR`]);
  });

  it('kcpt export publishes the CRD from its workspace and prints its reference and virtual workspace URL', async () => {
    await kubeconfigInOrg('provider');
    await ok(['ws', 'create', 'provider', '--enter'], provider());
    const out = await ok(['export', 'widgets', '-f', join(project, 'crd.yaml')], provider());
    const lines = out.trim().split('\n');
    expect(lines[0]).toMatch(/^apiresourceschema v\d{6}-[0-9a-f]{8}\.widgets\.demo\.kcpt\.dev created$/);
    expect(lines.slice(1, 3)).toEqual(['apiexport widgets created', `Export: ${exportRef}`]);
    expect(lines[3]).toMatch(new RegExp(`^Virtual workspace URL: ${e2e.server.url}/services/apiexport/[a-z0-9]+/widgets$`));
    vwUrl = lines[3]!.slice('Virtual workspace URL: '.length);
    expect(lines[4]).toBe(`Bind it in another workspace with: kcpt bind ${exportRef}`);

    // Running it again with the same CRD changes nothing.
    const again = await ok(['export', 'widgets', '-f', join(project, 'crd.yaml')], provider());
    expect(again.split('\n')[0]).toBe('apiexport widgets unchanged');
    const exported = await getJson(e2e.at(`${orgPath}:provider`), ['apiexports.v1alpha2.apis.kcp.io', 'widgets']);
    expect(exported.spec.resources).toEqual([{ group: 'demo.kcpt.dev', name: 'widgets', schema: lines[0]!.split(' ')[1], storage: { crd: {} } }]);
  });

  it('the template controller starts before any consumer binds', async () => {
    controller = execa('node', ['--import', 'tsx', 'src/controller.ts'], {
      cwd: project,
      env: { ...e2e.server.env, KUBECONFIG: provider() },
      stdin: 'ignore',
      reject: false,
      buffer: false,
    });
    controller.stdout?.on('data', (d: Buffer) => (controllerOutput += d.toString()));
    controller.stderr?.on('data', (d: Buffer) => (controllerOutput += d.toString()));
    await eventually('the controller to start watching', async () => (controllerOutput.includes('watching widgets') ? true : undefined), 30_000);
    expect(controllerOutput).toContain(`in every workspace bound to ${vwUrl}`);
  });

  it('two consumers bind with kcpt bind and kubectl kcp bind apiexport; their Widgets are isolated and reconciled', async () => {
    await kubeconfigInOrg('consumer');
    await ok(['ws', 'create', 'c1'], consumer());
    await ok(['ws', 'create', 'c2'], consumer());
    expect(await ok(['bind', exportRef, '-w', `:${orgPath}:c1`], consumer())).toBe(
      'apibinding widgets created. Waiting to successfully bind ...\nwidgets created and bound.\n',
    );
    await ok(['ws', `:${orgPath}:c2`], consumer());
    const viaPlugin = await kubectl(e2e.server, ['kcp', 'bind', 'apiexport', exportRef, '--name', 'my-widgets'], {
      env: { PATH: pluginPath, KUBECONFIG: consumer() },
    });
    expect(viaPlugin.stdout).toBe('apibinding my-widgets created. Waiting to successfully bind ...\nmy-widgets created and bound.');

    await e2e.at(`${orgPath}:c1`)(['create', '-n', 'default', '-f', '-'], { input: widget('one', 1) });
    await kubectl(e2e.server, ['create', '-n', 'default', '-f', '-'], { input: widget('two', 2), env: { KUBECONFIG: consumer() } });
    expect((await reconciled(`${orgPath}:c1`, 'one')).status.conditions[0].message).toBe('a plain widget of size 1 is ready');
    expect((await reconciled(`${orgPath}:c2`, 'two')).status.conditions[0].message).toBe('a plain widget of size 2 is ready');
    const names = async (path: string) => (await getJson(e2e.at(path), ['widgets', '-A'])).items.map((w: Json) => w.metadata.name);
    expect(await names(`${orgPath}:c1`)).toEqual(['one']);
    expect(await names(`${orgPath}:c2`)).toEqual(['two']);

    // The provider sees both through the virtual workspace, each annotated with its consumer's logical cluster: at
    // every URL of the endpoint slice (one server lists one; a sharded cluster one per shard hosting bindings).
    const slice = await getJson(e2e.at(`${orgPath}:provider`), ['apiexportendpointslice', 'widgets']);
    const urls = (slice.status.endpoints as Json[]).map((e) => e.url as string);
    const all = (await Promise.all(urls.map((url) => getJson(e2e.atUrl(`${url}/clusters/*`), ['widgets', '-A'])))).flatMap((l) => l.items as Json[]);
    expect(all.map((w: Json) => w.metadata.name).sort()).toEqual(['one', 'two']);
    const clusters = new Set(all.map((w: Json) => w.metadata.annotations['kcp.io/cluster']));
    expect(clusters.size).toBe(2);

    // A new generation is reconciled again.
    await e2e.at(`${orgPath}:c1`)(['patch', 'widget', 'one', '-n', 'default', '--type=merge', '-p', '{"spec":{"size":5}}']);
    const patched = await reconciled(`${orgPath}:c1`, 'one');
    expect([patched.metadata.generation, patched.status.observedGeneration]).toEqual([2, 2]);
  });

  it('a third consumer that binds later is picked up without restarting the controller', async () => {
    await ok(['ws', `:${orgPath}`], consumer());
    await ok(['ws', 'create', 'c3', '--enter'], consumer());
    await ok(['bind', exportRef], consumer());
    await kubectl(e2e.server, ['create', '-n', 'default', '-f', '-'], { input: widget('three', 3), env: { KUBECONFIG: consumer() } });
    expect((await reconciled(`${orgPath}:c3`, 'three')).status.observedGeneration).toBe(1);
    expect(controller?.exitCode).toBeNull();
  });

  it('kcpt export list counts the bindings per schema; a changed CRD rolls the export and every binding, objects kept', async () => {
    const listed = JSON.parse(await ok(['export', 'list', '-o', 'json'], provider()));
    const first = listed.exports[0];
    expect(first).toMatchObject({ name: 'widgets', export: exportRef, virtualWorkspaceURL: vwUrl, bindings: 3 });
    const oldSchema = first.resources[0].schema as string;
    expect(first.bindingsBySchema).toEqual({ 'widgets.demo.kcpt.dev': { [oldSchema]: 3 } });
    const table = await ok(['export', 'list'], provider());
    expect(table.split('\n')[1]).toMatch(new RegExp(`^widgets\\s+widgets\\.demo\\.kcpt\\.dev\\s+${oldSchema.replaceAll('.', '\\.')}\\s+3$`));

    const changed = join(scratch, 'crd-v2.yaml');
    writeFileSync(changed, readFileSync(join(project, 'crd.yaml'), 'utf8').replace('                colour:\n', '                shape:\n                  type: string\n                colour:\n'));
    const out = await ok(['export', 'widgets', '-f', changed], provider());
    const newSchema = /^apiresourceschema (\S+) created$/m.exec(out)?.[1];
    expect(newSchema).toMatch(/^v\d{6}-[0-9a-f]{8}\.widgets\.demo\.kcpt\.dev$/);
    expect(newSchema).not.toBe(oldSchema);
    expect(out).toContain(`apiexport widgets: widgets.demo.kcpt.dev rolled from ${oldSchema} to ${newSchema}`);

    await eventually('every binding on the new schema', async () => {
      const now = JSON.parse((await kcpt(['export', 'list', '-o', 'json'], provider())).stdout);
      const counts = now.exports[0].bindingsBySchema['widgets.demo.kcpt.dev'];
      return counts[newSchema!] === 3 && Object.keys(counts).length === 1 ? true : undefined;
    });
    // The objects are still there, and the new field is served.
    await e2e.at(`${orgPath}:c1`)(['patch', 'widget', 'one', '-n', 'default', '--type=merge', '-p', '{"spec":{"shape":"round"}}']);
    const one = await reconciled(`${orgPath}:c1`, 'one');
    expect(one.spec).toEqual({ size: 5, shape: 'round' });
    expect((await getJson(e2e.at(`${orgPath}:c2`), ['widget', 'two', '-n', 'default'])).spec).toEqual({ size: 2 });
  });

  it('wrong argument forms get kcp’s messages and exit 2; an unknown export fails with the reason', async () => {
    const missing = await kcpt(['bind'], consumer());
    const help = "\nSee 'kcpt bind --help' for usage.";
    expect([missing.exitCode, missing.stderr.trim()]).toEqual([2, `Error: \`root:ws:apiexport_object\` reference to bind is required as an argument${help}`]);
    const bare = await kubectl(e2e.server, ['kcp', 'bind', 'apiexport', 'widgets'], { env: { PATH: pluginPath, KUBECONFIG: consumer() }, reject: false });
    expect([bare.exitCode, bare.stderr.trim()]).toEqual([
      2,
      `Error: fully qualified reference to workspace where APIExport exists is required. The format is \`<logical-cluster-name>:<apiexport>\` or \`<full>:<path>:<to>:<apiexport>\`${help}`,
    ]);
    const both = await kcpt(['bind', exportRef, '--accept-all-permission-claims', '--reject-all-permission-claims'], consumer());
    expect([both.exitCode, both.stderr.trim()]).toEqual([2, `Error: cannot use both --accept-all-permission-claims and --reject-all-permission-claims${help}`]);
    const badClaim = await kcpt(['bind', exportRef, '--accept-permission-claim', 'secrets'], consumer());
    expect([badClaim.exitCode, badClaim.stderr.trim()]).toEqual([2, `Error: invalid accepted permission claims: [invalid permission claim "secrets"]${help}`]);

    // No waiting out the timeout for an export that is not there, and nothing left behind.
    const unknown = await kcpt(['bind', `${orgPath}:provider:nope`, '-w', `:${orgPath}:c1`], consumer());
    expect([unknown.exitCode, unknown.stdout, unknown.stderr]).toEqual([1, '', `Error: could not bind nope: APIExport ${orgPath}:provider:nope not found\n`]);
    expect((await e2e.at(`${orgPath}:c1`)(['get', 'apibindings', '-o', 'name'])).stdout).not.toContain('nope');
  });
});
