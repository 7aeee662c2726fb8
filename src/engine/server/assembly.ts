/**
 * The server's parts, built in dependency order on top of the foundation: each is constructed from parts built
 * before it, nothing is started, and nothing reaches forward. Where a part puts this server's URL into objects, it
 * reads the ServerAddress, which the listener binds (reading it earlier throws). Controllers are built and listed
 * in controllers.ts; the HTTP app in http-app.ts.
 */
import { APIs, resourceTypesForSchema } from '../apis/index.js';
import { DefaultAPIs } from '../apis/defaults.js';
import { LocalExportPaths } from '../apis/export-paths.js';
import { EXPORTS_PREFIX } from '../apis/names.js';
import { buildAdmission, type Admission } from '../admission/index.js';
import { WriteAuthority } from '../admission/write-authority.js';
import { CRDCatalogs } from '../apiextensions/crd-catalogs.js';
import { customResourceDefinitionType } from '../apiextensions/crd-resource.js';
import { BearerTokenAuthenticator } from '../auth/bearer-authenticator.js';
import { reviewResourceTypes } from '../auth/review-resources.js';
import { ServiceAccountAuthenticator } from '../auth/service-account-authenticator.js';
import { ServiceAccountTokens } from '../auth/service-account-tokens.js';
import { createTokenRequest } from '../auth/token-request.js';
import { adminTokenEntries, StaticTokenAuthenticator } from '../auth/token-store.js';
import { accessAttributes } from '../authorization/authorizer.js';
import { Authorization, BOOTSTRAP_CLUSTER, Rbac } from '../authorization/index.js';
import { builtinResourceTypes } from '../builtin/index.js';
import { ownerIndexWriter } from '../controllers/owner-index.js';
import { OwnerResolver } from '../controllers/owner-references.js';
import { virtualWorkspaceSet, type RouterServices } from '../endpoints/api-router.js';
import { ShardClusterResolver } from '../endpoints/cluster-resolver.js';
import { RequestMetrics } from '../endpoints/metrics.js';
import { OpenAPIService } from '../endpoints/openapi-service.js';
import type { UserInfo } from '../auth/user.js';
import { GenericStore } from '../registry/generic-store.js';
import type { KubeObject, ResourceType } from '../registry/types.js';
import { DelegatedTokenAuthenticator } from '../shards/delegated-authenticator.js';
import { RemoteAccessReviews } from '../shards/remote-access-reviews.js';
import { ShardClient } from '../shards/shard-client.js';
import { RemoteWorkspaces } from '../shards/remote-workspaces.js';
import { LocalShardDirectory, RemoteShardDirectory } from '../shards/shard-directory.js';
import type { ShardDirectory } from '../tenancy/shard-placement.js';
import { SharingReplica } from '../shards/sharing-replica.js';
import type { Store } from '../storage/store.js';
import { Tenancy, type TenancyParts } from '../tenancy/index.js';
import { APIExportVirtualWorkspace } from '../virtual/apiexport/apiexport-workspace.js';
import { ExportBindings } from '../virtual/apiexport/export-bindings.js';
import { ExportViews } from '../virtual/apiexport/export-view.js';
import { LifecycleVirtualWorkspaces } from '../virtual/lifecycle-workspaces.js';
import { WorkspaceIndex } from '../virtual/workspace-index.js';
import type { ServerAddress } from './address.js';
import type { Foundation } from './foundation.js';
import type { ServerConfig } from './options.js';
import { authorizationPreparation } from './request-preparation.js';

/** The built-in and served types the server's own code reads and writes. */
export interface ServerTypes {
  /** Every type served in every cluster before CRDs and bindings: built-ins, CRDs, reviews, tenancy and apis.kcp.io. */
  all: ResourceType[];
  namespaces: ResourceType;
  logicalClusters: ResourceType;
  serviceAccounts: ResourceType;
  secrets: ResourceType;
  clusterRoles: ResourceType;
  clusterRoleBindings: ResourceType;
  customResourceDefinitions: ResourceType;
}

export interface ServerParts {
  config: ServerConfig;
  foundation: Foundation;
  address: ServerAddress;
  store: Store;
  generic: GenericStore;
  types: ServerTypes;
  /** Shard-to-shard calls (root's own client is made on first use, once the address is known). */
  shardClient(): ShardClient;
  /** Closes the shard client if one was made. */
  closeShardClient(): void;
  shardDirectory: ShardDirectory;
  replica: SharingReplica;
  rbac: Rbac;
  authorization: Authorization;
  tenancy: Tenancy;
  tenancyParts: TenancyParts;
  localExportPaths: LocalExportPaths;
  /** A workspace path to its cluster: through this shard's tree, else the exports' paths here and on other shards. */
  resolvePath(path: string): string | undefined;
  apis: APIs;
  defaultAPIs: DefaultAPIs;
  crdCatalogs: CRDCatalogs;
  owners: OwnerResolver;
  admission: Admission;
  serviceAccountTokens: ServiceAccountTokens;
  authenticator: BearerTokenAuthenticator | DelegatedTokenAuthenticator;
  exportBindings: ExportBindings;
  /** What every request is served with. */
  services: RouterServices & { watches: Set<() => void> };
  /** `/readyz` answers ok once set (everything started and admin.kubeconfig written). */
  readiness: { ready: boolean };
  /** Where controllers' failed reconciles go (they retry): the log at verbosity 1 and above. */
  onControllerError(controller: string, key: string, err: unknown): void;
}

export function assembleServer(config: ServerConfig, foundation: Foundation, address: ServerAddress): ServerParts {
  const { store, certs, tokens } = foundation;
  const shard = config.shard;
  const debugShard = (line: string) => config.debug(`shard ${shard.name}: ${line}`);

  // Shard-to-shard calls: a non-root shard uses the root shard kubeconfig's identity; root uses its shard admin, at
  // its own base URL.
  let client: ShardClient | undefined;
  const shardClient = () => (client ??= new ShardClient(foundation.rootShard ?? { rootUrl: address.baseUrl, caPem: certs.caCertPem, token: tokens.shardAdmin }));
  const shardDirectory: ShardDirectory = shard.isRoot ? new LocalShardDirectory(store) : new RemoteShardDirectory(shardClient(), debugShard);
  // API sharing across shards: the other shards' exports, schemas and endpoint slices, and their authorization.
  const replica = new SharingReplica({ self: shard.name, directory: shardDirectory, credentials: () => shardClient().credentials, log: debugShard });
  const remoteReviews = new RemoteAccessReviews(shardClient, (cluster, name) => {
    if (store.get(`${EXPORTS_PREFIX}${cluster}/${name}`)) return undefined;
    const owner = replica.get('apiexports', cluster, name)?.shard;
    return owner ? replica.baseURLOf(owner) : undefined;
  });

  // RBAC first: tenancy asks it about `use`, API sharing about `bind`.
  const rbac = new Rbac(store);
  const tenancy = new Tenancy(store, config.homes, { mayOnWorkspaceType: (user, verb, cluster, name) => rbac.mayOnWorkspaceType(user, verb, cluster, name) }, replica);
  const { paths } = tenancy;
  // Paths of this shard's workspaces, and of other shards' workspaces that export APIs (from the replica).
  const localExportPaths = new LocalExportPaths(store, (cluster) => paths.pathOf(cluster));
  // The workspace tree decides where it leads through this shard; the exports' paths answer only beyond it.
  const resolvePath = (path: string) => {
    const found = paths.locate(path);
    if ('cluster' in found) return found.cluster;
    return 'missing' in found ? undefined : (localExportPaths.clusterOfPath(path) ?? replica.clusterOfPath(path));
  };
  const apis = new APIs(
    store,
    {
      pathOf: (cluster) => paths.pathOf(cluster),
      resolvePath,
      // An export of another shard: the answer its shard gave (askBind, just before admission).
      mayBind: (user, cluster, name) =>
        rbac.mayOnAPIExport(user, 'bind', cluster, name) || remoteReviews.cached(cluster, name, user, bindAttributes(name), true)?.allowed === true,
      untilExportsCopied: () => replica.untilSynced(),
      askBind: async (user, cluster, name) => {
        if (remoteReviews.isRemote(cluster, name)) await remoteReviews.review(cluster, name, user, bindAttributes(name), true);
      },
    },
    replica,
  );
  const defaultAPIs = new DefaultAPIs({ store, paths, workspaceTypes: tenancy.workspaceTypes, types: apis.types, bound: apis.bound, resolvePath });
  // The authorizer chain reads LogicalClusters through the tenancy layer's cache and asks the export of a bound
  // resource for its maximal permission policy; an export of another shard caps requests with the RBAC of its
  // workspace there (asked in prepareAuthorization).
  const authorization = new Authorization(rbac, {
    clusterFacts: (cluster) => paths.logicalCluster(cluster),
    maximalPolicy: defaultAPIs.maximalPolicy,
    remoteCapAllows: (cap, subject, attrs) => remoteReviews.cached(cap.cluster, cap.name, subject, attrs, true)?.allowed,
  });

  const crdType = customResourceDefinitionType(store, (cluster, group) => apis.bound.namesIn(cluster, group));
  const builtins = builtinResourceTypes();
  const serviceAccountType = findType(builtins, '', 'serviceaccounts');
  const secretType = findType(builtins, '', 'secrets');
  // Service-account tokens are issued for, and by default accepted for, the issuer as audience (kube's default).
  const serviceAccountTokens = new ServiceAccountTokens(foundation.serviceAccountKey);
  const apiAudiences = [serviceAccountTokens.issuer];
  const localAuthenticator = new BearerTokenAuthenticator(
    // One table, the admin users' entries first (they win a shared token, as kcp's union consults the admin
    // authenticator before the token file): a token-file or service-account token is digested once per request,
    // not once per table.
    new StaticTokenAuthenticator([...adminTokenEntries(tokens), ...foundation.tokenFileEntries]),
    new ServiceAccountAuthenticator({ store, tokens: serviceAccountTokens, serviceAccounts: serviceAccountType, secrets: secretType }),
    apiAudiences,
  );
  // A non-root shard accepts root's tokens too, through a cached TokenReview.
  const authenticator = foundation.rootShard ? new DelegatedTokenAuthenticator(localAuthenticator, shardClient()) : localAuthenticator;
  const all: ResourceType[] = [
    ...authorization.guard(builtins),
    crdType,
    ...reviewResourceTypes({ reviewToken: (token, audiences) => authenticator.review(token, audiences), ...authorization.reviews() }),
    ...apis.types,
  ];
  const types: ServerTypes = {
    all,
    namespaces: findType(all, '', 'namespaces'),
    logicalClusters: findType(all, 'core.kcp.io', 'logicalclusters'),
    serviceAccounts: serviceAccountType,
    secrets: secretType,
    clusterRoles: findType(all, 'rbac.authorization.k8s.io', 'clusterroles'),
    clusterRoleBindings: findType(all, 'rbac.authorization.k8s.io', 'clusterrolebindings'),
    customResourceDefinitions: crdType,
  };

  const crdCatalogs = new CRDCatalogs(store, tenancy.apiSets(all), apis.bound);
  const catalogFor = crdCatalogs.catalogFor;
  // The owner index is written with every object, so the garbage collector finds dependents without scanning.
  const owners = new OwnerResolver(store, catalogFor);
  const admission = buildAdmission({ store, builtinTypes: all, catalogFor, logicalClusterTotalObjectLimit: config.logicalClusterTotalObjectLimit });
  const generic = new GenericStore(store, types.namespaces, {
    indexWriters: [ownerIndexWriter(store, owners), ...admission.indexWriters, ...tenancy.indexWriters, ...apis.indexWriters, ...defaultAPIs.indexWriters],
    garbageCollection: true,
    admission: admission.chain,
    authority: new WriteAuthority({ pathOf: (cluster) => paths.pathOf(cluster) }),
  });
  const onError = (controller: string, key: string, err: unknown) => config.debug(`controller ${controller}: ${key}: ${(err as Error).message}`);
  const tenancyParts = tenancy.assemble({
    generic,
    contentCatalogFor: (cluster) => crdCatalogs.contentCatalogFor(cluster),
    namespaces: types.namespaces,
    logicalClusters: types.logicalClusters,
    clusterRoleBindings: types.clusterRoleBindings,
    serviceAccounts: types.serviceAccounts,
    externalUrl: () => address.externalUrl,
    shard: {
      name: shard.name,
      virtualWorkspaceUrl: () => address.virtualWorkspaceUrl,
      directory: shardDirectory,
      remote: new RemoteWorkspaces({ store, generic, workspaces: tenancy.workspaces, client: shardClient, shards: shardDirectory }),
    },
    onError,
  });

  const { authorizer } = authorization;
  const clusters = new ShardClusterResolver(catalogFor, tenancy.resolvePath, (user, cluster, name) =>
    authorizer.authorize(cluster, user, {
      verb: 'get',
      resourceRequest: true,
      apiGroup: 'tenancy.kcp.io',
      resource: 'workspaces',
      subresource: '',
      name,
      namespace: '',
      path: '',
    }).allowed,
  );
  // The workspace index and `kubectl get workspaces`: who may enter which workspace is the authorizer's answer.
  const workspaceIndex = new WorkspaceIndex({
    store,
    workspaces: tenancy.workspaces,
    canAccess: (user, cluster) => authorizer.subjectInside(cluster, user) !== undefined,
    entersEverywhere: (user) => authorizer.allowedByRbac(BOOTSTRAP_CLUSTER, user, accessAttributes),
  });
  // API sharing: which workspaces bind which export, and the export's virtual workspace for its controllers.
  const exportBindings = new ExportBindings(store);
  const exportViews = new ExportViews({
    store,
    bindings: exportBindings,
    catalogFor,
    typesForSchema: resourceTypesForSchema,
    replicated: { exportOf: (cluster, name) => apis.bound.exportOf(cluster, name), schema: (cluster, name) => apis.bound.schema(cluster, name) },
  });
  const readiness = { ready: false };
  const services: ServerParts['services'] = {
    store,
    generic,
    authenticator,
    authorizer,
    clusters,
    openapi: new OpenAPIService(),
    watches: new Set<() => void>(),
    watchRemoval: (cluster: string, rt: ResourceType, onGone: () => void) => crdCatalogs.watchRemoval(cluster, rt, onGone),
    minRequestTimeoutSeconds: config.minRequestTimeoutSeconds,
    // Home workspaces hang under root:users, which the root shard holds.
    homes: shard.isRoot ? { get: (user: UserInfo, mayCreate: () => void) => tenancyParts.homes.getWaiting(user, mayCreate) } : undefined,
    virtualWorkspaces: virtualWorkspaceSet(
      new LifecycleVirtualWorkspaces({
        store,
        clusters,
        logicalClusters: types.logicalClusters,
        mayOnWorkspaceType: (user, verb, cluster, name) => rbac.mayOnWorkspaceType(user, verb, cluster, name),
        workspaceType: (path, name) => {
          const cluster = path.includes(':') ? tenancy.resolvePath(path) : path;
          return cluster ? { cluster, type: tenancy.workspaceTypes.get(path, name) } : undefined;
        },
      }),
      workspaceIndex,
      new APIExportVirtualWorkspace({ store, views: exportViews, clusters, authorizer, resolvePath, remote: remoteReviews, untilReplicaSynced: () => replica.untilSynced() }),
    ),
    workspaceChildren: (user: UserInfo) => workspaceIndex.childFilter(user),
    tokenRequests: (target: { cluster: string; namespace: string; name: string }, input: KubeObject) =>
      createTokenRequest({ store, tokens: serviceAccountTokens, serviceAccounts: serviceAccountType, secrets: secretType, apiAudiences }, target, input),
    metrics: new RequestMetrics(),
    // Known once the server listens; requests come after that.
    get serverAddress() {
      return address.serverAddress;
    },
    isReady: () => readiness.ready,
    prepareAuthorization: authorizationPreparation({ replica, bound: apis.bound, maximalPolicy: defaultAPIs.maximalPolicy, authorizer, remoteReviews }),
  };

  return {
    config,
    foundation,
    address,
    store,
    generic,
    types,
    shardClient,
    closeShardClient: () => client?.close(),
    shardDirectory,
    replica,
    rbac,
    authorization,
    tenancy,
    tenancyParts,
    localExportPaths,
    resolvePath,
    apis,
    defaultAPIs,
    crdCatalogs,
    owners,
    admission,
    serviceAccountTokens,
    authenticator,
    exportBindings,
    services,
    readiness,
    onControllerError: onError,
  };
}

function findType(types: readonly ResourceType[], group: string, resource: string): ResourceType {
  const rt = types.find((t) => t.group === group && t.resource === resource);
  if (!rt) throw new Error(`built-in type ${resource}.${group} is missing`);
  return rt;
}

/** What binding an APIExport takes: verb `bind` on `apiexports/<name>` in the export's workspace. */
function bindAttributes(exportName: string) {
  return { verb: 'bind', resourceRequest: true, apiGroup: 'apis.kcp.io', resource: 'apiexports', subresource: '', name: exportName, namespace: '', path: '' };
}
