/**
 * Key prefixes the SQLite store's count() found empty, so the next count of one answers without a statement: a
 * namespace's ResourceQuotas are counted before every create in it and there nearly never are any. Kept exact the
 * way the store's row cache is: filled only from committed state (outside groups) on a connection that is the
 * file's only writer, and every prefix a created key falls under is forgotten before the key is written (only a
 * create adds a key). First in, first out past `max` prefixes.
 */
export class EmptyPrefixes {
  private readonly prefixes = new Set<string>();

  constructor(private readonly max: number) {}

  has(prefix: string): boolean {
    return this.prefixes.has(prefix);
  }

  /** Remembers a prefix found empty. Only prefixes ending in `/` are kept: a created key finds those among its own. */
  remember(prefix: string): void {
    if (!prefix.endsWith('/') || this.prefixes.has(prefix)) return;
    if (this.prefixes.size >= this.max) this.prefixes.delete(this.prefixes.values().next().value!);
    this.prefixes.add(prefix);
  }

  /** Forgets every remembered prefix of `key` (each of its `/`-ended prefixes), before the key is created. */
  forgetUnder(key: string): void {
    if (this.prefixes.size === 0) return;
    for (let at = key.indexOf('/'); at !== -1; at = key.indexOf('/', at + 1)) this.prefixes.delete(key.slice(0, at + 1));
  }

  clear(): void {
    this.prefixes.clear();
  }
}
