/**
 * The status of every WorkspaceType, as kcp's workspacetype controller writes it: `status.virtualWorkspaces` lists
 * where the initializing and terminating virtual workspaces of the type are served on every shard of the deployment
 * (`<shard's virtualWorkspaceURL>/services/initializingworkspaces/<path>:<name>` and
 * `…/terminatingworkspaces/<path>:<name>`, for every type and every Shard, sorted by URL), with the
 * `VirtualWorkspaceURLsReady` condition and the `Ready` summary. A workspace of the type initializes on whichever
 * shard it was placed, and each shard's virtual workspace lists only its own logical clusters, so an initializer
 * or terminator controller watches every one of these URLs.
 */
import { defineController, type Controller } from '../controllers/controller.js';
import { StatusError } from '../machinery/status.js';
import { nowTimestamp } from '../registry/object-rules.js';
import type { GenericStore } from '../registry/generic-store.js';
import { decodeStored } from '../registry/stored-object.js';
import type { ResourceType } from '../registry/types.js';
import type { Store } from '../storage/store.js';
import { withoutSchemaValidation } from './trusted-writes.js';
import { qualifiedName, workspaceTypesPrefix, type WorkspaceType } from './workspace-types.js';

interface Condition {
  type: string;
  status: string;
  lastTransitionTime: string;
  reason?: string;
  message?: string;
  severity?: string;
}

export interface WorkspaceTypeStatus {
  conditions?: Condition[];
  virtualWorkspaces?: { url: string }[];
}

export interface WorkspaceTypeStatusDeps {
  store: Store;
  generic: GenericStore;
  workspaceTypes: ResourceType;
  /** Every Shard's `spec.virtualWorkspaceURL` (virtual workspaces run in-process in each shard), this one's included. */
  virtualWorkspaceUrls(): readonly string[];
  /** Calls `listener` when a Shard came, went or moved. */
  onShardsChange(listener: () => void): void;
  onError?(controller: string, key: string, err: unknown): void;
}

/** The URLs kcp publishes for a type: one per lifecycle virtual workspace and shard, sorted, without repeats. */
export function virtualWorkspaceUrls(shardUrls: string | readonly string[], t: WorkspaceType): { url: string }[] {
  const name = qualifiedName(t);
  const urls = new Set<string>();
  for (const base of typeof shardUrls === 'string' ? [shardUrls] : shardUrls) {
    for (const vw of ['initializingworkspaces', 'terminatingworkspaces']) urls.add(`${base}/services/${vw}/${name}`);
  }
  return [...urls].sort().map((url) => ({ url }));
}

/** The status this controller gives `wst` (its conditions keep their transition times while they stay True). */
export function workspaceTypeStatus(shardUrls: string | readonly string[], wst: WorkspaceType & { status?: WorkspaceTypeStatus }): WorkspaceTypeStatus {
  const current = wst.status ?? {};
  const now = nowTimestamp();
  const keep = (type: string): Condition => {
    const had = current.conditions?.find((c) => c.type === type);
    return had?.status === 'True' ? had : { type, status: 'True', lastTransitionTime: now };
  };
  // kcp sorts conditions with the Ready summary first.
  return { ...current, conditions: [keep('Ready'), keep('VirtualWorkspaceURLsReady')], virtualWorkspaces: virtualWorkspaceUrls(shardUrls, wst) };
}

export function workspaceTypeStatusController(deps: WorkspaceTypeStatusDeps): Controller {
  const { store } = deps;
  return defineController({
    name: 'workspacetype-status',
    store,
    onError: deps.onError,
    watches(feed) {
      /** Every type looked at again (the URL changed since the last start, or a Shard came, went or moved). */
      const requeueAll = () => {
        for (const kv of store.list(workspaceTypesPrefix).items) feed.add(kv.key.slice(workspaceTypesPrefix.length));
      };
      feed.watch(workspaceTypesPrefix, (e) => {
        if (e.type !== 'DELETED') feed.add(e.key.slice(workspaceTypesPrefix.length));
      });
      feed.listen(deps.onShardsChange, requeueAll);
      // The URL may differ from the last start (another port or address): every type is looked at once. Types are few
      // (kcp's controller lists them all too).
      requeueAll();
    },
    reconcile: (key) => reconcileTypeStatus(deps, key),
  });
}

function reconcileTypeStatus(deps: WorkspaceTypeStatusDeps, key: string): void {
  const kv = deps.store.get(`${workspaceTypesPrefix}${key}`);
  if (!kv) return;
  const wst = decodeStored(kv) as WorkspaceType & { status?: WorkspaceTypeStatus };
  if (wst.metadata?.deletionTimestamp) return;
  const current = wst.status ?? {};
  const status = workspaceTypeStatus(deps.virtualWorkspaceUrls(), wst);
  if (JSON.stringify(status) === JSON.stringify(current)) return;
  const slash = key.indexOf('/');
  try {
    // Only the server's URLs and conditions change here (see trusted-writes.ts).
    deps.generic.update(
      { rt: withoutSchemaValidation(deps.workspaceTypes), cluster: key.slice(0, slash), namespace: '' },
      key.slice(slash + 1),
      { ...wst, status },
      { subresource: 'status' },
    );
  } catch (err) {
    // Gone or changed meanwhile: the watch brings the next version.
    if (!(err instanceof StatusError && (err.code === 404 || err.code === 409))) throw err;
  }
}
