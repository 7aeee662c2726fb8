import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../storage/memory-store.js';
import { OccupiedResources } from './occupied-resources.js';

describe('occupied resources', () => {
  it('answers from one probe per resource, then from the writes it watches', () => {
    const store = createMemoryStore();
    store.commit([{ type: 'create', key: '/registry/core/namespaces/c1/default', value: '{}' }]);
    const occupied = new OccupiedResources(store);
    // before start nothing is trusted: every resource may have objects
    expect(occupied.mayHaveObjects('core/configmaps')).toBe(true);
    occupied.start();
    expect(occupied.mayHaveObjects('core/namespaces')).toBe(true);
    expect(occupied.mayHaveObjects('core/configmaps')).toBe(false);
    expect(occupied.mayHaveObjects('core/configmaps')).toBe(false);
    store.commit([{ type: 'create', key: '/registry/core/configmaps/c2/default/x', value: '{}' }]);
    expect(occupied.mayHaveObjects('core/configmaps')).toBe(true);
    // once occupied, always looked at (an emptied resource may fill again any time)
    store.commit([{ type: 'delete', key: '/registry/core/configmaps/c2/default/x' }]);
    expect(occupied.mayHaveObjects('core/configmaps')).toBe(true);
    // keys outside /registry/ and short keys are ignored
    store.commit([{ type: 'create', key: '/registry/x', value: '{}' }]);
    expect(occupied.mayHaveObjects('apps/deployments')).toBe(false);
    occupied.stop();
    store.close();
  });
});
