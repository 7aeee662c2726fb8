/**
 * `kcpt bind` as a consumer runs it (real processes, no TTY) against `kcpt start`: it fails at once, leaving nothing
 * behind, when the export is missing or the binding's conditions say it cannot bind; `--ignore-existing` takes the
 * binding already there; `-o` prints the APIBinding as kubectl would. Each test makes its own provider and consumer.
 */
import { copyFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/server.js';
import { useTenancyServer } from './tenancy-fixtures.js';
import { runKcpt } from '../helpers/cli.js';

const e2e = useTenancyServer();
const crd = join(repoRoot, 'templates', 'api-provider', 'crd.yaml');
let scratch: string;
let count = 0;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'kcpt-cli-bind-'));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

function kcpt(args: string[], kubeconfig: string) {
  return runKcpt(args, { ...e2e.server.env, KUBECONFIG: kubeconfig });
}

async function ok(args: string[], kubeconfig: string): Promise<string> {
  const r = await kcpt(args, kubeconfig);
  expect(r.exitCode, `kcpt ${args.join(' ')}\n${r.stdout}\n${r.stderr}`).toBe(0);
  return r.stdout;
}

/** A provider workspace exporting the starter project's Widget CRD as `widgets`, and an empty consumer workspace. */
async function providerAndConsumer(): Promise<{ kubeconfig: string; provider: string; consumer: string }> {
  const n = ++count;
  const kubeconfig = join(scratch, `admin-${n}.kubeconfig`);
  copyFileSync(e2e.server.kubeconfig, kubeconfig);
  const provider = `root:bind-provider-${n}`;
  const consumer = `root:bind-consumer-${n}`;
  await ok(['ws', 'create', `bind-provider-${n}`, '-w', ':root'], kubeconfig);
  await ok(['ws', 'create', `bind-consumer-${n}`, '-w', ':root'], kubeconfig);
  await ok(['export', 'widgets', '-f', crd, '-w', `:${provider}`], kubeconfig);
  await ok(['ws', `:${consumer}`], kubeconfig);
  return { kubeconfig, provider, consumer };
}

const bindings = async (path: string) => (await e2e.at(path)(['get', 'apibindings', '-o', 'name'])).stdout;

describe('kcpt bind', () => {
  it('fails at once on an export that does not exist, creating nothing', async () => {
    const { kubeconfig, provider, consumer } = await providerAndConsumer();
    const r = await kcpt(['bind', `${provider}:nosuch`], kubeconfig);
    expect([r.exitCode, r.stdout, r.stderr]).toEqual([1, '', `Error: could not bind nosuch: APIExport ${provider}:nosuch not found`]);
    expect(await bindings(consumer)).toBe('');
  });

  it('fails as soon as the binding says why it cannot bind, and deletes the binding it made', async () => {
    const { kubeconfig, provider, consumer } = await providerAndConsumer();
    // The consumer serves the same resource from a CRD of its own: the binding reports NamingConflicts.
    await e2e.at(consumer)(['apply', '-f', crd]);
    const r = await kcpt(['bind', `${provider}:widgets`, '--timeout', '5m'], kubeconfig);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe('apibinding widgets created. Waiting to successfully bind ...');
    expect(r.stderr).toMatch(/^Error: could not bind widgets: InitialBindingCompleted False NamingConflicts: Unable to bind APIs: naming conflict with CustomResourceDefinition "widgets\.demo\.kcpt\.dev".* \(apibinding widgets deleted again\)$/);
    expect(await bindings(consumer)).toBe('');
  });

  it('--ignore-existing accepts a binding of the same export already there, and refuses one of another export', async () => {
    const { kubeconfig, provider } = await providerAndConsumer();
    expect(await ok(['bind', `${provider}:widgets`], kubeconfig)).toBe('apibinding widgets created. Waiting to successfully bind ...\nwidgets created and bound.');
    const again = await kcpt(['bind', `${provider}:widgets`], kubeconfig);
    expect([again.exitCode, again.stderr]).toEqual([1, 'Error: failed to create APIBinding: apibindings.apis.kcp.io "widgets" already exists']);
    expect(await ok(['bind', `${provider}:widgets`, '--ignore-existing'], kubeconfig)).toBe('apibinding widgets already exists and is bound.');

    await ok(['export', 'gadgets', '-f', crd, '-w', `:${provider}`], kubeconfig);
    const other = await kcpt(['bind', `${provider}:gadgets`, '--name', 'widgets', '--ignore-existing'], kubeconfig);
    expect([other.exitCode, other.stderr]).toEqual([1, `Error: apibinding widgets already exists and binds ${provider}:widgets, not ${provider}:gadgets`]);
  });

  it('prints the APIBinding as kubectl does with -o, progress on stderr', async () => {
    const { kubeconfig, provider } = await providerAndConsumer();
    const r = await kcpt(['bind', `${provider}:widgets`, '-o', 'json'], kubeconfig);
    expect(r.exitCode, r.stderr).toBe(0);
    const binding = JSON.parse(r.stdout) as { kind: string; metadata: { name: string; managedFields?: unknown }; status: { phase: string } };
    expect([binding.kind, binding.metadata.name, binding.status.phase, binding.metadata.managedFields]).toEqual(['APIBinding', 'widgets', 'Bound', undefined]);
    expect(r.stderr).toContain('widgets created and bound.');
    expect((await ok(['bind', `${provider}:widgets`, '--ignore-existing', '-o', 'name'], kubeconfig)).trim()).toBe('apibinding.apis.kcp.io/widgets');
  });
});
