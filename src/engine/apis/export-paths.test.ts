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

  it('takes neither of two clusters claiming one path', () => {
    const counts = new ExportPathCounts();
    counts.add('root:provider', 'abc', 1);
    counts.add('root:provider', 'forged', 1);
    expect(counts.clusterOf('root:provider')).toBeUndefined();
    counts.add('root:provider', 'forged', -1);
    expect(counts.clusterOf('root:provider')).toBe('abc');
  });

  it('resolves this shard’s exports by their kcp.io/path and follows changes', () => {
    const store = createMemoryStore();
    store.commit([{ type: 'create', key: `${EXPORTS_PREFIX}abc/widgets`, value: exportValue('root:provider') }]);
    const canonical: Record<string, string> = { abc: 'root:provider', def: 'root:other', forged: 'root:alice' };
    const paths = new LocalExportPaths(store, (cluster) => canonical[cluster]);
    expect(paths.clusterOfPath('root:provider')).toBe('abc');
    expect(paths.clusterOfPath('root:other')).toBeUndefined();
    store.commit([{ type: 'create', key: `${EXPORTS_PREFIX}def/gadgets`, value: exportValue('root:other') }]);
    expect(paths.clusterOfPath('root:other')).toBe('def');
    // An export whose annotation disagrees with its cluster's own path (its LogicalCluster's, written by the system).
    store.commit([{ type: 'create', key: `${EXPORTS_PREFIX}forged/gizmos`, value: exportValue('root:elsewhere') }]);
    expect(paths.clusterOfPath('root:elsewhere')).toBeUndefined();
    store.commit([{ type: 'delete', key: `${EXPORTS_PREFIX}abc/widgets` }]);
    expect(paths.clusterOfPath('root:provider')).toBeUndefined();
    paths.stop();
  });
});
