/**
 * CustomResourceDefinition lifecycle, for every logical cluster from one queue:
 * - names: when a CRD changes, the other CRDs of its group in the same cluster are re-evaluated, so a CRD that
 *   lost a name conflict is accepted (and Established) once the conflicting CRD is gone or renamed;
 * - cleanup: a CRD being deleted first has all its objects deleted (each object's finalizers honoured), then
 *   loses the `customresourcecleanup` finalizer and disappears.
 */
import { computeCRDStatus, CLEANUP_FINALIZER, type CustomResourceDefinition } from '../apiextensions/crd.js';
import type { CRDCatalogs } from '../apiextensions/crd-catalogs.js';
import { sameGroupCRDs, type BoundNames } from '../apiextensions/crd-resource.js';
import { jsonEqual } from '../machinery/canonical-json.js';
import type { GenericStore, OpContext } from '../registry/generic-store.js';
import { nowTimestamp } from '../registry/object-rules.js';
import { decodeStored } from '../registry/stored-object.js';
import type { ResourceType } from '../registry/types.js';
import type { Store } from '../storage/store.js';
import { deleteStoredObjects } from './delete-stored-objects.js';
import { defineController, type Controller } from './controller.js';
import { splitClusterKey } from './work-queue.js';

export interface CRDControllerDeps {
  store: Store;
  generic: GenericStore;
  crdType: ResourceType;
  catalogs: CRDCatalogs;
  /** Names held by APIBindings: a CRD refused for one is accepted once the binding lets go. */
  boundNames?: BoundNames;
  onError?(controller: string, key: string, err: unknown): void;
}

export interface CRDController extends Controller {
  /** Re-evaluates the names of a cluster's CRDs of `group` (a binding of that group came or went). */
  recheckGroup(cluster: string, group: string): void;
}

export function crdController(deps: CRDControllerDeps): CRDController {
  const { store, catalogs, crdType } = deps;
  const deleting = `/kcpt/deleting/${crdType.storagePrefix}/`;
  const controller = defineController({
    name: 'crd',
    store,
    onError: deps.onError,
    watches(feed) {
      feed.listen(catalogs.onChange.bind(catalogs), (cluster, crd) => {
        const group = crd.spec?.group;
        for (const other of catalogs.crdsOf(cluster)) {
          if (other.metadata?.name === crd.metadata?.name || other.spec?.group === group) feed.add(`${cluster}|${other.metadata!.name}`);
        }
      });
      // Deletions interrupted by a restart resume here.
      for (const kv of store.list(deleting).items) {
        const rest = kv.key.slice(deleting.length);
        const slash = rest.indexOf('/');
        feed.add(`${rest.slice(0, slash)}|${rest.slice(slash + 1)}`);
      }
    },
    reconcile: (key) => reconcileCRD(deps, key),
  });
  return {
    ...controller,
    recheckGroup(cluster, group) {
      for (const crd of catalogs.crdsOf(cluster)) {
        if (crd.spec?.group === group) controller.add(`${cluster}|${crd.metadata!.name}`);
      }
    },
  };
}

function crdContext(deps: CRDControllerDeps, cluster: string): OpContext {
  return { rt: deps.crdType, cluster, namespace: '' };
}

function reconcileCRD(deps: CRDControllerDeps, key: string) {
  const { cluster, name } = splitClusterKey(key);
  const { store, generic, crdType } = deps;
  const kv = store.get(`/registry/${crdType.storagePrefix}/${cluster}/${name}`);
  if (!kv) return undefined;
  const crd = decodeStored(kv) as CustomResourceDefinition;
  if (crd.metadata?.deletionTimestamp) return cleanUp(deps, cluster, crd);

  const next = computeCRDStatus(crd, sameGroupCRDs(store, cluster, crd.spec.group, name, deps.boundNames), nowTimestamp());
  if (jsonEqual(next, crd.status ?? {})) return undefined;
  generic.update(crdContext(deps, cluster), name, { ...crd, status: next }, { subresource: 'status' });
  return undefined;
}

/** Deletes the CRD's objects; once none are left, drops the cleanup finalizer. */
function cleanUp(deps: CRDControllerDeps, cluster: string, crd: CustomResourceDefinition) {
  const { store, generic } = deps;
  const finalizers = crd.metadata?.finalizers ?? [];
  if (!finalizers.includes(CLEANUP_FINALIZER)) return undefined;
  const plural = crd.status?.acceptedNames?.plural || crd.spec.names.plural;
  const rt = deps.catalogs
    .catalogFor(cluster)
    .resourceTypes()
    // The CRD's own storage only: a binding serving the same group/resource there keeps its objects.
    .find((t) => t.storagePrefix === `${crd.spec.group}/${plural}`);
  let remaining = 0;
  if (rt) remaining += deleteStoredObjects(store, generic, rt, cluster, `/registry/${rt.storagePrefix}/${cluster}/`);
  if (remaining > 0) return { requeueAfterMs: 1000 };
  generic.update(crdContext(deps, cluster), crd.metadata!.name!, {
    ...crd,
    metadata: { ...crd.metadata, finalizers: finalizers.filter((f) => f !== CLEANUP_FINALIZER) },
  });
  return undefined;
}
