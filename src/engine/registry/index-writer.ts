/**
 * Secondary keys kept beside objects (the owner index of the garbage collector, for one). The generic store asks
 * every writer for extra ops on each create, update and removal and commits them in the same transaction as the
 * object, so an index can never disagree with the objects it describes, even across a crash.
 */
import type { WriteOp } from '../storage/store.js';
import type { KubeObject } from './types.js';

/** What a change is part of, when its writer knows more than the object. */
export interface IndexChange {
  /**
   * The object is removed together with its whole logical cluster, in a commit that also removes every row under
   * the cluster's bookkeeping prefixes (tenancy's `clusterBookkeepingPrefixes`): a writer whose rows for the object
   * all live there has nothing to write.
   */
  clusterRemoved?: boolean;
}

/**
 * `before` is the object as stored until now (undefined on create), `after` as it will be stored (undefined when it
 * is removed). Runs synchronously right before the commit; may read the store, must not write to it.
 */
export type IndexWriter = (key: string, before: KubeObject | undefined, after: KubeObject | undefined, change?: IndexChange) => WriteOp[];
