/**
 * kube's serviceaccounts controller: every active namespace of every logical cluster has a `default`
 * ServiceAccount, recreated when someone deletes it. Namespaces kcpt creates itself (a workspace's `default` and
 * `kube-system`, root's `default`) get theirs in the same commit (`defaultServiceAccount` with a batch), so this
 * controller only acts for namespaces created through the API and for deleted accounts: a storage watch files a
 * `<cluster>/<namespace>` key for each (string work only, inside the commit) and the reconcile does one point read.
 * Nothing is scanned at start-up.
 */
import { StatusError } from '../machinery/status.js';
import type { GenericStore, WriteBatch } from '../registry/generic-store.js';
import { objectKey } from '../registry/stored-object.js';
import type { KubeObject, ResourceType } from '../registry/types.js';
import type { Store } from '../storage/store.js';
import { defineController, type Controller } from './controller.js';

export const DEFAULT_SERVICE_ACCOUNT = 'default';

export interface ServiceAccountControllerDeps {
  store: Store;
  generic: GenericStore;
  namespaceType: ResourceType;
  serviceAccountType: ResourceType;
  onError?(controller: string, key: string, err: unknown): void;
}

/** What the `default` ServiceAccount of a namespace is created from. */
export function defaultServiceAccountObject(): KubeObject {
  return { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: DEFAULT_SERVICE_ACCOUNT } };
}

/** Creates the `default` ServiceAccount of `namespace` (in `batch` when given: the namespace may be in it too). */
export function defaultServiceAccount(
  generic: GenericStore,
  serviceAccountType: ResourceType,
  cluster: string,
  namespace: string,
  batch?: WriteBatch,
): void {
  generic.create(
    { rt: serviceAccountType, cluster, namespace },
    defaultServiceAccountObject(),
    batch ? { batch } : {},
  );
}

export function serviceAccountController(deps: ServiceAccountControllerDeps): Controller {
  const { store, generic, namespaceType, serviceAccountType } = deps;
  const nsRoot = `/registry/${namespaceType.storagePrefix}/`;
  const saRoot = `/registry/${serviceAccountType.storagePrefix}/`;
  return defineController({
    name: 'serviceaccount',
    store,
    onError: deps.onError,
    watches(feed) {
      feed.watch(nsRoot, (e) => {
        if (e.type === 'ADDED') feed.add(e.key.slice(nsRoot.length));
      });
      feed.watch(saRoot, (e) => {
        if (e.type !== 'DELETED' || !e.key.endsWith(`/${DEFAULT_SERVICE_ACCOUNT}`)) return;
        // `<cluster>/<namespace>/default` → `<cluster>/<namespace>`
        feed.add(e.key.slice(saRoot.length, -(DEFAULT_SERVICE_ACCOUNT.length + 1)));
      });
    },
    /** key = `<cluster>/<namespace>` */
    reconcile(key) {
      const slash = key.lastIndexOf('/');
      const cluster = key.slice(0, slash);
      const namespace = key.slice(slash + 1);
      if (store.get(objectKey(serviceAccountType, cluster, namespace, DEFAULT_SERVICE_ACCOUNT))) return;
      const ns = store.get(objectKey(namespaceType, cluster, '', namespace));
      if (!ns || (JSON.parse(ns.value) as KubeObject).metadata?.deletionTimestamp) return;
      try {
        defaultServiceAccount(generic, serviceAccountType, cluster, namespace);
      } catch (err) {
        // Created meanwhile, namespace gone or terminating, an object limit reached: nothing to retry.
        if (err instanceof StatusError && err.code < 500) return;
        throw err;
      }
    },
  });
}
