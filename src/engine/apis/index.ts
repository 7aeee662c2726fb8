/**
 * API sharing, assembled: the served apis.kcp.io types, the bound APIs layered into every cluster's catalog, the
 * index writers (pending work, bindings per export) and the two controllers (export identities, bindings). Built in
 * two steps like the tenancy layer: types and the bound-API source before the generic store exists, controllers after.
 */
import type { IndexWriter } from '../registry/index-writer.js';
import type { ResourceType } from '../registry/types.js';
import type { Store } from '../storage/store.js';
import type { Controller } from '../controllers/controller.js';
import { bindingController, type BindingControllerDeps } from './binding-controller/index.js';
import { bindingIndexWriter } from './binding-index.js';
import { BoundAPIs } from './bound-apis.js';
import { identityController, type IdentityControllerDeps } from './identity-controller.js';
import { APIS_GROUP, BINDINGS, EXPORTS } from './names.js';
import { pendingWriter } from './pending.js';
import { apisResourceTypes, type APIsAdmissionDeps } from './resources.js';

export { BindingIndex, bindingIndexPrefix, parseRow, type IndexedBinding } from './binding-index.js';
export { BoundAPIs, type BoundAPI } from './bound-apis.js';
export { resourceTypesForSchema } from './schema-types.js';

export type APIsControllerDeps = Omit<BindingControllerDeps, 'store' | 'bindingType' | 'bound'> &
  Pick<IdentityControllerDeps, 'namespaceType' | 'serviceAccountType' | 'secretType'>;

export class APIs {
  readonly bound: BoundAPIs;
  readonly types: ResourceType[];
  readonly indexWriters: IndexWriter[];
  private identities?: Controller;
  private bindings?: Controller;

  constructor(
    private readonly store: Store,
    admission: Omit<APIsAdmissionDeps, 'store'>,
  ) {
    this.bound = new BoundAPIs(store);
    this.indexWriters = [pendingWriter(store), bindingIndexWriter()];
    this.types = apisResourceTypes({ store, ...admission });
  }

  /** The stored (v1alpha2) version of a kind. */
  private storedType(resource: string): ResourceType {
    return this.types.find((rt) => rt.group === APIS_GROUP && rt.resource === resource && rt.version === 'v1alpha2')!;
  }

  /** Follows binding changes (before the catalogs are used). */
  startBoundAPIs(): void {
    this.bound.start();
  }

  start(deps: APIsControllerDeps): void {
    const { store } = this;
    this.identities = identityController({
      store,
      generic: deps.generic,
      exportType: this.storedType(EXPORTS),
      namespaceType: deps.namespaceType,
      serviceAccountType: deps.serviceAccountType,
      secretType: deps.secretType,
      onError: deps.onError,
    });
    this.bindings = bindingController({ ...deps, store, bindingType: this.storedType(BINDINGS), bound: this.bound });
    this.identities.start();
    this.bindings.start();
  }

  /** Resolves once both controllers have nothing queued (tests). */
  async idle(): Promise<void> {
    await Promise.all([this.identities?.idle(), this.bindings?.idle()]);
  }

  stop(): void {
    this.identities?.stop();
    this.bindings?.stop();
    this.bound.stop();
  }
}
