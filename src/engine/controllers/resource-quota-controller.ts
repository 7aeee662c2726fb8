/**
 * The ResourceQuota controller, one for the whole server: keeps `status.hard` equal to `spec.hard` and
 * `status.used` equal to what the namespace holds, so `kubectl get/describe quota` show Used/Hard. Admission
 * charges creates as they commit; this controller catches everything else: a quota created or edited, and
 * objects removed from a namespace that has quotas (kube's "replenishment").
 *
 * Driven by one storage watch on `/registry/`. Its listener runs inside every commit, so it only files a
 * `<cluster>/<namespace>` key for quota writes and for removals of namespaced objects; whether that namespace has
 * quotas at all is looked up in the reconcile, off the write path. No timers, no per-cluster state, nothing read
 * at start-up.
 */
import type { QuotaUsage } from '../admission/quota-usage.js';
import { record } from '../machinery/field-values.js';
import { resourceList, sameList } from '../machinery/quota-names.js';
import { StatusError } from '../machinery/status.js';
import type { GenericStore } from '../registry/generic-store.js';
import type { KubeObject } from '../registry/types.js';
import type { Store } from '../storage/store.js';
import { defineController, type Controller } from './controller.js';

export interface ResourceQuotaControllerDeps {
  store: Store;
  generic: GenericStore;
  usage: QuotaUsage;
  onError?(controller: string, key: string, err: unknown): void;
}

const registryRoot = '/registry/';

export function resourceQuotaController(deps: ResourceQuotaControllerDeps): Controller {
  const quotaRoot = `${registryRoot}${deps.usage.quotaType.storagePrefix}/`;
  return defineController({
    name: 'resourcequota',
    store: deps.store,
    onError: deps.onError,
    watches(feed) {
      // Inside the commit: string work only.
      feed.watch(registryRoot, (e) => {
        // Every quota write (a deleted quota is one object fewer for quotas that count quotas); other objects' removals.
        if (e.type !== 'DELETED' && !e.key.startsWith(quotaRoot)) return;
        // `/registry/<group>/<resource>/<cluster>/<namespace>/<name>`: cluster-scoped keys have one segment less.
        const parts = e.key.split('/');
        if (parts.length !== 7) return;
        if (parts[3] === 'events') return;
        feed.add(`${parts[4]}/${parts[5]}`);
      });
    },
    reconcile: (key) => syncQuotas(deps, key),
  });
}

/** key = `<cluster>/<namespace>`: bring every quota of the namespace up to date. */
function syncQuotas(deps: ResourceQuotaControllerDeps, key: string): void {
  const slash = key.indexOf('/');
  const cluster = key.slice(0, slash);
  const namespace = key.slice(slash + 1);
  const { usage, generic } = deps;
  if (!usage.hasQuotas(cluster, namespace)) return;
  for (const { quota } of usage.quotasIn(cluster, namespace)) {
    const observed = usage.observedStatus(cluster, quota);
    const status = record(quota.status);
    if (sameList(resourceList(status.hard), observed.hard) && sameList(resourceList(status.used), observed.used)) continue;
    const next: KubeObject = { ...quota, status: statusOf(observed.hard, observed.used) };
    try {
      generic.update({ rt: usage.quotaType, cluster, namespace }, quota.metadata!.name!, next, { subresource: 'status' });
    } catch (err) {
      // Deleted or changed meanwhile: its own event brings it back here.
      if (err instanceof StatusError && (err.code === 404 || err.code === 409)) continue;
      throw err;
    }
  }
}

/** ResourceQuotaStatus with Go's omitempty maps. */
function statusOf(hard: Record<string, string>, used: Record<string, string>): Record<string, unknown> {
  const status: Record<string, unknown> = {};
  if (Object.keys(hard).length > 0) status.hard = hard;
  if (Object.keys(used).length > 0) status.used = used;
  return status;
}
