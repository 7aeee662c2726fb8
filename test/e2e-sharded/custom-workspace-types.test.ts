/**
 * Custom WorkspaceTypes in a sharded cluster, as kcp's cache server makes them work: a type defined in root, with
 * defaultAPIBindings to an export of a workspace on shard-2, used by workspaces placed on every shard (each Ready
 * with its binding bound); children admitted inside a custom-typed workspace on a shard that does not store the type;
 * and a type defined in a workspace on one shard used by its child placed on another.
 */
import { describe, expect, it } from 'vitest';
import { runKcpt } from '../helpers/cli.js';
import { uniqueName } from '../helpers/kubectl.js';
import { apiExport, resourceSchema } from '../e2e/apis-fixtures.js';
import { create, eventually, getJson, useTenancyServer, workspace, workspaceType, type Json } from '../e2e/tenancy-fixtures.js';

// The project's shared cluster: the file's workspaces and its type in root have names of its own (the provider is an
// organization, which only root may parent).
const e2e = useTenancyServer({ sharded: true });
const provider = uniqueName('provider');
const providerPath = `root:${provider}`;
const withWidgets = uniqueName('with-widgets');
const w = (shard: string) => `${provider}-w-${shard}`;
const widgets = { group: 'widgets.example.com', plural: 'widgets', kind: 'Widget' };
const shards = ['root', 'shard-1', 'shard-2'];

/** `kcpt ws create` as kcp-admin in `parent`, placed on `shard`; the Workspace once Ready. */
async function placed(parent: string, name: string, type: string, shard: string): Promise<Json> {
  const run = await runKcpt(['ws', 'create', name, '--type', type, '--location-selector', `name=${shard}`, '-w', `:${parent}`], {
    ...e2e.server.env,
    KUBECONFIG: e2e.server.kubeconfig,
  });
  expect(run.exitCode, `${run.stdout}\n${run.stderr}`).toBe(0);
  const ws = await eventually(`${parent}:${name} Ready`, async () => {
    const got = await getJson(e2e.at(parent), ['workspace', name]);
    return got.status?.phase === 'Ready' ? got : undefined;
  }, 60_000);
  expect(ws.metadata.annotations['core.kcp.io/shard']).toBe(shard);
  return ws;
}

/** `exportPath`: as the type names it; a type naming no path binds in its own workspace, by cluster name (kcp's). */
async function boundWidgets(path: string, exportPath = providerPath): Promise<void> {
  const bindings = (await getJson(e2e.at(path), ['apibindings'])).items as Json[];
  expect(bindings.map((b) => [b.spec.reference.export.path, b.spec.reference.export.name, b.status?.phase])).toEqual([[exportPath, 'widgets', 'Bound']]);
  expect((await e2e.at(path)(['get', 'widgets', '-A'])).stderr).toMatch(/No resources found/);
}

describe('custom WorkspaceTypes across shards', () => {
  it('a root type with defaultAPIBindings makes Ready, bound workspaces on every shard', async () => {
    await placed('root', provider, 'root:organization', 'shard-2');
    await create(e2e.at(providerPath), resourceSchema(widgets));
    await create(e2e.at(providerPath), apiExport({ name: 'widgets', ...widgets }));
    await create(e2e.at('root'), workspaceType(withWidgets, { extend: { with: [{ name: 'universal', path: 'root' }] }, defaultAPIBindings: [{ path: providerPath, export: 'widgets' }] }));
    for (const shard of shards) {
      await placed('root', w(shard), `root:${withWidgets}`, shard);
      await boundWidgets(`root:${w(shard)}`);
    }
  }, 180_000);

  it('a custom-typed workspace on another shard than its type takes children of its type’s default', async () => {
    // The shard-1 workspace's type lives in root (on the root shard); shard-1 admits the child and places it on shard-2.
    const onShard1 = `root:${w('shard-1')}`;
    await placed(onShard1, 'nested', `root:${withWidgets}`, 'shard-2');
    await boundWidgets(`${onShard1}:nested`);
    await create(e2e.at(onShard1), workspace('plain'));
    const plain = await eventually('the defaulted child Ready', async () => {
      const got = await getJson(e2e.at(onShard1), ['workspace', 'plain']);
      return got.status?.phase === 'Ready' ? got : undefined;
    });
    expect(plain.spec.type).toEqual({ name: 'universal', path: 'root' });
  }, 120_000);

  it('a type defined in a workspace on shard-2 is used by its children placed on the other shards', async () => {
    const providerCluster = (await getJson(e2e.at('root'), ['workspace', provider])).spec.cluster as string;
    await create(e2e.at(providerPath), workspaceType('leaf', { extend: { with: [{ name: 'universal', path: 'root' }] }, defaultAPIBindings: [{ export: 'widgets' }] }));
    for (const shard of shards) {
      const ws = await placed(providerPath, `leaf-${shard}`, 'leaf', shard);
      expect(ws.spec.type).toEqual({ name: 'leaf', path: providerPath });
      await boundWidgets(`${providerPath}:leaf-${shard}`, providerCluster);
    }
  }, 180_000);
});
