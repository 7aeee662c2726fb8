/**
 * What a test of workspaces cannot do on the shared server: assert root's exact list of WorkspaceTypes (other files
 * add theirs) and place workspaces by relabelling the shard or making it unschedulable (everyone's workspaces would
 * wait). A server of its own.
 */
import { describe, expect, it } from 'vitest';
import { uniqueName } from '../helpers/kubectl.js';
import { parseTable } from '../helpers/table.js';
import { condition, create, eventually, getJson, useTenancyServer, waitForPhase, workspace } from './tenancy-fixtures.js';

const e2e = useTenancyServer({ private: true });

describe('root’s built-ins', () => {
  const k = e2e.at('root');

  it('get workspacetypes lists the bootstrapped types', async () => {
    const table = parseTable((await k(['get', 'workspacetypes'])).stdout);
    expect(table.header).toEqual(['NAME', 'AGE']);
    expect(table.records.map((r) => r.NAME)).toEqual(['home', 'homebucket', 'homeroot', 'organization', 'root', 'team', 'universal']);
    const org = await getJson(k, ['workspacetype', 'organization']);
    expect(org.metadata.annotations['kcp.io/path']).toBe('root');
    expect(org.spec).toEqual({
      extend: { with: [{ name: 'universal', path: 'root' }] },
      defaultChildWorkspaceType: { name: 'universal', path: 'root' },
      limitAllowedChildren: { types: [{ name: 'universal', path: 'root' }] },
      limitAllowedParents: { types: [{ name: 'root', path: 'root' }] },
    });
  });
});

describe('placement on the shard', () => {
  const k = e2e.at('root');

  it('a location selector no shard matches waits in Scheduling until the shard is labelled to match', async () => {
    const name = uniqueName('ws');
    await create(k, workspace(name, undefined, { spec: { location: { selector: { matchLabels: { region: 'mars' } } } } }));
    const waiting = await eventually('the Unschedulable condition', async () => {
      const ws = await getJson(k, ['ws', name]);
      return condition(ws, 'WorkspaceScheduled') ? ws : undefined;
    });
    expect(condition(waiting, 'WorkspaceScheduled')).toBe('False Unschedulable No available shards to schedule the workspace');
    expect(waiting.status.phase).toBe('Scheduling');
    expect(waiting.spec.cluster).toBeUndefined();
    const [row] = parseTable((await k(['get', 'ws', name])).stdout).records;
    expect(row).toMatchObject({ NAME: name, PHASE: 'Scheduling', URL: '' });

    // The shard's region label makes it a match; its value then shows in the REGION column.
    await k(['label', 'shard', 'root', 'region=mars']);
    try {
      await waitForPhase(k, name);
      const [ready] = parseTable((await k(['get', 'ws', name])).stdout).records;
      expect(ready).toMatchObject({ NAME: name, REGION: 'mars', PHASE: 'Ready', URL: e2e.url(`root:${name}`) });
      expect(condition(await getJson(k, ['ws', name]), 'WorkspaceScheduled')).toBe('True');
    } finally {
      await k(['label', 'shard', 'root', 'region-']);
    }
  });

  it('an unschedulable shard takes no new workspaces', async () => {
    await k(['annotate', 'shard', 'root', 'experimental.core.kcp.io/unschedulable=true']);
    const name = uniqueName('ws');
    try {
      await create(k, workspace(name));
      const ws = await eventually('the Unschedulable condition', async () => {
        const got = await getJson(k, ['ws', name]);
        return condition(got, 'WorkspaceScheduled') ? got : undefined;
      });
      expect(condition(ws, 'WorkspaceScheduled')).toBe('False Unschedulable No available shards to schedule the workspace');
    } finally {
      await k(['annotate', 'shard', 'root', 'experimental.core.kcp.io/unschedulable-']);
    }
    await waitForPhase(k, name);
  });
});
