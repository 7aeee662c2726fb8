import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WriteAuthority } from '../admission/write-authority.js';
import { configMaps, namespaces } from '../builtin/core/resources.js';
import { renderList, renderOptions } from '../endpoints/render.js';
import { openSqliteStore, type SqliteStore } from '../storage/sqlite-store.js';
import { GenericStore } from './generic-store.js';
import { listObjects, type ListQuery } from './list.js';
import { buildPredicate } from './predicates.js';

interface ListedConfigMap {
  metadata: { name: string; resourceVersion: string; labels?: Record<string, string> };
  data?: Record<string, string>;
  apiVersion?: string;
  kind?: string;
}
interface ConfigMapList {
  kind: string;
  apiVersion: string;
  metadata: { resourceVersion: string; continue?: string; remainingItemCount?: number };
  items: ListedConfigMap[];
}

describe('LIST through the SQLite store, rendered as JSON', () => {
  let dir: string;
  let store: SqliteStore;
  let generic: GenericStore;
  const ctx = { rt: configMaps, cluster: 'c1', namespace: 'ns' };

  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'kcpt-list-'));
    store = openSqliteStore(path.join(dir, 'kcpt.db'));
    generic = new GenericStore(store, namespaces, { authority: new WriteAuthority() });
    for (const name of ['before', 'ns', 'after']) {
      generic.create({ rt: namespaces, cluster: 'c1', namespace: '' }, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    }
    // Neighbours on both sides of the listed namespace must never leak into its pages.
    for (const namespace of ['before', 'ns', 'after']) {
      for (let i = 0; i < 7; i++) {
        generic.create({ ...ctx, namespace }, {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: `cm-${i}`, namespace, labels: { parity: i % 2 ? 'odd' : 'even' } },
          data: { i: String(i), text: 'ünïcødé ✓' },
        });
      }
    }
  });
  afterEach(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function list(query: ListQuery & { labelSelector?: string; fieldSelector?: string } = {}): Promise<ConfigMapList> {
    const predicate = buildPredicate(configMaps, query.labelSelector, query.fieldSelector);
    const page = await listObjects(store, configMaps, 'c1', 'ns', predicate, query);
    const render = renderOptions(configMaps, { accept: 'application/json', query: new URLSearchParams() });
    const answer = JSON.parse(renderList(configMaps, page, render).body.toString('utf8')) as ConfigMapList;
    // The texts a watch's initial events and the other forms are built from say the same.
    expect(page.items.map((t) => JSON.parse(t) as ListedConfigMap).map(({ apiVersion: _a, kind: _k, ...rest }) => rest)).toEqual(answer.items);
    return answer;
  }

  /** The revision each object was last written at, read back one by one. */
  const revisionOf = (name: string) => String(store.get(`/registry/core/configmaps/c1/ns/${name}`)!.revision);

  it('lists the namespace in name order, each item with its own resourceVersion and without apiVersion/kind', async () => {
    const answer = await list();
    expect(answer).toMatchObject({ kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: String(store.currentRevision()) } });
    expect(answer.items.map((i) => i.metadata.name)).toEqual(['cm-0', 'cm-1', 'cm-2', 'cm-3', 'cm-4', 'cm-5', 'cm-6']);
    for (const item of answer.items) {
      expect(item.metadata.resourceVersion).toBe(revisionOf(item.metadata.name));
      expect(Object.keys(item.metadata)[0]).toBe('resourceVersion');
      expect(item).not.toHaveProperty('apiVersion');
      expect(item).not.toHaveProperty('kind');
      expect(item.data!.text).toBe('ünïcødé ✓');
    }
  });

  it('pages with limit and continue: every object once, remainingItemCount counting down, one revision throughout', async () => {
    const seen: string[] = [];
    const remaining: (number | undefined)[] = [];
    let continueToken: string | undefined;
    let revision: string | undefined;
    do {
      const page = await list({ limit: 3, continueToken });
      seen.push(...page.items.map((i) => i.metadata.name));
      remaining.push(page.metadata.remainingItemCount);
      revision ??= page.metadata.resourceVersion;
      expect(page.metadata.resourceVersion).toBe(revision);
      continueToken = page.metadata.continue;
      // A write between pages is not seen by the pages that follow: they read at the first page's revision.
      generic.create(ctx, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-late-${seen.length}`, namespace: 'ns' } });
    } while (continueToken);
    expect(seen).toEqual(['cm-0', 'cm-1', 'cm-2', 'cm-3', 'cm-4', 'cm-5', 'cm-6']);
    expect(remaining).toEqual([4, 1, undefined]);
  });

  it('filters by label and field selectors, paging over what matches', async () => {
    const odd = await list({ labelSelector: 'parity=odd' });
    expect(odd.items.map((i) => i.metadata.name)).toEqual(['cm-1', 'cm-3', 'cm-5']);
    const named = await list({ fieldSelector: 'metadata.name=cm-4' });
    expect(named.items.map((i) => i.metadata.name)).toEqual(['cm-4']);
    expect(named.items[0]!.metadata.resourceVersion).toBe(revisionOf('cm-4'));
    const first = await list({ labelSelector: 'parity=even', limit: 2 });
    expect(first.items.map((i) => i.metadata.name)).toEqual(['cm-0', 'cm-2']);
    // Filtered pages do not know how many matches are left.
    expect(first.metadata.remainingItemCount).toBeUndefined();
    const second = await list({ limit: 2, continueToken: first.metadata.continue });
    expect(second.items.map((i) => i.metadata.name)).toEqual(['cm-3', 'cm-4']);
  });

  it('lists an exact past revision as it was then', async () => {
    const before = await list();
    const cm2 = generic.get(ctx, 'cm-2');
    generic.update(ctx, 'cm-2', { ...cm2, data: { i: 'changed' } });
    generic.delete(ctx, 'cm-5');
    const now = await list();
    expect(now.items.find((i) => i.metadata.name === 'cm-2')!.data!.i).toBe('changed');
    expect(now.items.map((i) => i.metadata.name)).not.toContain('cm-5');
    const then = await list({ resourceVersion: before.metadata.resourceVersion, resourceVersionMatch: 'Exact' });
    expect(then).toEqual(before);
  });
});
