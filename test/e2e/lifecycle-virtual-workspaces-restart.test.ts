/**
 * Lifecycle virtual workspaces across a restart of the server (lifecycle-virtual-workspaces.test.ts has the rest on
 * the shared server): an Initializing workspace and a Terminating one resume where they were.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { uniqueName } from '../helpers/kubectl.js';
import { lifecycleWorld, removeFirst } from './lifecycle-fixtures.js';
import { getJson, useTenancyServer, waitForPhase, workspaceByApi, type Json } from './tenancy-fixtures.js';

// A server of its own: it restarts it.
const e2e = useTenancyServer({ private: true });
const { orgPath, k, initA, term, ofOrg, setUp, publishedUrl, workspaceIn } = lifecycleWorld(e2e);

beforeAll(setUp, 60_000);

describe('a restart in the middle', () => {
  it('resumes an Initializing workspace and a Terminating one', async () => {
    const initializing = await workspaceIn('Initializing', initA);
    const terminating = await workspaceByApi(e2e, orgPath, uniqueName('ws'), ofOrg(term));
    await k(['delete', 'workspace', terminating.metadata.name, '--wait=false']);
    await waitForPhase(k, terminating.metadata.name, 'Terminating');

    await e2e.server.restart();

    expect((await getJson(k, ['ws', initializing.metadata.name])).status.phase).toBe('Initializing');
    expect((await getJson(k, ['ws', terminating.metadata.name])).status.phase).toBe('Terminating');
    const initVw = await publishedUrl(initA, 'initializingworkspaces');
    await e2e.atUrl(`${initVw}/clusters/${initializing.spec.cluster}`)([
      'patch', 'logicalcluster', 'cluster', '--subresource=status', '--type=json', '-p', removeFirst('initializers'),
    ]);
    await waitForPhase(k, initializing.metadata.name);
    const termVw = await publishedUrl(term, 'terminatingworkspaces');
    await e2e.atUrl(`${termVw}/clusters/${terminating.spec.cluster}`)([
      'patch', 'logicalcluster', 'cluster', '--subresource=status', '--type=json', '-p', removeFirst('terminators'),
    ]);
    await k(['wait', '--for=delete', `workspace/${terminating.metadata.name}`, '--timeout=60s']);
    // Both are usable / gone as if nothing had happened.
    expect((await e2e.at(`${orgPath}:${initializing.metadata.name}`)(['get', 'namespace', 'default', '-o', 'name'])).stdout).toBe('namespace/default');
    const lcs = await e2e.asShardAdmin('*')(['get', 'logicalclusters', '-o', 'json']);
    expect((JSON.parse(lcs.stdout).items as Json[]).map((lc) => lc.metadata.annotations['kcp.io/cluster'])).not.toContain(terminating.spec.cluster);
  });
});
