import { describe, expect, it } from 'vitest';
import { configMaps } from '../builtin/core/resources.js';
import { spliceResourceVersion } from '../registry/stored-object.js';
import type { ResourceType } from '../registry/types.js';
import { jsonListBody, withoutTypeMeta, type StoredItem } from './list-body.js';
import { renderList, renderOptions } from './render.js';

/** What the list's JSON was before it was written in one pass: each item spliced, stripped when typed, joined. */
function joined(head: string, items: StoredItem[], typed: boolean): string {
  const texts = items.map((i) => spliceResourceVersion(i.value, i.revision));
  return `${head},"items":[${(typed ? texts.map(withoutTypeMeta) : texts).join(',')}]}`;
}

const head = '{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"12"}';
const stored = (value: unknown, revision = 7): StoredItem => ({ value: typeof value === 'string' ? value : JSON.stringify(value), revision });

const forms: [string, StoredItem][] = [
  ['a typical object', stored({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'n' }, data: { k: 'v' } })],
  ['empty metadata', stored({ apiVersion: 'v1', kind: 'ConfigMap', metadata: {}, data: {} }, 9)],
  ['no apiVersion', stored({ kind: 'ConfigMap', metadata: { name: 'b' } })],
  ['no kind', stored({ apiVersion: 'v1', metadata: { name: 'c' } })],
  ['neither', stored({ metadata: { name: 'd' } })],
  ['no metadata', stored({ apiVersion: 'v1', kind: 'ConfigMap', data: { k: 'v' } })],
  ['metadata after other fields', stored({ apiVersion: 'v1', data: { k: 'v' }, kind: 'ConfigMap', metadata: { name: 'e' } })],
  ['a nested "metadata" before the real one', stored('{"apiVersion":"v1","spec":{"metadata":{"x":1}},"metadata":{"name":"f"}}')],
  ['an escaped marker in a string', stored({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'g', annotations: { a: '"metadata":{' } } })],
  ['multi-byte text', stored({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'h', labels: { 'x': 'é' } }, data: { k: 'ünïcødé 日本語 🎉' } })],
  ['a large revision', stored({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'i' } }, 999_999_999_999)],
];

describe('jsonListBody', () => {
  for (const typed of [true, false]) {
    for (const [name, item] of forms) {
      it(`writes ${name} as splice${typed ? ' and strip' : ''} do (${typed ? 'typed' : 'custom resource'} list)`, () => {
        const body = jsonListBody(head, [item], typed);
        expect(body.toString('utf8')).toBe(joined(head, [item], typed));
      });
    }
    it(`writes every form in one list, separated by commas (${typed ? 'typed' : 'custom resource'})`, () => {
      const items = forms.map(([, item]) => item);
      const body = jsonListBody(head, items, typed);
      expect(body.toString('utf8')).toBe(joined(head, items, typed));
      expect(JSON.parse(body.toString('utf8')).items).toHaveLength(items.length);
    });
  }

  it('writes an empty list', () => {
    expect(jsonListBody(head, [], true).toString()).toBe(`${head},"items":[]}`);
  });

  it('grows the body when a text form comes out longer than the stored text', () => {
    // Not in the stored form (metadata after another field), so a typed list re-serializes it, and JSON.stringify
    // writes 1e20 as its 21 digits: the item comes out far longer than its stored text and the room kept for it.
    const value = `{"data":[${Array(40).fill('1e20').join(',')}],"metadata":{"name":"n"}}`;
    const items = [stored(value), stored({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'after' } })];
    const body = jsonListBody(head, items, true).toString('utf8');
    expect(body).toBe(joined(head, items, true));
    expect(body.length).toBeGreaterThan(head.length + value.length + 64 * items.length);
  });

  it('writes text that takes several bytes a character, in every item of a list', () => {
    for (const width of [1, 2, 3, 50, 400]) {
      const items = Array.from({ length: 30 }, (_, i) =>
        stored({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `m${i}` }, data: { k: '日本語✓é🎉'.repeat(width) } }, i + 1),
      );
      for (const typed of [true, false]) expect(jsonListBody(head, items, typed).toString('utf8')).toBe(joined(head, items, typed));
    }
  });

  it('keeps room for the items after one that came out longer than its stored text', () => {
    const value = `{"data":[${Array(40).fill('1e20').join(',')}],"metadata":{"name":"n"}}`;
    const big = (name: string) => stored({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: 'x'.repeat(1000) } });
    const items = [stored(value), big('a'), big('b'), big('c')];
    expect(jsonListBody(head, items, true).toString('utf8')).toBe(joined(head, items, true));
  });
});

describe('renderList', () => {
  const page = {
    resourceVersion: '12',
    stored: [stored({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { k: 'v' } }, 5)],
    get items() {
      return this.stored.map((i) => spliceResourceVersion(i.value, i.revision));
    },
  };
  const options = (accept: string, query = '') => renderOptions(configMaps, { accept, query: new URLSearchParams(query) });

  it('answers the same JSON from the stored items as from the texts', () => {
    const fromStored = renderList(configMaps, page, options('application/json')).body.toString();
    const fromTexts = renderList(configMaps, { resourceVersion: '12', items: page.items }, options('application/json')).body.toString();
    expect(fromStored).toBe(fromTexts);
    expect(JSON.parse(fromStored)).toEqual({
      kind: 'ConfigMapList',
      apiVersion: 'v1',
      metadata: { resourceVersion: '12' },
      items: [{ metadata: { resourceVersion: '5', name: 'a' }, data: { k: 'v' } }],
    });
  });

  it('keeps apiVersion and kind on the items of a custom resource list', () => {
    const widgets = { ...configMaps, isCustomResource: true, listKind: 'WidgetList', kind: 'Widget', group: 'example.com' } as ResourceType;
    const body = renderList(widgets, page, renderOptions(widgets, { accept: 'application/json', query: new URLSearchParams() })).body;
    expect(JSON.parse(body.toString()).items[0]).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { resourceVersion: '5', name: 'a' }, data: { k: 'v' } });
  });

  it('indents a pretty list and writes YAML as before', () => {
    expect(renderList(configMaps, page, options('application/json', 'pretty=true')).body.toString()).toContain('\n  "items": [\n');
    expect(renderList(configMaps, page, options('application/yaml')).body.toString()).toContain('resourceVersion: "5"');
  });
});
