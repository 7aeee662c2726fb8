/**
 * The workspace index's Table of every scheduled workspace (what `kcpt ws tree` asks for), kept between requests.
 *
 * Building it from storage parses every stored Workspace (~1.6 KB each, half of it managedFields) and serialises each
 * row's metadata: ~35 ms for 1,000 workspaces, most of `ws tree`'s server time, repeated for an answer that only
 * changes when a Workspace does. So the rows' parts that do not depend on the clock (the object the cells are read
 * from, without managedFields, and its metadata as JSON) are kept until the next write under the Workspaces prefix,
 * which one store watch reports synchronously after each commit (the Store contract): a LIST right after a write
 * never sees the rows from before it. Cells are still evaluated per request (Age moves with the clock).
 *
 * Bounded: one set of rows per server, built only when asked, dropped on the first Workspace write after it and
 * after a minute without a request.
 */
import { buildTable, type IncludeObject, type TableVersion } from '../machinery/table.js';
import type { KubeObject, TablePrinter } from '../registry/types.js';
import type { Store, WatchHandle } from '../storage/store.js';
import { workspacesPrefix } from '../tenancy/cluster-paths.js';

/**
 * The index prints a Workspace whose deletion has begun as `Deleting` until the workspace controller has moved its
 * phase there (or to Terminating, which it keeps): a client that asks for rows without objects
 * (`includeObject=None`, a fifth of the bytes) still knows which workspaces are going away, as kcp's tree skips them.
 */
export function printerShowingDeletion(printer: TablePrinter): TablePrinter {
  const phaseAt = printer.columns.findIndex((c) => c.name === 'Phase');
  if (phaseAt < 0) return printer;
  return {
    columns: printer.columns,
    cells: (obj, now) => {
      const cells = printer.cells(obj, now);
      if (obj.metadata?.deletionTimestamp && cells[phaseAt] !== 'Deleting' && cells[phaseAt] !== 'Terminating') cells[phaseAt] = 'Deleting';
      return cells;
    },
  };
}

/** How long unused rows are kept. */
const IDLE_MS = 60_000;

interface CachedRow {
  /** The Workspace the cells are read from (with its `kcp.io/path`, without managedFields). */
  object: KubeObject;
  /** JSON of its metadata, for `includeObject=Metadata` rows. */
  metadataJson: string;
}

export interface EveryWorkspaceTableOptions {
  printer: TablePrinter;
  includeObject: Exclude<IncludeObject, 'Object'>;
  tableVersion: TableVersion;
  now: number;
}

export class EveryWorkspaceTable {
  private rows: CachedRow[] | undefined;
  private watch: WatchHandle | undefined;
  private idleTimer: NodeJS.Timeout | undefined;

  /** `load` reads every scheduled Workspace (managedFields dropped, path set) as of now. */
  constructor(
    private readonly store: Store,
    private readonly load: () => KubeObject[],
  ) {}

  /** The Table's JSON text: every scheduled workspace, in storage order, at the store's current revision. */
  render(opts: EveryWorkspaceTableOptions): string {
    const rows = this.currentRows();
    const { printer, includeObject, tableVersion, now } = opts;
    const empty = JSON.stringify(
      buildTable({ printer, objects: [], now, includeObject, listMeta: { resourceVersion: String(this.store.currentRevision()) }, tableVersion }),
    );
    // buildTable's rows come last: splice the rows' text into its empty array.
    const head = empty.slice(0, -'[]}'.length);
    const objectHead = `,"object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/${tableVersion}","metadata":`;
    const parts = rows.map((row) => {
      const cells = JSON.stringify(printer.cells(row.object, now));
      return includeObject === 'None' ? `{"cells":${cells}}` : `{"cells":${cells}${objectHead}${row.metadataJson}}}`;
    });
    return `${head}[${parts.join(',')}]}`;
  }

  private currentRows(): CachedRow[] {
    this.keepAlive();
    if (this.rows) return this.rows;
    // Watch first, then read: a write between the two only drops rows that already include it.
    this.watch ??= this.store.watch(workspacesPrefix, this.store.currentRevision(), () => {
      this.rows = undefined;
    });
    const rows = this.load().map((object) => ({ object, metadataJson: JSON.stringify(object.metadata ?? {}) }));
    this.rows = rows;
    return rows;
  }

  private keepAlive(): void {
    if (this.idleTimer) this.idleTimer.refresh();
    else this.idleTimer = setTimeout(() => this.drop(), IDLE_MS).unref();
  }

  /** Lets go of the rows and the watch until the next request. */
  drop(): void {
    this.rows = undefined;
    this.watch?.cancel();
    this.watch = undefined;
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
  }
}
