/** The storage package's public surface; everything else in this folder is an implementation detail. */
export * from './store.js';
export { createMemoryStore, type MemoryStore, type MemoryStoreOptions } from './memory-store.js';
export { openSqliteStore, type SqliteStore, type SqliteStoreOptions, type Synchronous } from './sqlite-store.js';
export { openStore, DEFAULT_DATABASE_FILE, SUPPORTED_STORAGE, type CommonStoreOptions } from './open-store.js';
export { startCompactor, type CompactorOptions } from './compactor.js';
export { KEEP_NEWEST_REVISIONS } from './keys.js';
