import type { CustomResourceDefinition } from '../../apiextensions/crd.js';
import type { GenericStore } from '../../registry/generic-store.js';
import type { ResourceType } from '../../registry/types.js';
import type { Store } from '../../storage/store.js';
import type { BoundAPIs } from '../bound-apis.js';

export interface BindingControllerDeps {
  store: Store;
  generic: GenericStore;
  /** The stored version (v1alpha2) of APIBinding. */
  bindingType: ResourceType;
  bound: BoundAPIs;
  resolvePath(path: string): string | undefined;
  pathOf(cluster: string): string | undefined;
  /** The CRDs of a cluster (the CRD catalogs' cached view). */
  crdsOf(cluster: string): CustomResourceDefinition[];
  /** Called when a cluster's CRDs may change: `listener(cluster)`. */
  onCRDChange(listener: (cluster: string) => void): void;
  /** A binding of `group` came or went in `cluster`: re-check the names of its CRDs. */
  recheckCRDs(cluster: string, group: string): void;
  onError?(controller: string, key: string, err: unknown): void;
}
