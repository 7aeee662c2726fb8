/**
 * A byte-bounded cache of current rows by key, for the SQLite store's point reads. First in, first out: a hit is one
 * Map lookup and reorders nothing, and a hot row pushed out is read back once. Not lru-cache: its get() is several
 * times dearer, and one more instance in the request path made its code polymorphic for the others (RBAC policies,
 * logical clusters) too.
 */
import type { KeyValue } from './store.js';

/** Rough fixed cost of a cached row (the entry object, its map slot) next to its key and value text. */
const ENTRY_OVERHEAD_BYTES = 96;

export class RowCache {
  private readonly rows = new Map<string, KeyValue>();
  private bytes = 0;

  constructor(
    private readonly maxBytes: number,
    /** A row bigger than this is not kept: one big object would push out hundreds of small ones. */
    private readonly maxRowBytes: number,
  ) {}

  get size(): number {
    return this.rows.size;
  }

  get usedBytes(): number {
    return this.bytes;
  }

  get(key: string): KeyValue | undefined {
    return this.rows.get(key);
  }

  set(row: KeyValue): void {
    const size = sizeOf(row);
    this.delete(row.key);
    if (size > this.maxRowBytes || size > this.maxBytes) return;
    while (this.bytes + size > this.maxBytes) {
      const oldest = this.rows.keys().next().value!;
      this.delete(oldest);
    }
    this.rows.set(row.key, row);
    this.bytes += size;
  }

  delete(key: string): void {
    const row = this.rows.get(key);
    if (!row) return;
    this.rows.delete(key);
    this.bytes -= sizeOf(row);
  }

  clear(): void {
    this.rows.clear();
    this.bytes = 0;
  }
}

function sizeOf(row: KeyValue): number {
  return row.key.length + row.value.length + ENTRY_OVERHEAD_BYTES;
}
