/**
 * Namespace lifecycle: once a Namespace is Terminating, delete everything in it (honouring each object's
 * finalizers), report progress in its conditions, and finally remove the `kubernetes` finalizer through
 * /finalize so the Namespace goes away and `kubectl delete ns` returns.
 */
import { StatusError } from '../machinery/status.js';
import type { ClusterCatalog } from '../registry/catalog.js';
import { deletionMarkerPrefix, type GenericStore, type OpContext } from '../registry/generic-store.js';
import { decodeStored, keyNamespaceAndName } from '../registry/stored-object.js';
import type { KubeObject, ResourceType } from '../registry/types.js';
import type { Store } from '../storage/store.js';
import { defineController, type Controller } from './controller.js';

export interface NamespaceControllerDeps {
  store: Store;
  generic: GenericStore;
  namespaceType: ResourceType;
  catalogFor(cluster: string): ClusterCatalog;
  onError?(controller: string, key: string, err: unknown): void;
}

export function namespaceController(deps: NamespaceControllerDeps): Controller {
  const { store, generic, namespaceType } = deps;
  const prefix = `/registry/${namespaceType.storagePrefix}/`;
  const markers = deletionMarkerPrefix(namespaceType.storagePrefix);
  return defineController({
    name: 'namespace',
    store,
    onError: deps.onError,
    watches(feed) {
      // Pending deletions from before a restart are found through their markers, not by scanning namespaces.
      for (const kv of store.list(markers).items) feed.add(kv.key.slice(markers.length));
      feed.watch(prefix, (e) => {
        if (e.type === 'DELETED') return;
        if (!e.value.includes('"deletionTimestamp"')) return;
        feed.add(e.key.slice(prefix.length));
      });
    },
    /** key = `<cluster>/<namespace>` */
    reconcile(key) {
      const [cluster, name] = key.split('/');
      const kv = store.get(`${prefix}${cluster}/${name}`);
      if (!kv) return;
      const ns = decodeStored(kv);
      if (!ns.metadata?.deletionTimestamp) return;
      const remaining = deleteContent(deps, cluster!, name!);
      const nsCtx: OpContext = { rt: namespaceType, cluster: cluster!, namespace: '' };
      if (remaining.count > 0) {
        setConditions(deps, nsCtx, ns, remaining);
        return { requeueAfterMs: 1000 };
      }
      const specFinalizers = (ns.spec as { finalizers?: string[] } | undefined)?.finalizers ?? [];
      if (specFinalizers.includes('kubernetes')) {
        generic.update(nsCtx, name!, { ...ns, spec: { ...(ns.spec as object), finalizers: specFinalizers.filter((f) => f !== 'kubernetes') } }, { subresource: 'finalize' });
      }
      return undefined;
    },
  });
}

/** What is still in a namespace after a deletion pass: per `<resource>.<group>`, and per finalizer holding it. */
interface Remaining {
  count: number;
  byResource: Map<string, number>;
  byFinalizer: Map<string, number>;
}

/** Deletes every namespaced object in the namespace; returns what is still there (finalizers pending). */
function deleteContent(deps: NamespaceControllerDeps, cluster: string, namespace: string): Remaining {
  const { store, generic } = deps;
  const seen = new Set<string>();
  const remaining: Remaining = { count: 0, byResource: new Map(), byFinalizer: new Map() };
  const add = (counts: Map<string, number>, key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);
  for (const rt of deps.catalogFor(cluster).resourceTypes()) {
    if (!rt.namespaced || rt.virtualCreate || seen.has(rt.storagePrefix)) continue;
    seen.add(rt.storagePrefix);
    const ctx: OpContext = { rt, cluster, namespace };
    for (const kv of store.list(`/registry/${rt.storagePrefix}/${cluster}/${namespace}/`).items) {
      // Named by its key and handed the listed row: delete() parses it, once.
      try {
        const result = generic.delete(ctx, keyNamespaceAndName(rt, kv.key).name, { propagationPolicy: 'Background', current: { row: kv } });
        if (!result.removed) {
          remaining.count++;
          // kube names a group-resource `<resource>.<group>`: `configmaps.` for the core group.
          add(remaining.byResource, `${rt.resource}.${rt.group}`);
          for (const f of result.object.metadata?.finalizers ?? []) add(remaining.byFinalizer, f);
        }
      } catch (err) {
        if (err instanceof StatusError && err.code === 404) continue;
        throw err;
      }
    }
  }
  return remaining;
}

/** kube's namespaceConditionUpdater.ProcessContentTotals: `<what> has|in <n> resource instances`, sorted. */
function remainingList(counts: Map<string, number>, verb: 'has' | 'in'): string {
  return [...counts].map(([what, n]) => `${what} ${verb} ${n} resource instances`).sort().join(', ');
}

function setConditions(deps: NamespaceControllerDeps, ctx: OpContext, ns: KubeObject, remaining: Remaining): void {
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  const conditions = [
    { type: 'NamespaceDeletionDiscoveryFailure', status: 'False', lastTransitionTime: now, reason: 'ResourcesDiscovered', message: 'All resources successfully discovered' },
    { type: 'NamespaceDeletionGroupVersionParsingFailure', status: 'False', lastTransitionTime: now, reason: 'ParsedGroupVersions', message: 'All legacy kube types successfully parsed' },
    { type: 'NamespaceDeletionContentFailure', status: 'False', lastTransitionTime: now, reason: 'ContentDeleted', message: 'All content successfully deleted, may be waiting on finalization' },
    { type: 'NamespaceContentRemaining', status: 'True', lastTransitionTime: now, reason: 'SomeResourcesRemain', message: `Some resources are remaining: ${remainingList(remaining.byResource, 'has')}` },
    {
      type: 'NamespaceFinalizersRemaining',
      status: remaining.byFinalizer.size > 0 ? 'True' : 'False',
      lastTransitionTime: now,
      reason: remaining.byFinalizer.size > 0 ? 'SomeFinalizersRemain' : 'ContentHasNoFinalizers',
      message:
        remaining.byFinalizer.size > 0
          ? `Some content in the namespace has finalizers remaining: ${remainingList(remaining.byFinalizer, 'in')}`
          : 'All content-preserving finalizers finished',
    },
  ];
  const status = { ...((ns.status as object) ?? {}), conditions };
  const old = JSON.stringify((ns.status as { conditions?: unknown[] })?.conditions?.map((c) => ({ ...(c as object), lastTransitionTime: '' })));
  const next = JSON.stringify(conditions.map((c) => ({ ...c, lastTransitionTime: '' })));
  if (old === next) return;
  deps.generic.update(ctx, ns.metadata!.name!, { ...ns, status }, { subresource: 'status' });
}
