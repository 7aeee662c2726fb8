import { describe, expect, it } from 'vitest';
import { encodeStored } from '../registry/stored-object.js';
import type { KubeObject } from '../registry/types.js';
import { isReady, isReadyText } from './pending-markers.js';

const workspace = (status: Record<string, unknown>, metadata: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'tenancy.kcp.io/v1alpha1',
  kind: 'Workspace',
  metadata: { name: 'w', uid: 'u', labels: { 'tenancy.kcp.io/phase': String(status.phase) }, ...metadata },
  spec: { cluster: 'c', URL: 'https://h/clusters/root:w', type: { name: 'universal', path: 'root' } },
  status,
});
const conditions = [{ type: 'WorkspaceScheduled', status: 'True', lastTransitionTime: '2026-11-29T00:00:00Z' }];

describe('a stored Workspace read as Ready from its text', () => {
  it('is Ready when its stored text ends with status.phase Ready and it is not being deleted', () => {
    const text = encodeStored(workspace({ conditions, phase: 'Ready' }));
    expect(isReadyText(text)).toBe(true);
    expect(isReady(JSON.parse(text))).toBe(true);
  });

  it('says nothing (parse it) for any other phase, a deletion, terminators after the phase, or a label named phase', () => {
    const cases = [
      workspace({ conditions, phase: 'Initializing' }),
      workspace({ conditions, phase: 'Ready' }, { deletionTimestamp: '2026-11-29T00:00:01Z' }),
      workspace({ conditions, phase: 'Ready', terminators: ['root:t'] }),
      workspace({ conditions, phase: 'Scheduling' }, { labels: { phase: 'Ready' } }),
    ];
    for (const ws of cases) expect(isReadyText(encodeStored(ws))).toBe(false);
    // The third is Ready all the same: the controller learns it from the parse.
    expect(isReady(cases[2]!)).toBe(true);
  });
});
