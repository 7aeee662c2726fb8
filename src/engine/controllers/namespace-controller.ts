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

/** Deletes every namespaced object in the namespace; returns what is still there (finalizers pending). */
function deleteContent(deps: NamespaceControllerDeps, cluster: string, namespace: string): { count: number; finalizers: Set<string> } {
  const { store, generic } = deps;
  const seen = new Set<string>();
  let count = 0;
  const finalizers = new Set<string>();
  for (const rt of deps.catalogFor(cluster).resourceTypes()) {
    if (!rt.namespaced || rt.virtualCreate || seen.has(rt.storagePrefix)) continue;
    seen.add(rt.storagePrefix);
    const ctx: OpContext = { rt, cluster, namespace };
    for (const kv of store.list(`/registry/${rt.storagePrefix}/${cluster}/${namespace}/`).items) {
      // Named by its key and handed the listed row: delete() parses it, once.
      try {
        const result = generic.delete(ctx, keyNamespaceAndName(rt, kv.key).name, { propagationPolicy: 'Background', current: { row: kv } });
        if (!result.removed) {
          count++;
          for (const f of result.object.metadata?.finalizers ?? []) finalizers.add(f);
        }
      } catch (err) {
        if (err instanceof StatusError && err.code === 404) continue;
        throw err;
      }
    }
  }
  return { count, finalizers };
}

function setConditions(deps: NamespaceControllerDeps, ctx: OpContext, ns: KubeObject, remaining: { count: number; finalizers: Set<string> }): void {
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  const conditions = [
    { type: 'NamespaceDeletionDiscoveryFailure', status: 'False', lastTransitionTime: now, reason: 'ResourcesDiscovered', message: 'All resources successfully discovered' },
    { type: 'NamespaceDeletionGroupVersionParsingFailure', status: 'False', lastTransitionTime: now, reason: 'ParsedGroupVersions', message: 'All legacy kube types successfully parsed' },
    { type: 'NamespaceDeletionContentFailure', status: 'False', lastTransitionTime: now, reason: 'ContentDeleted', message: 'All content successfully deleted, may be waiting on finalization' },
    { type: 'NamespaceContentRemaining', status: 'True', lastTransitionTime: now, reason: 'SomeResourcesRemain', message: `Some resources are remaining: ${remaining.count} object(s) waiting on finalizers` },
    {
      type: 'NamespaceFinalizersRemaining',
      status: remaining.finalizers.size > 0 ? 'True' : 'False',
      lastTransitionTime: now,
      reason: remaining.finalizers.size > 0 ? 'SomeFinalizersRemain' : 'ContentHasNoFinalizers',
      message: remaining.finalizers.size > 0 ? `Some content in the namespace has finalizers remaining: ${[...remaining.finalizers].sort().join(', ')}` : 'All content-preserving finalizers finished',
    },
  ];
  const status = { ...((ns.status as object) ?? {}), conditions };
  const old = JSON.stringify((ns.status as { conditions?: unknown[] })?.conditions?.map((c) => ({ ...(c as object), lastTransitionTime: '' })));
  const next = JSON.stringify(conditions.map((c) => ({ ...c, lastTransitionTime: '' })));
  if (old === next) return;
  deps.generic.update(ctx, ns.metadata!.name!, { ...ns, status }, { subresource: 'status' });
}
