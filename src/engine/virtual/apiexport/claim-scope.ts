/**
 * Permission claims in the APIExport virtual workspace, in one place: which objects of a claimed resource a request
 * reaches, and kcp's selector admission of what it writes (kcp: the claim label filter of the virtual workspace's
 * storage and pkg/virtual/apiexport/admission).
 *
 * Every request on a claimed resource is served over claimScope's view of the store (scoped-store.ts): in the
 * consumer it names (or, at the `*` wildcard, in each consumer) only objects of a claim in force for the request's
 * verb and within the accepted selector are there; GET, LIST, WATCH, PUT, every PATCH, apply, DELETE,
 * delete-collection and subresources all read and write through that view, so none reaches another object. On top,
 * the claimed type carries kcp's admission so answers are kcp's:
 *   - create and update: labels the selector's matchLabels require are added when missing; a different value is
 *     refused (403 `protected label <key> must have value <value>`); then an object outside the selector is refused
 *     (403 `object does not match required labels`): an update may not move an object out;
 *   - delete of an existing object outside the selector: 403 `object does not match required labels` (kcp reads it
 *     unfiltered there); GET, PUT and PATCH of it: 404, as it is not in the view; apply: 409, as for kcp, which
 *     turns an apply of an object it cannot see into a create.
 */
import { forbidden } from '../../machinery/status.js';
import type { ClaimInForce } from '../../apis/permission-claims.js';
import type { StorageScope } from '../../registry/scoped-store.js';
import { objectKey } from '../../registry/stored-object.js';
import type { KubeObject, ResourceType } from '../../registry/types.js';
import type { Store } from '../../storage/store.js';
import type { ExportView } from './export-view.js';

export const NOT_SELECTED = 'object does not match required labels';

/**
 * What a request on the claimed resource `rt` (claim `key`) reaches: objects of `consumer` (every consumer at the
 * wildcard, read-only) for which a claim allowing `verb` is in force and whose labels the accepted selector picks.
 * The claim is looked up per object, so a watch stops showing a consumer's objects when its claim goes.
 */
export function claimScope(view: ExportView, rt: ResourceType, key: string, verb: string, consumer: string | undefined): StorageScope {
  return {
    prefix: `/registry/${rt.storagePrefix}/`,
    readOnly: consumer === undefined,
    admits: (cluster, obj) => (consumer === undefined || cluster === consumer) && view.claimFor(cluster, key, verb)?.selects(obj.metadata?.labels) === true,
    refusal: (obj) => forbidden(rt, nameOf(obj), NOT_SELECTED),
  };
}

/** The consumers' APIBindings to the export, read-only (kcp's apibindings view of the virtual workspace). */
export function bindingsScope(view: ExportView, rt: ResourceType, consumer: string | undefined): StorageScope {
  return {
    prefix: `/registry/${rt.storagePrefix}/`,
    readOnly: true,
    admits: (cluster, obj) => (consumer === undefined || cluster === consumer) && view.references(obj),
    refusal: () => forbidden(rt, '', 'write access to APIBinding is not allowed from virtual workspace'),
  };
}

const admitted = new WeakMap<ClaimInForce, WeakMap<ResourceType, ResourceType>>();

/**
 * The claimed type as the virtual workspace serves it to one consumer under `claim`: kcp's selector admission on
 * every create and update (also dry-run), and no service account `token` subresource (kcp's view serves none, and a
 * token is minted without the store the scope guards). Kept per claim and type, so caches keyed by type stay warm.
 */
export function claimedType(rt: ResourceType, claim: ClaimInForce): ResourceType {
  let byType = admitted.get(claim);
  if (!byType) admitted.set(claim, (byType = new WeakMap()));
  let served = byType.get(rt);
  if (served) return served;
  const strategy = rt.strategy;
  const { token: _token, ...subresources } = rt.subresources ?? {};
  void _token;
  served = {
    ...rt,
    ...(rt.subresources ? { subresources } : {}),
    strategy: {
      ...strategy,
      defaults(obj, ctx) {
        strategy.defaults?.(obj, ctx);
        addRequiredLabels(rt, obj, claim);
      },
      admit(obj, old, ctx) {
        strategy.admit?.(obj, old, ctx);
        if (!claim.selects(obj.metadata?.labels)) throw forbidden(rt, nameOf(obj), NOT_SELECTED);
      },
    },
  };
  byType.set(rt, served);
  return served;
}

/**
 * kcp's validating admission of a DELETE: an object that exists but is outside the accepted selector is refused with
 * 403 rather than hidden (the view would answer 404 for it, as kcp's GET does).
 */
export function refuseDeleteOutside(store: Store, scope: StorageScope, rt: ResourceType, consumer: string, namespace: string, name: string): void {
  const kv = store.get(objectKey(rt, consumer, rt.namespaced ? namespace : '', name));
  if (kv && !scope.admits(consumer, JSON.parse(kv.value) as KubeObject)) throw forbidden(rt, name, NOT_SELECTED);
}

/** kcp's mutating admission: the selector's matchLabels are put on the object; one with another value is refused. */
function addRequiredLabels(rt: ResourceType, obj: KubeObject, claim: ClaimInForce): void {
  const selector = claim.selector;
  const required = selector && !selector.matchAll ? Object.entries(selector.matchLabels ?? {}) : [];
  if (required.length === 0) return;
  const meta = (obj.metadata ??= {});
  // Labels of the wrong shape are validation's to refuse.
  if (meta.labels !== undefined && (meta.labels === null || typeof meta.labels !== 'object' || Array.isArray(meta.labels))) return;
  const labels: Record<string, string> = { ...(meta.labels ?? {}) };
  for (const [key, value] of required) {
    if (!Object.hasOwn(labels, key)) labels[key] = value;
    else if (labels[key] !== value) throw forbidden(rt, nameOf(obj), `protected label ${key} must have value ${value}`);
  }
  meta.labels = labels;
}

/** The name kube's admission errors use: the object's name, or its generateName, or `Unknown`. */
function nameOf(obj: KubeObject | undefined): string {
  return obj?.metadata?.name || obj?.metadata?.generateName || 'Unknown';
}
