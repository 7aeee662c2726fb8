/**
 * Rendering objects and lists for the client: plain JSON (spliced stored bytes where possible) or a
 * meta.k8s.io Table when kubectl asks for one.
 */
import { buildTable, defaultPrinter, parseIncludeObject, parseTableAccept, type TableVersion } from '../machinery/table.js';
import type { ListPage } from '../registry/list.js';
import { apiVersionOf, type KubeObject, type ResourceType } from '../registry/types.js';

export interface RenderOptions {
  accept: string | undefined;
  query: URLSearchParams;
}

export function wantsTable(accept: string | undefined): TableVersion | undefined {
  return parseTableAccept(accept ?? '').table;
}

function tableJson(
  rt: ResourceType,
  objects: KubeObject[],
  opts: RenderOptions,
  version: TableVersion,
  listMeta: Record<string, unknown>,
  withColumns: boolean,
): string {
  return JSON.stringify(
    buildTable({
      printer: rt.printer ?? defaultPrinter(),
      objects,
      now: Date.now(),
      includeObject: parseIncludeObject(opts.query),
      listMeta,
      includeColumnDefinitions: withColumns,
      tableVersion: version,
    }),
  );
}

export function renderObject(rt: ResourceType, obj: KubeObject, opts: RenderOptions): string {
  const table = wantsTable(opts.accept);
  if (!table) return JSON.stringify(obj);
  return tableJson(rt, [obj], opts, table, { resourceVersion: obj.metadata?.resourceVersion ?? '' }, true);
}

export function renderList(rt: ResourceType, page: ListPage, opts: RenderOptions): string {
  const listMeta: Record<string, unknown> = { resourceVersion: page.resourceVersion };
  if (page.continueToken) listMeta.continue = page.continueToken;
  if (page.remainingItemCount !== undefined) listMeta.remainingItemCount = page.remainingItemCount;
  const table = wantsTable(opts.accept);
  if (rt.convert) {
    // Stored in another shape: these lists cannot splice stored bytes and must convert each item.
    const objects = (page.parsed ?? page.items.map((t) => JSON.parse(t) as KubeObject)).map((o) => rt.convert!.fromStorage(o));
    page = { ...page, parsed: objects, items: objects.map((o) => JSON.stringify(o)) };
  }
  if (table) {
    const objects = page.parsed ?? page.items.map((t) => JSON.parse(t) as KubeObject);
    return tableJson(rt, objects, opts, table, listMeta, true);
  }
  // Splice the stored JSON texts into the list without re-serializing them.
  const head = JSON.stringify({ kind: rt.listKind, apiVersion: apiVersionOf(rt), metadata: listMeta });
  return `${head.slice(0, -1)},"items":[${page.items.join(',')}]}`;
}

/**
 * One watch event's object, as JSON or as a one-row Table (column definitions only on the first event).
 * `table` is negotiated once per watch by the caller, not once per event.
 */
export function renderWatchObject(
  rt: ResourceType,
  json: string,
  opts: RenderOptions,
  table: TableVersion | undefined,
  first: boolean,
): string {
  if (!table) return json;
  const obj = JSON.parse(json) as KubeObject;
  return tableJson(rt, [obj], opts, table, { resourceVersion: obj.metadata?.resourceVersion ?? '' }, first);
}
