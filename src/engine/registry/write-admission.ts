/**
 * What the generic store asks before it writes, declared here and implemented on the admission floor above (as
 * kube's generic registry is handed its admission funcs rather than importing the plugins): the write review on
 * every create, update and delete (who may write which field: admission/write-authority.ts) and validating
 * admission on create (admission/chain.ts). server/assembly.ts hands both to the store.
 */
import type { StatusError } from '../machinery/status.js';
import type { WriteOp } from '../storage/store.js';
import type { KubeObject, ResourceType, StrategyContext } from './types.js';

export interface WriteAttempt {
  group: string;
  resource: string;
  cluster: string;
  /** Who writes (`user`, `onBehalfOfUser`) and what a virtual workspace grants them. */
  ctx: Pick<StrategyContext, 'user' | 'onBehalfOfUser' | 'grant'>;
  subresource?: string;
  /** The object as the write would store it (the client's changes, defaults), before the server prepares it. */
  object: KubeObject;
  /** The stored object; absent on create. */
  old?: KubeObject;
}

export type DeleteAttempt = Omit<WriteAttempt, 'old' | 'subresource'>;

/** Who may write which field, and what the system derives on every write. */
export interface WriteReview {
  /** The refusal a create or update earns, or undefined; asked with the object before the server prepares it. */
  review(w: WriteAttempt): StatusError | undefined;
  /** The refusal a delete earns, or undefined. */
  reviewDelete(w: DeleteAttempt): StatusError | undefined;
  /**
   * Sets on `obj` what the system derives on every write; `known` answers a cluster's path first (a restore knows
   * the paths of the clusters it recreates before they exist).
   */
  stamp(group: string, resource: string, cluster: string, obj: KubeObject, known?: (cluster: string) => string | undefined): void;
}

export interface CreateAttributes {
  rt: ResourceType;
  cluster: string;
  /** '' for cluster-scoped resources. */
  namespace: string;
  /** The object as it will be stored: defaulted, validated, its name generated. */
  object: KubeObject;
  /** Dry-run creates are checked but must not charge anything. */
  dryRun: boolean;
  user?: { username: string; groups: string[] };
}

/** Validating admission on create: throws a StatusError to refuse; returns writes to commit with the object. */
export interface CreateAdmission {
  validateCreate(attrs: CreateAttributes): WriteOp[];
}
