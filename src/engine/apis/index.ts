/**
 * API sharing, assembled: the served apis.kcp.io types, the bound APIs layered into every cluster's catalog, the
 * index writers (pending work, bindings per export) and the two controllers (export identities, bindings). Built in
 * two steps like the tenancy layer: types and the bound-API source before the generic store exists, controllers after;
 * the server starts them (server/controllers.ts).
 */
import type { IndexWriter } from '../registry/index-writer.js';
import type { ResourceType } from '../registry/types.js';
import type { Store } from '../storage/store.js';
import type { Controller } from '../controllers/controller.js';
import { bindingController, type BindingControllerDeps } from './binding-controller/index.js';
import { bindingIndexWriter } from './binding-index.js';
import { BoundAPIs, type SharingReplicaView } from './bound-apis.js';
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

  constructor(
    private readonly store: Store,
    admission: Omit<APIsAdmissionDeps, 'store'>,
    /** Other shards' exports and schemas (a sharded deployment's replica), served to bindings here. */
    replica?: SharingReplicaView,
  ) {
    this.bound = new BoundAPIs(store);
    if (replica) this.bound.useReplica(replica);
    this.indexWriters = [pendingWriter(store), bindingIndexWriter()];
    this.types = apisResourceTypes({ store, ...admission });
  }

  /** The stored (v1alpha2) version of a kind. */
  storedType(resource: string): ResourceType {
    return this.types.find((rt) => rt.group === APIS_GROUP && rt.resource === resource && rt.version === 'v1alpha2')!;
  }

  /** The export identity and binding controllers, built and not started. */
  controllers(deps: APIsControllerDeps): { identities: Controller; bindings: Controller } {
    const { store } = this;
    return {
      identities: identityController({
        store,
        generic: deps.generic,
        exportType: this.storedType(EXPORTS),
        namespaceType: deps.namespaceType,
        serviceAccountType: deps.serviceAccountType,
        secretType: deps.secretType,
        onError: deps.onError,
      }),
      bindings: bindingController({ ...deps, store, bindingType: this.storedType(BINDINGS), bound: this.bound }),
    };
  }
}
