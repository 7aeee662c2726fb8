/**
 * Keeps the permission-claim part of every APIBinding's status (kcp's permissionclaimlabel controller): the export's
 * claims copied into `exportPermissionClaims`, the accepted ones in `appliedPermissionClaims`, and the conditions
 * PermissionClaimsValid / PermissionClaimsApplied. Only those fields are written (a status update against the
 * revision read), so the binding controller's own status fields and conditions are left as they are.
 *
 * A binding is reconciled when it changes and when its export changes (new or withdrawn claims). Claimed objects are
 * not relabelled: the APIExport virtual workspace decides per request from the binding what the provider reaches.
 */
import { defineController, type Controller, type ControllerQueue } from '../controllers/controller.js';
import { jsonEqual } from '../registry/stored-object.js';
import type { GenericStore } from '../registry/generic-store.js';
import type { KubeObject, ResourceType } from '../registry/types.js';
import type { Store } from '../storage/store.js';
import { BINDINGS_PREFIX, EXPORTS_PREFIX, type KcpCondition } from './names.js';
import { setCondition } from './conditions.js';
import { bindingExportReference } from './export-reference.js';
import { permissionClaimStatus } from './permission-claims.js';

export interface PermissionClaimsControllerDeps {
  store: Store;
  generic: GenericStore;
  /** The APIBinding type as stored (v1alpha2). */
  bindingType(): ResourceType | undefined;
  /** Every binding of an export (`<cluster>` of the export, its name). */
  bindingsOf(exportCluster: string, exportName: string): Array<{ cluster: string; name: string }>;
  resolvePath(path: string): string | undefined;
  /** An export of another shard, replicated here. */
  exportElsewhere?(cluster: string, name: string): KubeObject | undefined;
  /** Called when another shard's export changed (its replicated copy): `listener(cluster, name)`. */
  onExportElsewhereChange?(listener: (cluster: string, name: string) => void): void;
  onError?(controller: string, key: string, err: unknown): void;
}

export function permissionClaimsController(deps: PermissionClaimsControllerDeps): Controller {
  const claims = new BindingClaims(deps);
  return defineController({
    name: 'permissionclaims',
    store: deps.store,
    onError: deps.onError,
    watches(feed) {
      feed.watch(BINDINGS_PREFIX, (e) => {
        if (e.type !== 'DELETED') feed.add(e.key.slice(BINDINGS_PREFIX.length));
      });
      // Only a change of the claims matters; the bindings of the export are looked up outside the commit.
      feed.watch(EXPORTS_PREFIX, (e) => {
        if (e.type === 'DELETED' || sameClaims(e.prevValue, e.value)) return;
        feed.add(`export:${e.key.slice(EXPORTS_PREFIX.length)}`);
      });
      // Another shard's export: its bindings here look again (its claims may have changed; rare, so not compared).
      if (deps.onExportElsewhereChange) feed.listen(deps.onExportElsewhereChange, (cluster, name) => feed.add(`export:${cluster}/${name}`));
    },
    reconcile: (key, queue) => claims.reconcile(key, queue),
  });
}

/** The reconcile: an export's bindings queued, or one binding's claim status brought up to date. */
class BindingClaims {
  constructor(private readonly deps: PermissionClaimsControllerDeps) {}

  reconcile(key: string, queue: ControllerQueue): void {
    if (key.startsWith('export:')) {
      const [cluster, name] = key.slice('export:'.length).split('/') as [string, string];
      for (const b of this.deps.bindingsOf(cluster, name)) queue.add(`${b.cluster}/${b.name}`);
      return;
    }
    const rt = this.deps.bindingType();
    const kv = this.deps.store.get(`${BINDINGS_PREFIX}${key}`);
    if (!rt || !kv) return;
    const binding = JSON.parse(kv.value) as KubeObject;
    if (binding.metadata?.deletionTimestamp) return;
    const [cluster, name] = key.split('/') as [string, string];
    const exportObj = this.exportOf(cluster, binding);
    if (!exportObj) return;
    const status = (binding.status ?? {}) as Record<string, unknown> & { conditions?: KcpCondition[] };
    const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    const claims = permissionClaimStatus(binding, exportObj);
    const next: Record<string, unknown> = { ...status };
    delete next.exportPermissionClaims;
    delete next.appliedPermissionClaims;
    // Empty lists are left out, as kcp's omitempty does.
    if (claims.exportPermissionClaims.length > 0) next.exportPermissionClaims = claims.exportPermissionClaims;
    if (claims.appliedPermissionClaims.length > 0) next.appliedPermissionClaims = claims.appliedPermissionClaims;
    // The binding controller's setCondition too, so both order the list the same way and never undo each other.
    next.conditions = claims.conditions.reduce((list, change) => setCondition(list, change, now), status.conditions ?? []);
    if (jsonEqual(next, status)) return;
    this.deps.generic.update(
      { rt, cluster, namespace: '' },
      name,
      { ...binding, status: next, metadata: { ...binding.metadata, resourceVersion: String(kv.revision) } },
      { subresource: 'status' },
    );
  }

  private exportOf(consumer: string, binding: KubeObject): KubeObject | undefined {
    const ref = bindingExportReference(consumer, binding, this.deps.resolvePath);
    const kv = ref ? this.deps.store.get(`${EXPORTS_PREFIX}${ref.cluster}/${ref.name}`) : undefined;
    if (kv) return JSON.parse(kv.value) as KubeObject;
    return ref ? this.deps.exportElsewhere?.(ref.cluster, ref.name) : undefined;
  }
}

function sameClaims(before: string | undefined, after: string): boolean {
  if (!before) return false;
  const claims = (text: string) => (JSON.parse(text) as { spec?: { permissionClaims?: unknown } }).spec?.permissionClaims;
  return jsonEqual(claims(before), claims(after));
}
