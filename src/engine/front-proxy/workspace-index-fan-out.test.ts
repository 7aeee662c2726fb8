import { describe, expect, it } from 'vitest';
import { StatusError } from '../machinery/status.js';
import { decodeResourceVersion, encodeResourceVersion, mergeLists } from './workspace-index-fan-out.js';

const ws = (path: string, name: string) => ({ metadata: { name, annotations: { 'kcp.io/path': path } } });

describe('the workspace index merged across shards', () => {
  it('carries every shard’s resourceVersion in one, and refuses one it did not issue', () => {
    const rv = encodeResourceVersion({ root: '80', 'shard-1': '69' });
    expect(rv).toMatch(/^fanout\.[A-Za-z0-9_-]+$/);
    expect(decodeResourceVersion(rv)).toEqual({ root: '80', 'shard-1': '69' });
    // A plain resourceVersion ('', '0') goes to every shard as it is.
    expect(decodeResourceVersion('0')).toBeUndefined();
    expect(decodeResourceVersion('')).toBeUndefined();
    expect(() => decodeResourceVersion('fanout.bm90LWpzb24')).toThrow(StatusError);
    expect(() => decodeResourceVersion(`fanout.${Buffer.from('{"root":1}').toString('base64url')}`)).toThrow(/was not issued by this front-proxy/);
  });

  it('merges items, or Table rows, of every shard ordered by path, without a continue token', () => {
    const merged = mergeLists([
      { kind: 'WorkspaceList', metadata: { resourceVersion: '5', continue: 'x' }, items: [ws('root:b', 'b'), ws('root:b:c', 'c')] },
      { kind: 'WorkspaceList', metadata: { resourceVersion: '9' }, items: [ws('root:a', 'a')] },
    ]);
    expect(merged.items.map((w: { metadata: { name: string } }) => w.metadata.name)).toEqual(['a', 'b', 'c']);
    expect(merged.metadata.continue).toBeUndefined();
    const table = mergeLists([
      { kind: 'Table', columnDefinitions: [{ name: 'Name' }], rows: [{ cells: ['z'], object: ws('root:z', 'z') }] },
      { kind: 'Table', columnDefinitions: [{ name: 'Name' }], rows: [{ cells: ['y'], object: ws('root:y', 'y') }] },
    ]);
    expect(table.rows.map((r: { cells: string[] }) => r.cells[0])).toEqual(['y', 'z']);
    expect(table.columnDefinitions).toEqual([{ name: 'Name' }]);
  });
});
