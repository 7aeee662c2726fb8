/**
 * Printer building blocks shared by the built-in types: kube's Age text, the standard Name/Age/Created At columns
 * and the default "Name, Created At" table kube-apiserver serves for kinds without a printer.
 * humanDuration/ageCell are kept here until src/engine/machinery/table.ts exports the same pair; then this file
 * should re-export them from there.
 */
import type { KubeObject, TableColumn, TablePrinter } from '../registry/types.js';

/**
 * k8s.io/apimachinery/pkg/util/duration.HumanDuration: ~2–3 significant figures ("5m30s", "3h12m", "2d4h").
 * Up to 2 s in the future counts as "now" to tolerate clock skew; further is "<invalid>".
 */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const dy = Math.trunc(hours / 24) % 365;
    const years = Math.trunc(hours / 24 / 365);
    return dy === 0 ? `${years}y` : `${years}y${dy}d`;
  }
  return `${Math.trunc(hours / 24 / 365)}y`;
}

/** kube's translateTimestampSince: "<unknown>" for a missing (zero) timestamp. */
export function ageCell(timestamp: unknown, now: number): string {
  if (typeof timestamp !== 'string' || timestamp === '') return '<unknown>';
  const t = Date.parse(timestamp);
  if (Number.isNaN(t)) return '<unknown>';
  return humanDuration(now - t);
}

/** RFC 3339 to the second, as Go's time.RFC3339 formats a UTC metav1.Time. */
export function rfc3339Cell(timestamp: unknown): string {
  const t = typeof timestamp === 'string' ? Date.parse(timestamp) : NaN;
  if (Number.isNaN(t)) return '0001-01-01T00:00:00Z';
  return new Date(t).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

// ObjectMeta's swagger docs, which kube uses as the descriptions of the Name, Age and Created At columns.
export const nameDescription =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a ' +
  'client to request the generation of an appropriate name automatically. Name is primarily intended for creation ' +
  'idempotence and configuration definition. Cannot be updated. More info: ' +
  'https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';
export const creationTimestampDescription =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not ' +
  'guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is ' +
  'represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: ' +
  'https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

export const nameColumn: TableColumn = { name: 'Name', type: 'string', format: 'name', description: nameDescription };
export const ageColumn: TableColumn = { name: 'Age', type: 'string', description: creationTimestampDescription };

/** A plain string column (kube's printers declare almost every column as a string, even counts). */
export function column(name: string, description: string, priority?: number): TableColumn {
  return priority ? { name, type: 'string', description, priority } : { name, type: 'string', description };
}

export function nameOf(obj: KubeObject): string {
  return obj.metadata?.name ?? '';
}

export function ageOf(obj: KubeObject, now: number): string {
  return ageCell(obj.metadata?.creationTimestamp, now);
}

/** What kube-apiserver serves for kinds without a printer (roles, clusterroles, limitranges): Name, Created At. */
export const createdAtPrinter: TablePrinter = {
  columns: [nameColumn, { name: 'Created At', type: 'date', description: creationTimestampDescription }],
  cells: (obj) => [nameOf(obj), rfc3339Cell(obj.metadata?.creationTimestamp)],
};

/** Number of keys of a JSON map field (kube prints `len(map)`). */
export function keyCount(value: unknown): number {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? Object.keys(value).length : 0;
}

/** A field read as a plain record, or an empty one. */
export function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

export function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}
