import { describe, expect, it } from 'vitest';
import { StatusError } from '../machinery/status.js';
import { decodeResourceVersion, encodeResourceVersion, mergeLists, takeReferences } from './workspace-index-fan-out.js';
import { eventObjects } from './workspace-index-join.js';

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

  it('takes the references out of a shard’s list, so the client never sees them', () => {
    const ref = { parent: 'p', name: 'app', cluster: 'c', path: 'root:team:app' };
    const body: Record<string, any> = { kind: 'WorkspaceList', items: [], kcptWorkspaceReferences: [ref, ref, { parent: 1 }] };
    expect(takeReferences(body)).toEqual([ref]);
    expect(body).toEqual({ kind: 'WorkspaceList', items: [] });
    expect(takeReferences({ items: [] })).toEqual([]);
  });

  it('turns a parent shard’s list into watch event objects: Workspaces, or one-row Tables', () => {
    const list = { kind: 'WorkspaceList', apiVersion: 'tenancy.kcp.io/v1alpha1', metadata: { resourceVersion: '7' }, items: [ws('root:a', 'a')] };
    expect(eventObjects(list)).toEqual([{ kind: 'Workspace', apiVersion: 'tenancy.kcp.io/v1alpha1', ...ws('root:a', 'a') }]);
    const table = { kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata: { resourceVersion: '7' }, columnDefinitions: [{ name: 'Name' }], rows: [{ cells: ['a'] }, { cells: ['b'] }] };
    const events = eventObjects(table);
    expect(events.map((e) => e.rows)).toEqual([[{ cells: ['a'] }], [{ cells: ['b'] }]]);
    expect(events[0]).toMatchObject({ kind: 'Table', columnDefinitions: [{ name: 'Name' }] });
    // Each event's metadata is its own: the proxy sets a resourceVersion on each.
    expect(events[0]!.metadata).not.toBe(events[1]!.metadata);
  });
});
