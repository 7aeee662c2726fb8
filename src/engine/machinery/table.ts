/**
 * Server-side printing: meta.k8s.io Table responses for `kubectl get`, built from a resource's TablePrinter.
 * Age cells, the default convertor (Name + Created At) and the Accept/includeObject handling follow
 * k8s.io/apiserver (endpoints/handlers, registry/rest/table.go) and apimachinery's duration.HumanDuration.
 */
import type { KubeObject, ObjectMeta, TableColumn, TablePrinter } from './object-types.js';
import { badRequest } from './status.js';

/** ObjectMeta's swagger descriptions, which kube uses for the Name and Created At/Age columns. */
export const NAME_DESCRIPTION =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may ' +
  'allow a client to request the generation of an appropriate name automatically. Name is primarily intended for ' +
  'creation idempotence and configuration definition. Cannot be updated. More info: ' +
  'https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';
export const CREATION_TIMESTAMP_DESCRIPTION =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not ' +
  'guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It ' +
  'is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More ' +
  'info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** duration.HumanDuration: ~2-3 significant figures (`90s`, `5m3s`, `3h12m`, `2d3h`, `3y45d`). */
export function humanDuration(ms: number): string {
  // Go truncates toward zero; up to 2s in the future counts as clock skew and prints as 0s.
  const seconds = Math.trunc(ms / SECOND);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(ms / MINUTE);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(ms / HOUR);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  const days = Math.trunc(hours / 24);
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${days}d` : `${days}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.trunc(days / 365);
  if (hours < 24 * 365 * 8) {
    const dy = days % 365;
    return dy === 0 ? `${years}y` : `${years}y${dy}d`;
  }
  return `${years}y`;
}

/** The Age cell: `<unknown>` without a (parseable) creationTimestamp, like kube's translateTimestampSince. */
export function ageCell(creationTimestamp: string | null | undefined, now: number): string {
  if (!creationTimestamp) return '<unknown>';
  const t = Date.parse(creationTimestamp);
  return Number.isNaN(t) ? '<unknown>' : humanDuration(now - t);
}

/** A column plus the function that fills its cell. */
export interface PrinterColumn {
  column: TableColumn;
  cell(obj: KubeObject, now: number): unknown;
}

export const nameColumn: TableColumn = { name: 'Name', type: 'string', format: 'name', description: NAME_DESCRIPTION };
export const ageColumn: TableColumn = { name: 'Age', type: 'string', description: CREATION_TIMESTAMP_DESCRIPTION };

/**
 * Name, the given columns, Age, then `wide` columns (priority 1 unless set, shown only with `-o wide`) — the
 * layout of most upstream printers.
 */
export function nameAgePrinter(columns: PrinterColumn[] = [], wide: PrinterColumn[] = []): TablePrinter {
  const widened = wide.map((c) => ({ ...c, column: { ...c.column, priority: c.column.priority ?? 1 } }));
  const middle = [...columns];
  return {
    columns: [nameColumn, ...middle.map((c) => c.column), ageColumn, ...widened.map((c) => c.column)],
    cells: (obj, now) => [
      obj.metadata?.name ?? '',
      ...middle.map((c) => c.cell(obj, now)),
      ageCell(obj.metadata?.creationTimestamp, now),
      ...widened.map((c) => c.cell(obj, now)),
    ],
  };
}

/** Go's zero metav1.Time, which the default convertor prints for objects without a creationTimestamp. */
const ZERO_TIME = '0001-01-01T00:00:00Z';

/** kube's default table convertor, for kinds without a printer: Name and `Created At` (RFC 3339, UTC). */
export function defaultPrinter(): TablePrinter {
  return {
    columns: [nameColumn, { name: 'Created At', type: 'date', description: CREATION_TIMESTAMP_DESCRIPTION }],
    cells: (obj) => {
      const ts = obj.metadata?.creationTimestamp;
      const t = ts ? Date.parse(ts) : NaN;
      return [obj.metadata?.name ?? '', Number.isNaN(t) ? ZERO_TIME : new Date(t).toISOString().replace(/\.\d{3}Z$/, 'Z')];
    },
  };
}

export type IncludeObject = 'None' | 'Metadata' | 'Object';
export type TableVersion = 'v1' | 'v1beta1';

export interface TableColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

export interface TableRow {
  cells: unknown[];
  object?: KubeObject;
}

export interface TableListMeta {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
}

export interface Table {
  kind: 'Table';
  apiVersion: `meta.k8s.io/${TableVersion}`;
  metadata: TableListMeta;
  columnDefinitions: TableColumnDefinition[];
  rows: TableRow[];
}

export interface BuildTableOptions {
  printer: TablePrinter;
  objects: KubeObject[];
  now: number;
  /** Default `Metadata` (PartialObjectMetadata rows). */
  includeObject?: IncludeObject;
  /** The list's metadata, or `{resourceVersion}` of the single object for a GET by name. */
  listMeta?: TableListMeta;
  /** Watch events after the first omit the definitions; default true. */
  includeColumnDefinitions?: boolean;
  tableVersion?: TableVersion;
}

export function buildTable(opts: BuildTableOptions): Table {
  const { printer, objects, now } = opts;
  const version = opts.tableVersion ?? 'v1';
  const include = opts.includeObject ?? 'Metadata';
  const metadata: TableListMeta = {};
  // ListMeta fields are omitempty; remainingItemCount is a pointer, so a set 0 is still sent.
  if (opts.listMeta?.resourceVersion) metadata.resourceVersion = opts.listMeta.resourceVersion;
  if (opts.listMeta?.continue) metadata.continue = opts.listMeta.continue;
  if (opts.listMeta?.remainingItemCount !== undefined) metadata.remainingItemCount = opts.listMeta.remainingItemCount;
  const columnDefinitions =
    opts.includeColumnDefinitions === false
      ? []
      : printer.columns.map((c) => ({
          name: c.name,
          type: c.type,
          format: c.format ?? '',
          description: c.description ?? '',
          priority: c.priority ?? 0,
        }));
  const rows = objects.map((obj): TableRow => {
    const row: TableRow = { cells: printer.cells(obj, now) };
    if (include === 'Object') row.object = obj;
    else if (include === 'Metadata') {
      row.object = {
        kind: 'PartialObjectMetadata',
        apiVersion: `meta.k8s.io/${version}`,
        metadata: (obj.metadata ?? {}) as ObjectMeta,
      };
    }
    return row;
  });
  return { kind: 'Table', apiVersion: `meta.k8s.io/${version}`, metadata, columnDefinitions, rows };
}

type Query = URLSearchParams | Record<string, string | string[] | undefined>;

/**
 * `?includeObject=` (first value wins, like kube's parameter decoding). Only validated when a Table is being
 * served; an unknown value is kube's 400 for TableOptions.
 */
export function parseIncludeObject(query: Query): IncludeObject {
  let value: string | undefined;
  if (query instanceof URLSearchParams) value = query.get('includeObject') ?? undefined;
  else {
    const raw = query.includeObject;
    value = Array.isArray(raw) ? raw[0] : raw;
  }
  if (value === undefined || value === '') return 'Metadata';
  if (value === 'None' || value === 'Metadata' || value === 'Object') return value;
  throw badRequest(
    `Unable to convert to Table as requested: includeObject: Invalid value: ${JSON.stringify(value)}: ` +
      "must be 'Metadata', 'Object', 'None', or empty",
  );
}
