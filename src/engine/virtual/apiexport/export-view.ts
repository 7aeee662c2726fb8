/**
 * What one APIExport's virtual workspace serves: the export's own resources (typed from its APIResourceSchemas,
 * stored under its identity), the resources it claims from consumers (built-ins, or another export's resources by
 * identity hash), and the consumers' APIBindings to it, read-only. Built from the stored export and cached while
 * the export does not change (schemas are immutable).
 *
 * Which consumer's objects a request may reach is decided per consumer from its binding: the export's resources
 * in every consumer with a Bound binding, a claimed resource only where the claim is accepted with the verb asked
 * for, and only the objects the accepted selector picks.
 */
import { LRUCache } from 'lru-cache';
import { claimKey, claimsInForce, verbAllowed, type ClaimInForce, type PermissionClaim } from '../../apis/permission-claims.js';
import type { ClusterCatalog } from '../../registry/catalog.js';
import type { KubeObject, ResourceType } from '../../registry/types.js';
import type { Store } from '../../storage/store.js';
import { APIS_GROUP, boundStoragePrefix, EXPORTS_PREFIX, SCHEMAS_PREFIX } from '../../apis/names.js';
import type { APIResourceSchema, ExportResource } from '../../apis/types.js';
import type { ConsumerBinding, ExportBindingsReader } from './export-bindings.js';

const READ_ONLY_VERBS = ['get', 'list', 'watch'];

export interface ExportViewDeps {
  store: Store;
  bindings: ExportBindingsReader;
  catalogFor(cluster: string): ClusterCatalog;
  /** The served types of an APIResourceSchema bound under `identityHash` (apis-core's resourceTypesForSchema). */
  typesForSchema(schema: APIResourceSchema, identityHash: string): ResourceType[];
  /**
   * An export and its schemas held elsewhere than this shard's store (replicated from the shard hosting them): a
   * shard serves the virtual workspace of another shard's export for the consumers it hosts.
   */
  replicated?: {
    exportOf(cluster: string, name: string): { object: KubeObject; revision: string } | undefined;
    schema(cluster: string, name: string): APIResourceSchema | undefined;
  };
}

/** The kind of thing a served type is in this virtual workspace. */
export type ServedAs = { kind: 'bound' } | { kind: 'claimed'; key: string } | { kind: 'apibindings' };

export class ExportView {
  readonly identityHash: string;
  /** The export's own resources, from its schemas (what the wildcard serves and discovery lists). */
  readonly boundTypes: ResourceType[];
  readonly boundPrefixes: Set<string>;
  /** Whether the identity and every schema were there: otherwise the view is rebuilt on the next request. */
  readonly complete: boolean;
  /** The export's claims, minus those on its own resources (kcp ignores them). */
  readonly claims: PermissionClaim[];
  private readonly inForce = new WeakMap<ConsumerBinding, Map<string, ClaimInForce>>();

  constructor(
    private readonly deps: ExportViewDeps,
    readonly cluster: string,
    readonly name: string,
    readonly exportObj: KubeObject,
    readonly revision: number | string,
  ) {
    this.identityHash = (exportObj.status as { identityHash?: string } | undefined)?.identityHash ?? '';
    const resources = ((exportObj.spec as { resources?: ExportResource[] } | undefined)?.resources ?? []).filter((r) => r?.name && r.schema);
    const typed = this.identityHash ? resources.map((r) => this.typesOf(r)) : [];
    this.boundTypes = typed.flatMap((t) => t ?? []);
    this.complete = this.identityHash !== '' && typed.every((t) => t !== undefined);
    this.boundPrefixes = new Set(resources.map((r) => boundStoragePrefix(r.group ?? '', r.name, this.identityHash)));
    const own = new Set(resources.map((r) => `${r.group ?? ''}|${r.name}`));
    const claims = (exportObj.spec as { permissionClaims?: PermissionClaim[] } | undefined)?.permissionClaims ?? [];
    this.claims = claims.filter((c) => c?.resource && !(!c.identityHash && own.has(`${c.group ?? ''}|${c.resource}`)) && !(c.identityHash === this.identityHash && own.has(`${c.group ?? ''}|${c.resource}`)));
  }

  /** The consumer's Bound binding to this export. */
  bindingIn(consumer: string): ConsumerBinding | undefined {
    return this.deps.bindings.boundBinding(this.cluster, this.name, consumer);
  }

  boundConsumers(): ReadonlyMap<string, ConsumerBinding> {
    return this.deps.bindings.boundConsumers(this.cluster, this.name);
  }

  /** The claims `binding` accepted of this export (cached per index row). */
  claimsOf(binding: ConsumerBinding): Map<string, ClaimInForce> {
    let claims = this.inForce.get(binding);
    if (!claims) this.inForce.set(binding, (claims = claimsInForce(binding.claims, this.exportObj)));
    return claims;
  }

  /** The claim in force in `consumer` for `key`, if it allows `verb`. */
  claimFor(consumer: string, key: string, verb: string): ClaimInForce | undefined {
    const binding = this.bindingIn(consumer);
    const claim = binding ? this.claimsOf(binding).get(key) : undefined;
    return claim && verbAllowed(claim.verbs, verb) ? claim : undefined;
  }

  /** Whether an APIBinding object binds this export. */
  references(binding: KubeObject): boolean {
    const ref = (binding.spec as { reference?: { export?: { name?: string } } } | undefined)?.reference?.export;
    const cluster = (binding.status as { apiExportClusterName?: string } | undefined)?.apiExportClusterName;
    return ref?.name === this.name && cluster === this.cluster;
  }

  /**
   * The types served for requests into `consumer` (undefined: the wildcard), each with what it is here. Consumers'
   * own types are used when they have them (a consumer may still be on an older schema of a rolled export).
   */
  servedTypes(consumer: string | undefined): Array<{ rt: ResourceType; as: ServedAs }> {
    const served: Array<{ rt: ResourceType; as: ServedAs }> = [];
    const consumerCatalog = consumer !== undefined && this.bindingIn(consumer) ? this.deps.catalogFor(consumer) : undefined;
    const own = consumerCatalog?.resourceTypes().filter((rt) => this.boundPrefixes.has(rt.storagePrefix));
    for (const rt of own && own.length > 0 ? own : this.boundTypes) served.push({ rt, as: { kind: 'bound' } });
    for (const claim of this.claims) {
      const key = claimKey(claim);
      for (const rt of this.claimedTypes(claim, consumerCatalog)) served.push({ rt, as: { kind: 'claimed', key } });
    }
    const exportCatalog = this.deps.catalogFor(this.cluster);
    for (const rt of exportCatalog.resourceTypes()) {
      if (rt.group === APIS_GROUP && rt.resource === 'apibindings') {
        served.push({ rt: { ...rt, verbs: READ_ONLY_VERBS.filter((v) => rt.verbs.includes(v)) }, as: { kind: 'apibindings' } });
      }
    }
    return served;
  }

  /** A claimed resource's types: built-ins from the export's workspace, an export's resource from a consumer that has it. */
  private claimedTypes(claim: PermissionClaim, consumerCatalog: ClusterCatalog | undefined): ResourceType[] {
    const group = claim.group ?? '';
    const matching = (catalog: ClusterCatalog) =>
      catalog
        .resourceTypes()
        .filter(
          (rt) =>
            rt.group === group &&
            rt.resource === claim.resource &&
            (claim.identityHash ? rt.storagePrefix === boundStoragePrefix(group, claim.resource, claim.identityHash) : !rt.storagePrefix.includes(':')),
        );
    if (!claim.identityHash) return matching(consumerCatalog ?? this.deps.catalogFor(this.cluster));
    if (consumerCatalog) return matching(consumerCatalog);
    // The wildcard: any bound consumer that serves the claimed export's resource knows its types.
    let checked = 0;
    for (const consumer of this.boundConsumers().keys()) {
      const found = matching(this.deps.catalogFor(consumer));
      if (found.length > 0) return found;
      if (++checked >= 16) break;
    }
    return [];
  }

  private typesOf(resource: ExportResource): ResourceType[] | undefined {
    const kv = this.deps.store.get(`${SCHEMAS_PREFIX}${this.cluster}/${resource.schema}`);
    const schema = kv ? (JSON.parse(kv.value) as APIResourceSchema) : this.deps.replicated?.schema(this.cluster, resource.schema);
    return schema ? this.deps.typesForSchema(schema, this.identityHash) : undefined;
  }
}

/** Export views by `<cluster>|<name>`, rebuilt when the stored export changes. */
export class ExportViews {
  private readonly cache = new LRUCache<string, ExportView>({ max: 256 });

  constructor(private readonly deps: ExportViewDeps) {}

  get(cluster: string, name: string): ExportView | undefined {
    const kv = this.deps.store.get(`${EXPORTS_PREFIX}${cluster}/${name}`);
    const found = kv ? { revision: kv.revision, object: undefined } : this.deps.replicated?.exportOf(cluster, name);
    if (!found) return undefined;
    const key = `${cluster}|${name}`;
    const cached = this.cache.get(key);
    if (cached && cached.revision === found.revision && cached.complete) return cached;
    const object = kv ? (JSON.parse(kv.value) as KubeObject) : found.object!;
    const view = new ExportView(this.deps, cluster, name, object, found.revision);
    this.cache.set(key, view);
    return view;
  }
}
