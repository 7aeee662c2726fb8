import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../storage/index.js';
import { ExportPathCounts, LocalExportPaths } from './export-paths.js';
import { EXPORTS_PREFIX } from './names.js';

const exportValue = (path: string) => JSON.stringify({ metadata: { annotations: { 'kcp.io/path': path } } });

describe('export paths', () => {
  it('counts a cluster once per export carrying the path, forgetting it with the last', () => {
    const counts = new ExportPathCounts();
    counts.add('root:provider', 'abc', 1);
    counts.add('root:provider', 'abc', 1);
    counts.add('root:provider', 'abc', -1);
    expect(counts.clusterOf('root:provider')).toBe('abc');
    counts.add('root:provider', 'abc', -1);
    expect(counts.clusterOf('root:provider')).toBeUndefined();
  });

  it('resolves this shard’s exports by their kcp.io/path and follows changes', () => {
    const store = createMemoryStore();
    store.commit([{ type: 'create', key: `${EXPORTS_PREFIX}abc/widgets`, value: exportValue('root:provider') }]);
    const paths = new LocalExportPaths(store);
    expect(paths.clusterOfPath('root:provider')).toBe('abc');
    expect(paths.clusterOfPath('root:other')).toBeUndefined();
    store.commit([{ type: 'create', key: `${EXPORTS_PREFIX}def/gadgets`, value: exportValue('root:other') }]);
    expect(paths.clusterOfPath('root:other')).toBe('def');
    store.commit([{ type: 'delete', key: `${EXPORTS_PREFIX}abc/widgets` }]);
    expect(paths.clusterOfPath('root:provider')).toBeUndefined();
    paths.stop();
  });
});
