import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../registry/types.js';
import { placeWorkspace, UNSCHEDULABLE_ANNOTATION } from './shard-placement.js';
import type { Workspace } from './workspace-resource.js';

const shard = (name: string, labels: Record<string, string> = {}, annotations: Record<string, string> = {}): KubeObject => ({
  metadata: { name, labels: { name, ...labels }, annotations },
  spec: { baseURL: `https://${name}:6443`, externalURL: `https://proxy:8443` },
});
const ws = (selector?: Record<string, unknown>): Workspace => ({ metadata: { name: 'w' }, spec: selector ? { location: { selector } } : {} });

describe('placeWorkspace', () => {
  const shards = [shard('root'), shard('shard-1', { region: 'eu' }), shard('shard-2', {}, { [UNSCHEDULABLE_ANNOTATION]: '' })];

  it('picks the shard the selector names, with its URLs and region', () => {
    expect(placeWorkspace(shards, ws({ matchLabels: { name: 'shard-1' } }))).toEqual({
      shard: 'shard-1',
      region: 'eu',
      spec: { baseURL: 'https://shard-1:6443', externalURL: 'https://proxy:8443' },
    });
  });

  it('spreads workspaces without a selector over every schedulable shard, never an unschedulable one', () => {
    const chosen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const p = placeWorkspace(shards, ws());
      if ('shard' in p) chosen.add(p.shard);
    }
    expect([...chosen].sort()).toEqual(['root', 'shard-1']);
  });

  it("answers kcp's reason when nothing fits, and says what is wrong with a bad selector", () => {
    expect(placeWorkspace(shards, ws({ matchLabels: { name: 'shard-2' } }))).toEqual({ unschedulable: 'No available shards to schedule the workspace' });
    expect(placeWorkspace([], ws())).toEqual({ unschedulable: 'No available shards to schedule the workspace' });
    const bad = placeWorkspace(shards, ws({ matchExpressions: [{ key: 'name', operator: 'Near', values: ['x'] }] }));
    expect(bad).toMatchObject({ unschedulable: expect.stringMatching(/^spec.location.selector is invalid: /) });
  });
});
