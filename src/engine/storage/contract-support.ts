/** Helpers shared by the storage conformance suite's files. */
import { afterEach } from 'vitest';
import type { Store } from './store.js';

export type StoreFactory = () => Store;

/** `/registry/core/configmaps/<cluster>/default/<name>` */
export const cm = (cluster: string, name: string) => `/registry/core/configmaps/${cluster}/default/${name}`;
export const inCluster = (cluster: string) => `/registry/core/configmaps/${cluster}/`;

/** Opens stores for one case and closes them afterwards. */
export function useStores(factory: StoreFactory): () => Store {
  const open: Store[] = [];
  afterEach(() => {
    for (const store of open.splice(0)) store.close();
  });
  return () => {
    const store = factory();
    open.push(store);
    return store;
  };
}

/** Writes `count` single-op commits (creates, then updates of the same keys), returning the last revision. */
export function churn(store: Store, count: number, cluster = 'churn'): number {
  let last = 0;
  for (let i = 0; i < count; i++) {
    const key = cm(cluster, `k${i % 50}`);
    const existing = store.get(key);
    const op = existing ? { type: 'update' as const, key, value: `v${i}` } : { type: 'create' as const, key, value: `v${i}` };
    last = store.commit([op])[0]!.revision;
  }
  return last;
}
