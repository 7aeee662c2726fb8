/**
 * A finalizer inside a workspace being deleted holds the deletion in phase Deleting until it is removed, also across
 * a server restart. A server of its own: it restarts it.
 */
import { describe, expect, it } from 'vitest';
import { uniqueName } from '../helpers/kubectl.js';
import { createWorkspace, getJson, useTenancyServer, waitForPhase } from './tenancy-fixtures.js';
import { deletionChecks } from './workspaces-deletion-fixtures.js';

const e2e = useTenancyServer({ private: true });
const k = e2e.at('root');
const { leftovers, expectPathGone } = deletionChecks(e2e);

describe('a finalizer inside the workspace', () => {
  it('holds the deletion in phase Deleting until it is removed, across a restart', async () => {
    const name = uniqueName('held');
    const ws = await createWorkspace(k, name);
    const inside = e2e.at(`root:${name}`);
    await inside(['create', 'configmap', 'guarded', '-n', 'default']);
    await inside(['patch', 'configmap', 'guarded', '-n', 'default', '--type=merge', '-p', '{"metadata":{"finalizers":["example.com/hold"]}}']);

    await k(['delete', 'workspace', name, '--wait=false']);
    await waitForPhase(k, name, 'Deleting');
    const deleting = await getJson(k, ['ws', name]);
    expect(deleting.metadata.labels['tenancy.kcp.io/phase']).toBe('Deleting');
    expect(deleting.metadata.finalizers).toEqual(['core.kcp.io/logicalcluster']);
    // The workspace stays reachable while its content is being deleted; the held object is marked.
    const guarded = await getJson(inside, ['configmap', 'guarded', '-n', 'default']);
    expect(guarded.metadata.deletionTimestamp).toBeDefined();
    const lc = await getJson(inside, ['logicalcluster', 'cluster']);
    expect(lc.status.phase).toBe('Deleting');
    expect(lc.metadata.labels['tenancy.kcp.io/phase']).toBe('Deleting');

    await e2e.server.restart();

    expect((await getJson(k, ['ws', name])).status.phase).toBe('Deleting');
    await inside(['patch', 'configmap', 'guarded', '-n', 'default', '--type=merge', '-p', '{"metadata":{"finalizers":null}}']);
    await k(['wait', '--for=delete', `workspace/${name}`, '--timeout=60s']);
    await expectPathGone(`root:${name}`);
    expect(await leftovers([ws.spec.cluster])).toEqual({});
  });
});
