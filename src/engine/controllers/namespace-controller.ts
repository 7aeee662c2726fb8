/**
 * Namespace lifecycle: once a Namespace is Terminating, delete everything in it (honouring each object's
 * finalizers), report progress in its conditions, and finally remove the `kubernetes` finalizer through
 * /finalize so the Namespace goes away and `kubectl delete ns` returns.
 */
import { StatusError } from '../machinery/status.js';
import type { ClusterCatalog } from '../registry/catalog.js';
import { deletionMarkerPrefix, type GenericStore, type OpContext } from '../registry/generic-store.js';
import { decodeStored } from '../registry/stored-object.js';
import type { KubeObject, ResourceType } from '../registry/types.js';
import type { Store, WatchHandle } from '../storage/store.js';
import { WorkQueue } from './work-queue.js';

export interface NamespaceControllerDeps {
  store: Store;
  generic: GenericStore;
  namespaceType: ResourceType;
  catalogFor(cluster: string): ClusterCatalog;
  onError?(controller: string, key: string, err: unknown): void;
}

export class NamespaceController {
  private readonly queue: WorkQueue;
  private watch?: WatchHandle;

  constructor(private readonly deps: NamespaceControllerDeps) {
    this.queue = new WorkQueue('namespace', (key) => this.reconcile(key), deps.onError);
  }

  start(): void {
    const { store, namespaceType } = this.deps;
    const from = store.currentRevision();
    // Pending deletions from before a restart are found through their markers, not by scanning namespaces.
    for (const kv of store.list(deletionMarkerPrefix(namespaceType.storagePrefix)).items) {
      this.queue.add(kv.key.slice(deletionMarkerPrefix(namespaceType.storagePrefix).length));
    }
    this.watch = store.watch(`/registry/${namespaceType.storagePrefix}/`, from, (events) => {
      for (const e of events) {
        if (e.type === 'DELETED') continue;
        if (!e.value.includes('"deletionTimestamp"')) continue;
        this.queue.add(e.key.slice(`/registry/${namespaceType.storagePrefix}/`.length));
      }
    });
  }

  stop(): void {
    this.watch?.cancel();
    this.queue.stop();
  }

  idle(): Promise<void> {
    return this.queue.idle();
  }

  /** key = `<cluster>/<namespace>` */
  private async reconcile(key: string) {
    const [cluster, name] = key.split('/');
    const { store, generic, namespaceType } = this.deps;
    const kv = store.get(`/registry/${namespaceType.storagePrefix}/${cluster}/${name}`);
    if (!kv) return;
    const ns = decodeStored(kv);
    if (!ns.metadata?.deletionTimestamp) return;
    const remaining = this.deleteContent(cluster, name);
    const nsCtx: OpContext = { rt: namespaceType, cluster, namespace: '' };
    if (remaining.count > 0) {
      this.setConditions(nsCtx, ns, remaining);
      return { requeueAfterMs: 1000 };
    }
    const specFinalizers = (ns.spec as { finalizers?: string[] } | undefined)?.finalizers ?? [];
    if (specFinalizers.includes('kubernetes')) {
      generic.update(nsCtx, name, { ...ns, spec: { ...(ns.spec as object), finalizers: specFinalizers.filter((f) => f !== 'kubernetes') } }, { subresource: 'finalize' });
    }
    return undefined;
  }

  /** Deletes every namespaced object in the namespace; returns what is still there (finalizers pending). */
  private deleteContent(cluster: string, namespace: string): { count: number; finalizers: Set<string> } {
    const { store, generic } = this.deps;
    const seen = new Set<string>();
    let count = 0;
    const finalizers = new Set<string>();
    for (const rt of this.deps.catalogFor(cluster).resourceTypes()) {
      if (!rt.namespaced || rt.virtualCreate || seen.has(rt.storagePrefix)) continue;
      seen.add(rt.storagePrefix);
      const ctx: OpContext = { rt, cluster, namespace };
      for (const kv of store.list(`/registry/${rt.storagePrefix}/${cluster}/${namespace}/`).items) {
        const obj = JSON.parse(kv.value) as KubeObject;
        const name = obj.metadata?.name ?? '';
        try {
          const result = generic.delete(ctx, name, { propagationPolicy: 'Background' });
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

  private setConditions(ctx: OpContext, ns: KubeObject, remaining: { count: number; finalizers: Set<string> }): void {
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
    this.deps.generic.update(ctx, ns.metadata!.name!, { ...ns, status }, { subresource: 'status' });
  }
}
