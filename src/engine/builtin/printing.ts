/**
 * Printer helpers shared by the built-in types, on top of machinery/table (kube's Age text, the Name/Age columns
 * and the default Name + Created At table).
 */
import {
  ageCell as machineryAgeCell,
  ageColumn,
  defaultPrinter,
  humanDuration,
  NAME_DESCRIPTION,
  nameColumn,
} from '../machinery/table.js';
import type { KubeObject, TableColumn, TablePrinter } from '../registry/types.js';

export { ageColumn, humanDuration, nameColumn };
export const nameDescription = NAME_DESCRIPTION;

/** kube's translateTimestampSince for any JSON value: "<unknown>" unless it is a parseable timestamp. */
export function ageCell(timestamp: unknown, now: number): string {
  return machineryAgeCell(typeof timestamp === 'string' ? timestamp : undefined, now);
}

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
export const createdAtPrinter: TablePrinter = defaultPrinter();

/** Number of keys of a JSON map field (kube prints `len(map)`). */
export function keyCount(value: unknown): number {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? Object.keys(value).length : 0;
}
