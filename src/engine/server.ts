/**
 * The composition root: opens storage, certificates and tokens in the root directory, wires the engine's parts
 * together, listens on HTTPS and writes admin.kubeconfig. `startServer` is what `kcpt start` and the programmatic
 * API call.
 */
import { readFile } from 'node:fs/promises';
import type http from 'node:http';
import path from 'node:path';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import { ensureServingCertificates } from './auth/certificates.js';
import { writeAdminKubeconfig, type AdminKubeconfigDocument } from './auth/kubeconfig.js';
import { acquireRootLock, prepareRootDirectory } from './auth/root-directory.js';
import { parseTokenAuthFile } from './auth/token-file.js';
import {
  ADMIN_KUBECONFIG_FILE,
  adminTokenEntries,
  loadOrCreateAdminTokens,
  StaticTokenAuthenticator,
  unionTokenAuthenticator,
} from './auth/token-store.js';
import { buildAdmission } from './admission/index.js';
import { Authorization, BOOTSTRAP_CLUSTER, requestAttributes } from './authorization/index.js';
import { identityInCluster } from './auth/foreign-identity.js';
import type { RequestInfo } from './endpoints/request-info.js';
import { accessAttributes, bindingSubject } from './authorization/authorizer.js';
import { CRDCatalogs } from './apiextensions/crd-catalogs.js';
import { APIs } from './apis/index.js';
import { DefaultAPIs } from './apis/defaults.js';
import { customResourceDefinitionType } from './apiextensions/crd-resource.js';
import { builtinResourceTypes } from './builtin/index.js';
import { reviewResourceTypes } from './auth/review-resources.js';
import { BearerTokenAuthenticator } from './auth/bearer-authenticator.js';
import { bootstrapMetricsViewer } from './auth/metrics-viewer.js';
import { ServiceAccountAuthenticator } from './auth/service-account-authenticator.js';
import { loadOrCreateServiceAccountKey } from './auth/service-account-key.js';
import { ServiceAccountTokens } from './auth/service-account-tokens.js';
import { createTokenRequest } from './auth/token-request.js';
import { DEFAULT_BATTERIES } from './batteries.js';
import { ServiceAccountController } from './controllers/service-account-controller.js';
import { TokenSecretController } from './controllers/token-secret-controller.js';
import { RequestMetrics } from './endpoints/metrics.js';
import { DEFAULT_INFLIGHT_LIMITS, installInflightLimit } from './endpoints/inflight-limit.js';
import { CRDController } from './controllers/crd-controller.js';
import { GarbageCollector } from './controllers/garbage-collector.js';
import { ownerIndexWriter } from './controllers/owner-index.js';
import { OwnerResolver } from './controllers/owner-references.js';
import { LogicalClusterController, ensureNamespace, ensureRootLogicalCluster } from './controllers/logical-cluster-controller.js';
import { NamespaceController } from './controllers/namespace-controller.js';
import { ResourceQuotaController } from './controllers/resource-quota-controller.js';
import { routeRequest, virtualWorkspaceSet } from './endpoints/api-router.js';
import type { UserInfo } from './endpoints/resource-handler.js';
import { ShardClusterResolver } from './endpoints/cluster-resolver.js';
import { OpenAPIService } from './endpoints/openapi-service.js';
import { sendStatusError, toStatusError } from './endpoints/responses.js';
import { registerSnapshotRoutes } from './endpoints/snapshot-routes.js';
import { requestEntityTooLarge, unsupportedMediaType, badRequest, internalError } from './machinery/status.js';
import { GenericStore } from './registry/generic-store.js';
import type { KubeObject, ResourceType } from './registry/types.js';
import { openStore, startCompactor } from './storage/index.js';
import { Tenancy } from './tenancy/index.js';
import { LifecycleVirtualWorkspaces } from './virtual/lifecycle-workspaces.js';
import { WorkspaceIndex } from './virtual/workspace-index.js';
import { APIExportVirtualWorkspace } from './virtual/apiexport/apiexport-workspace.js';
import { EndpointSliceController } from './virtual/apiexport/endpoint-slice-controller.js';
import { ExportBindings } from './virtual/apiexport/export-bindings.js';
import { BindingIndex } from './apis/binding-index.js';
import { ExportViews } from './virtual/apiexport/export-view.js';
import { resourceTypesForSchema } from './apis/schema-types.js';
import { APIS_GROUP, EXPORTS_PREFIX } from './apis/names.js';
import { PermissionClaimsController } from './apis/permission-claims-controller.js';
import { defaultHomeOptions } from './tenancy/home-workspaces.js';
import { workspaceStorageReferences } from './tenancy/storage-references.js';
import { ROOT_SHARD } from './tenancy/names.js';
import { readShardCredentials, ShardClient } from './shards/shard-client.js';
import { DelegatedTokenAuthenticator } from './shards/delegated-authenticator.js';
import { LocalShardDirectory, RemoteShardDirectory, type ShardDirectory } from './shards/shard-directory.js';
import { listenProxySocket, proxySocketPath, type ProxySocket } from './shards/proxy-socket.js';
import { keepRegistering, shardObject } from './shards/shard-registration.js';
import { RemoteAccessReviews } from './shards/remote-access-reviews.js';
import { SharingReplica } from './shards/sharing-replica.js';
import { WriteAuthority } from './admission/write-authority.js';
import type { ShardSpec } from './tenancy/shard-placement.js';
import { LocalExportPaths } from './apis/export-paths.js';
import { RemoteSliceEndpoints } from './virtual/apiexport/remote-slice-endpoints.js';

export interface ServerOptions {
  rootDirectory: string;
  securePort: number;
  bindAddress: string;
  /** '' = SQLite file in the root directory; `memory://`; `sqlite:///path`. */
  storage: string;
  tokenAuthFile?: string;
  batteries?: string[];
  /** 0 = quiet, higher = chattier request logs on stderr. */
  verbosity?: number;
  /** Keep watch history at least this long (default 5 minutes). */
  watchHistoryRetentionMs?: number;
  /** How often old watch history is compacted (default 60 s). */
  watchHistoryCompactionIntervalMs?: number;
  /** Never compact the newest this-many revisions (default 1000). */
  watchHistoryMinRevisions?: number;
  /** kube-apiserver's --min-request-timeout: watches without timeoutSeconds end after [this, 2·this) s (default 1800). */
  minRequestTimeoutSeconds?: number;
  /** kcp's --logical-cluster-total-object-limit: objects per logical cluster, root and system:* exempt (0 = off). */
  logicalClusterTotalObjectLimit?: number;
  /** kube's --max-requests-inflight: reads served at once before 429 (default 400; 0 = unlimited). */
  maxRequestsInflight?: number;
  /** kube's --max-mutating-requests-inflight: writes served at once before 429 (default 200; 0 = unlimited). */
  maxMutatingRequestsInflight?: number;
  /** Where messages go (default stderr). */
  log?: (line: string) => void;
  /** Home workspaces: where the buckets start (`root:users`), how many levels (1–5) and letters per bucket (1–4). */
  homeWorkspacesRootPrefix?: string;
  homeWorkspacesBucketLevels?: number;
  homeWorkspacesBucketSize?: number;
  /** Groups whose members get a home workspace created on their first `~` (default `system:authenticated`). */
  homeWorkspacesHomeCreatorGroups?: string[];
  /** This server's Shard name (default `root`: the root shard). Another name makes a non-root shard. */
  shardName?: string;
  /** A non-root shard's way to root: kubeconfig whose current context reaches the root shard with a bearer token. */
  rootShardKubeconfig?: string;
  /** Where other shards and the front-proxy reach this shard (default `https://<bind-address>:<port>`). */
  shardBaseUrl?: string;
  /** What workspace URLs point at (the front-proxy in a sharded deployment; default: the base URL). */
  shardExternalUrl?: string;
  /** Where this shard's virtual workspaces are reached (default: the base URL). */
  shardVirtualWorkspaceUrl?: string;
  /**
   * Also serve plaintext HTTP on this unix socket (relative: inside the root directory; mode 0600), for a
   * front-proxy on the same machine (`kcpt front-proxy --shard-socket NAME=PATH`).
   */
  proxySocket?: string;
}

export interface RunningServer {
  /** `https://host:port` */
  url: string;
  port: number;
  rootDirectory: string;
  kubeconfigPath: string;
  /** What `kubeconfigPath` holds (kcp-admin's and shard-admin's tokens, the CA), for callers in this process. */
  adminKubeconfig: AdminKubeconfigDocument;
  close(): Promise<void>;
}

export const maxRequestBodyBytes = 3 * 1024 * 1024;

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const shardName = options.shardName ?? ROOT_SHARD;
  const isRootShard = shardName === ROOT_SHARD;
  if (!isRootShard && !options.rootShardKubeconfig) {
    throw new Error(`shard ${shardName} is not the root shard: it needs --root-shard-kubeconfig to reach root`);
  }
  // Read before anything is opened: a wrong kubeconfig is a start-up error, not a shard that cannot reach root.
  const rootCredentials = options.rootShardKubeconfig && !isRootShard ? readShardCredentials(options.rootShardKubeconfig) : undefined;
  const root = await prepareRootDirectory(options.rootDirectory, { onWarning: (m) => log(`warning: ${m}`) });
  const socketPath = options.proxySocket ? proxySocketPath(root, options.proxySocket) : undefined;
  const releaseLock = acquireRootLock(root);
  const cleanups: Array<() => void | Promise<void>> = [releaseLock];
  try {
    // The objects every workspace has are stored compressed against samples of themselves (a few hundred bytes each).
    const store = openStore(options.storage, root, {
      keepNewestRevisions: options.watchHistoryMinRevisions,
      valueReferences: workspaceStorageReferences(),
      // Group commit (writes of one event-loop turn in one transaction, responses held until it commits) stays off:
      // its watch events go out at the end of the turn, after a watch the same turn closed (a CRD deleted, so no
      // cluster serves the version any more) has already ended, and that watch misses the DELETED events of its
      // objects (test/e2e/wildcard-crd.test.ts caught it). It saved only 3-4 % CPU per workspace; the store keeps
      // the option, tested, until watch closing waits for the turn's events.
      groupCommit: false,
    });
    cleanups.unshift(() => store.close());
    const stopCompactor = startCompactor(store, {
      retentionMs: options.watchHistoryRetentionMs,
      intervalMs: options.watchHistoryCompactionIntervalMs,
    });
    cleanups.unshift(stopCompactor);

    const batteries = new Set(options.batteries ?? DEFAULT_BATTERIES);
    const [certs, tokens, fileEntries, saKey] = await Promise.all([
      ensureServingCertificates(root, { hosts: [options.bindAddress, ...urlHosts(options.shardBaseUrl, options.shardExternalUrl, options.shardVirtualWorkspaceUrl)] }),
      loadOrCreateAdminTokens(root, { withUser: batteries.has('user') }),
      options.tokenAuthFile
        ? readFile(options.tokenAuthFile, 'utf8').then((text) => parseTokenAuthFile(text, { source: options.tokenAuthFile }))
        : Promise.resolve([]),
      loadOrCreateServiceAccountKey(root),
    ]);

    // Authorization reads LogicalClusters through the tenancy layer's cache; tenancy asks it about `use`.
    // Authorization also asks the export of a bound resource for its maximal permission policy (defaultAPIs, below).
    const authorization: Authorization = new Authorization(
      store,
      (cluster) => tenancy.paths.facts(cluster),
      (cluster, attrs) => defaultAPIs.maximalPolicy(cluster, attrs),
      // An export of another shard caps requests with the RBAC of its workspace there (asked in prepareAuthorization).
      (cap, subject, attrs) => remoteReviews.cached(cap.cluster, cap.name, subject, attrs, true)?.allowed,
    );
    const tenancy = new Tenancy(
      store,
      batteries,
      {
        prefix: options.homeWorkspacesRootPrefix ?? defaultHomeOptions.prefix,
        levels: options.homeWorkspacesBucketLevels ?? defaultHomeOptions.levels,
        size: options.homeWorkspacesBucketSize ?? defaultHomeOptions.size,
      },
      { mayOnWorkspaceType: (user, verb, cluster, name) => authorization.mayOnWorkspaceType(user, verb, cluster, name) },
    );
    // Paths of this shard's workspaces, and of other shards' workspaces that export APIs (from the replica).
    const localExportPaths = new LocalExportPaths(store, (cluster) => tenancy.paths.pathOf(cluster));
    cleanups.unshift(() => localExportPaths.stop());
    // The workspace tree decides where it leads through this shard; the exports' paths answer only beyond it.
    const resolveAnyPath = (path: string) => {
      const found = tenancy.paths.locate(path);
      if ('cluster' in found) return found.cluster;
      return 'missing' in found ? undefined : (localExportPaths.clusterOfPath(path) ?? replica.clusterOfPath(path));
    };
    const apis = new APIs(store, {
      pathOf: (cluster) => tenancy.paths.pathOf(cluster),
      resolvePath: resolveAnyPath,
      // An export of another shard: the answer its shard gave (askBind, just before admission).
      mayBind: (user, cluster, name) =>
        authorization.mayOnAPIExport(user, 'bind', cluster, name) || remoteReviews.cached(cluster, name, user, bindAttributes(name), true)?.allowed === true,
      untilExportsCopied: () => replica.untilSynced(),
      askBind: async (user, cluster, name) => {
        if (remoteReviews.isRemote(cluster, name)) await remoteReviews.review(cluster, name, user, bindAttributes(name), true);
      },
    });
    const crdType = customResourceDefinitionType(store, (cluster, group) => apis.bound.namesIn(cluster, group));
    const builtins = builtinResourceTypes();
    const serviceAccountType = findType(builtins, '', 'serviceaccounts');
    const secretType = findType(builtins, '', 'secrets');
    // Service-account tokens are issued for, and by default accepted for, the issuer as audience (kube's default).
    const saTokens = new ServiceAccountTokens(saKey);
    const apiAudiences = [saTokens.issuer];
    const localAuthenticator = new BearerTokenAuthenticator(
      unionTokenAuthenticator(new StaticTokenAuthenticator(adminTokenEntries(tokens)), new StaticTokenAuthenticator(fileEntries)),
      new ServiceAccountAuthenticator({ store, tokens: saTokens, serviceAccounts: serviceAccountType, secrets: secretType }),
      apiAudiences,
    );
    // Shard-to-shard calls: a non-root shard uses the root shard kubeconfig's identity; root uses its shard admin.
    // The URL of root's own client is known once it listens.
    let shardClient: ShardClient | undefined;
    const shardClientFor = () =>
      (shardClient ??= new ShardClient(rootCredentials ?? { rootUrl: baseUrl, caPem: certs.caCertPem, token: tokens.shardAdmin }));
    cleanups.unshift(() => shardClient?.close());
    // A non-root shard accepts root's tokens too, through a cached TokenReview.
    const authenticator = rootCredentials ? new DelegatedTokenAuthenticator(localAuthenticator, shardClientFor()) : localAuthenticator;
    const shardDirectory: ShardDirectory = isRootShard
      ? new LocalShardDirectory(store)
      : new RemoteShardDirectory(shardClientFor(), (m) => {
          if ((options.verbosity ?? 0) > 0) log(`shard ${shardName}: ${m}`);
        });
    // API sharing across shards: the other shards' exports, schemas and endpoint slices, and their authorization.
    const replica = new SharingReplica({
      self: shardName,
      directory: shardDirectory,
      credentials: () => shardClientFor().credentials,
      log: (line) => {
        if ((options.verbosity ?? 0) > 0) log(`shard ${shardName}: ${line}`);
      },
    });
    cleanups.unshift(() => replica.stop());
    apis.bound.useReplica(replica);
    tenancy.workspaceTypes.useRemote(replica);
    const remoteReviews = new RemoteAccessReviews(shardClientFor, (cluster, name) => {
      if (store.get(`${EXPORTS_PREFIX}${cluster}/${name}`)) return undefined;
      const shard = replica.get('apiexports', cluster, name)?.shard;
      return shard ? replica.baseURLOf(shard) : undefined;
    });
    const types: ResourceType[] = [
      ...authorization.guard(builtins),
      crdType,
      ...reviewResourceTypes({ reviewToken: (token, audiences) => authenticator.review(token, audiences), ...authorization.reviews() }),
      ...apis.types,
    ];
    const defaultAPIs = new DefaultAPIs({ store, paths: tenancy.paths, workspaceTypes: tenancy.workspaceTypes, types, bound: apis.bound, resolvePath: resolveAnyPath });
    const namespaceType = findType(types, '', 'namespaces');
    const logicalClusterType = findType(types, 'core.kcp.io', 'logicalclusters');
    const crdCatalogs = new CRDCatalogs(store, tenancy.apiSets(types), apis.bound);
    apis.startBoundAPIs();
    crdCatalogs.start();
    cleanups.unshift(() => crdCatalogs.stop());
    cleanups.unshift(() => apis.stop());
    const catalogFor = crdCatalogs.catalogFor;
    // The owner index is written with every object, so the garbage collector finds dependents without scanning.
    const owners = new OwnerResolver(store, catalogFor);
    const limit = options.logicalClusterTotalObjectLimit ?? 0;
    const admission = buildAdmission({ store, builtinTypes: types, catalogFor, logicalClusterTotalObjectLimit: limit });
    const generic = new GenericStore(store, namespaceType, {
      indexWriters: [ownerIndexWriter(store, owners), ...admission.indexWriters, ...tenancy.indexWriters, ...apis.indexWriters, ...defaultAPIs.indexWriters],
      garbageCollection: true,
      admission: admission.chain,
      authority: new WriteAuthority({ pathOf: (cluster) => tenancy.paths.pathOf(cluster) }),
    });

    let externalUrl = '';
    let baseUrl = '';
    let virtualWorkspaceUrl = '';
    let ready = false;
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
    const bindingIndex = new BindingIndex(store);
    cleanups.unshift(() => exportBindings.stop());
    const exportViews = new ExportViews({
      store,
      bindings: exportBindings,
      catalogFor,
      typesForSchema: resourceTypesForSchema,
      elsewhere: { exportOf: (cluster, name) => apis.bound.exportOf(cluster, name), schema: (cluster, name) => apis.bound.schema(cluster, name) },
    });
    const metrics = new RequestMetrics();
    const app = buildHttpApp({ key: certs.keyPem, cert: certs.certPem }, options.verbosity ?? 0, log, metrics, () => store.durable?.());
    installInflightLimit(app, {
      readOnly: options.maxRequestsInflight ?? DEFAULT_INFLIGHT_LIMITS.readOnly,
      mutating: options.maxMutatingRequestsInflight ?? DEFAULT_INFLIGHT_LIMITS.mutating,
    });
    const services = {
      store,
      generic,
      authenticator,
      authorizer,
      clusters,
      openapi: new OpenAPIService(),
      watches: new Set<() => void>(),
      watchRemoval: (cluster: string, rt: ResourceType, onGone: () => void) => crdCatalogs.watchRemoval(cluster, rt, onGone),
      minRequestTimeoutSeconds: options.minRequestTimeoutSeconds,
      // Home workspaces hang under root:users, which the root shard holds.
      homes: isRootShard ? { get: (user: UserInfo, mayCreate: () => void) => tenancy.homes!.getWaiting(user, mayCreate) } : undefined,
      virtualWorkspaces: virtualWorkspaceSet(
        new LifecycleVirtualWorkspaces({
          store,
          clusters,
          logicalClusters: logicalClusterType,
          mayOnWorkspaceType: (user, verb, cluster, name) => authorization.mayOnWorkspaceType(user, verb, cluster, name),
          workspaceType: (path, name) => {
            const cluster = path.includes(':') ? tenancy.resolvePath(path) : path;
            return cluster ? { cluster, type: tenancy.workspaceTypes.get(path, name) } : undefined;
          },
        }),
        workspaceIndex,
        new APIExportVirtualWorkspace({ store, views: exportViews, clusters, authorizer, resolvePath: resolveAnyPath, remote: remoteReviews, untilReplicaSynced: () => replica.untilSynced() }),
      ),
      workspaceChildren: (user: UserInfo) => workspaceIndex.childFilter(user),
      tokenRequests: (target: { cluster: string; namespace: string; name: string }, input: KubeObject) =>
        createTokenRequest({ store, tokens: saTokens, serviceAccounts: serviceAccountType, secrets: secretType, apiAudiences }, target, input),
      metrics,
      serverAddress: '',
      isReady: () => ready,
      prepareAuthorization: (cluster: string | undefined, authenticated: UserInfo, info: RequestInfo): Promise<void> | undefined => {
        // Just started, other shards' exports and schemas not copied yet: a request for a bound resource across
        // clusters (`<resource>:<identityHash>`, whose types come from every shard's exports) or any request in a
        // cluster binding one of them (discovery too) waits for the copy rather than get a 404. (Not other wildcard
        // requests: the replicas' own lists of each other's exports are some, and they must not wait on each other.)
        const boundAcross = info.cluster.wildcard && info.isResourceRequest && info.resource.includes(':');
        const readsCatalog = info.isResourceRequest || info.apiPrefix !== '' || info.path.startsWith('/openapi');
        const inCluster = cluster !== undefined && !info.cluster.wildcard && readsCatalog;
        const copying = boundAcross
          ? replica.untilSynced()
          : inCluster
            ? apis.bound.untilComplete(cluster, info.group, info.isResourceRequest ? info.resource : undefined)
            : undefined;
        if (copying) return copying.then(() => services.prepareAuthorization(cluster, authenticated, info));
        if (!info.isResourceRequest) return undefined;
        // Only while other shards' exports are known and the request is on a resource bound from one with a policy.
        if (cluster === undefined || replica.isEmpty()) return undefined;
        const attrs = requestAttributes(info);
        const cap = defaultAPIs.maximalPolicy(cluster, attrs);
        const subject = cap?.remote ? authorizer.subjectInside(cluster, identityInCluster(authenticated, cluster)) : undefined;
        return cap && subject ? remoteReviews.review(cap.cluster, cap.name, bindingSubject(subject), attrs, true).then(() => undefined) : undefined;
      },
    };
    registerSnapshotRoutes(app, { authenticator, store, generic, resolvePath: tenancy.resolvePath, externalUrl: () => externalUrl, rootDirectory: root });
    app.all('*', (request, reply) => routeRequest(services, request, reply));

    await app.listen({ port: options.securePort, host: options.bindAddress });
    let proxySocket: ProxySocket | undefined;
    cleanups.unshift(async () => {
      // Watches never finish by themselves: end them so app.close() only waits for real in-flight requests.
      for (const end of services.watches) end();
      await Promise.all([app.close(), proxySocket?.close()]);
    });
    if (socketPath) proxySocket = await listenProxySocket(socketPath, requestHandlerOf(app));
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : options.securePort;
    const host = options.bindAddress.includes(':') ? `[${options.bindAddress}]` : options.bindAddress;
    const listenUrl = `https://${host}:${port}`;
    baseUrl = trimSlash(options.shardBaseUrl) ?? listenUrl;
    externalUrl = trimSlash(options.shardExternalUrl) ?? baseUrl;
    virtualWorkspaceUrl = trimSlash(options.shardVirtualWorkspaceUrl) ?? baseUrl;
    services.serverAddress = `${host}:${port}`;

    // Bootstrap: the root logical cluster and its default namespace exist from the first start (on the root shard).
    if (isRootShard) {
      ensureRootLogicalCluster(generic, logicalClusterType);
      ensureNamespace(generic, { namespaceType, serviceAccountType }, 'root', 'default');
    }
    authorization.start({
      generic,
      clusterRoles: findType(types, 'rbac.authorization.k8s.io', 'clusterroles'),
      clusterRoleBindings: findType(types, 'rbac.authorization.k8s.io', 'clusterrolebindings'),
      homeCreatorGroups: options.homeWorkspacesHomeCreatorGroups ?? ['system:authenticated'],
      onError: (controller, key, err) => log(`controller ${controller}: ${key}: ${(err as Error).message}`),
    });
    cleanups.unshift(() => authorization.stop());
    const onError = (controller: string, key: string, err: unknown) => {
      if ((options.verbosity ?? 0) > 0) log(`controller ${controller}: ${key}: ${(err as Error).message}`);
    };
    const namespaces = new NamespaceController({ store, generic, namespaceType, catalogFor, onError });
    const logicalClusters = new LogicalClusterController({
      store,
      generic,
      logicalClusterType,
      namespaceType,
      serviceAccountType,
      externalUrl: () => externalUrl,
      onError,
    });
    const serviceAccounts = new ServiceAccountController({ store, generic, namespaceType, serviceAccountType, onError });
    const tokenSecrets = new TokenSecretController({
      store,
      generic,
      secretType,
      serviceAccountType,
      tokens: saTokens,
      caCertPem: certs.caCertPem,
      onError,
    });
    const crds = new CRDController({ store, generic, crdType, catalogs: crdCatalogs, boundNames: (c, g) => apis.bound.namesIn(c, g), onError });
    const garbageCollector = new GarbageCollector({ store, generic, owners, onError });
    const quotas = new ResourceQuotaController({ store, generic, usage: admission.quotaUsage, onError });
    // The apis.kcp.io types as stored (every workspace serves them; a non-root shard has no root cluster to ask).
    const apisType = (resource: string) => apis.types.find((t) => t.group === APIS_GROUP && t.resource === resource && t.version === t.storageVersion);
    const permissionClaims = new PermissionClaimsController({
      store,
      generic,
      bindingType: () => apisType('apibindings'),
      bindingsOf: (cluster, name) => bindingIndex.bindingsOf(cluster, name).map((b) => ({ cluster: b.cluster, name: b.binding })),
      resolvePath: resolveAnyPath,
      exportElsewhere: (cluster, name) => apis.bound.exportOf(cluster, name)?.object,
      onExportElsewhereChange: (listener) =>
        apis.bound.onReplicaChange((kind, cluster, name) => {
          if (kind === 'apiexports') listener(cluster, name);
        }),
      onError,
    });
    const endpointSlices = new EndpointSliceController({
      store,
      generic,
      bindings: exportBindings,
      apisType,
      resolvePath: resolveAnyPath,
      exportExists: (cluster, name) => apis.bound.exportOf(cluster, name) !== undefined,
      externalUrl: () => virtualWorkspaceUrl,
      shardUrls: () => {
        const shards = shardDirectory.shards();
        // Not listed from root yet (a non-root shard just started): nothing is known to be gone.
        if (!shards.some((s) => s.metadata?.name === shardName)) return undefined;
        return shards.flatMap((s) => {
          const spec = s.spec as ShardSpec | undefined;
          const url = trimSlash(spec?.virtualWorkspaceURL || spec?.baseURL);
          return url ? [url] : [];
        });
      },
      onShardsChange: (listener) => shardDirectory.onChange(listener),
      onError,
    });
    const remoteSlices = new RemoteSliceEndpoints({
      replica,
      bindings: exportBindings,
      resolvePath: resolveAnyPath,
      virtualWorkspaceUrl: () => virtualWorkspaceUrl,
      client: shardClientFor,
      onError,
    });
    replica.onChange((kind, cluster, name) => {
      if (kind === 'apiexports') endpointSlices.exportChanged(cluster, name);
    });
    namespaces.start();
    logicalClusters.start();
    crds.start();
    garbageCollector.start();
    quotas.start();
    endpointSlices.start();
    remoteSlices.start();
    replica.start();
    permissionClaims.start();
    serviceAccounts.start();
    tokenSecrets.start();
    if (isRootShard) await logicalClusters.reconcile('root');
    tenancy.start({
      generic,
      catalogFor,
      namespaces: namespaceType,
      logicalClusters: logicalClusterType,
      clusterRoleBindings: findType(types, 'rbac.authorization.k8s.io', 'clusterrolebindings'),
      serviceAccounts: serviceAccountType,
      externalUrl: () => externalUrl,
      shard: {
        name: shardName,
        isRoot: isRootShard,
        baseUrl: () => baseUrl,
        virtualWorkspaceUrl: () => virtualWorkspaceUrl,
        directory: shardDirectory,
        client: shardClientFor,
      },
      onError,
    });
    if (!isRootShard) {
      // Registered in root in the background: the shard serves meanwhile, and root may be down for a while.
      const spec = { baseURL: baseUrl, externalURL: externalUrl, virtualWorkspaceURL: virtualWorkspaceUrl };
      const registration = keepRegistering(shardClientFor(), shardObject(shardName, spec), log);
      void registration.done.then(() => (shardDirectory instanceof RemoteShardDirectory ? shardDirectory.refresh() : undefined));
      cleanups.unshift(() => registration.stop());
    }
    apis.start({
      generic,
      namespaceType,
      serviceAccountType,
      secretType,
      resolvePath: resolveAnyPath,
      pathOf: (cluster) => tenancy.paths.pathOf(cluster),
      crdsOf: (cluster) => crdCatalogs.crdsOf(cluster),
      onCRDChange: (listener) => crdCatalogs.onChange((cluster) => listener(cluster)),
      recheckCRDs: (cluster, group) => crds.recheckGroup(cluster, group),
      onError,
    });
    defaultAPIs.start({ generic, logicalClusters: logicalClusterType, onError });
    cleanups.unshift(() => {
      defaultAPIs.stop();
      namespaces.stop();
      logicalClusters.stop();
      crds.stop();
      garbageCollector.stop();
      quotas.stop();
      endpointSlices.stop();
      remoteSlices.stop();
      permissionClaims.stop();
      serviceAccounts.stop();
      tokenSecrets.stop();
      tenancy.stop();
    });
    if (batteries.has('metrics-viewer')) {
      bootstrapMetricsViewer(generic, {
        serviceAccounts: serviceAccountType,
        secrets: secretType,
        clusterRoles: findType(types, 'rbac.authorization.k8s.io', 'clusterroles'),
        clusterRoleBindings: findType(types, 'rbac.authorization.k8s.io', 'clusterrolebindings'),
      });
    }

    const kubeconfigPath = path.join(root, ADMIN_KUBECONFIG_FILE);
    const adminKubeconfig = await writeAdminKubeconfig({ path: kubeconfigPath, baseUrl: listenUrl, caCertPem: certs.caCertPem, tokens, batteries });
    ready = true;

    let closing: Promise<void> | undefined;
    return {
      url: listenUrl,
      port,
      rootDirectory: root,
      kubeconfigPath,
      adminKubeconfig,
      close() {
        closing ??= runCleanups(cleanups);
        return closing;
      },
    };
  } catch (err) {
    await runCleanups(cleanups);
    throw err;
  }
}

async function runCleanups(cleanups: Array<() => void | Promise<void>>): Promise<void> {
  for (const cleanup of cleanups) {
    try {
      await cleanup();
    } catch {
      // Shutdown goes on: one failing step must not leave the database open or the lock held.
    }
  }
}

function buildHttpApp(
  tls: { key: string; cert: string },
  verbosity: number,
  log: (line: string) => void,
  metrics: RequestMetrics,
  durable: () => Promise<void> | undefined,
): FastifyInstance {
  // Typed as fastify's HTTP/1 instance: the handlers use only what Node's HTTP/1 and HTTP/2 compatibility
  // request/response objects share (headers, rawHeaders, writeHead/write/end, 'close').
  const app = Fastify({
    // HTTP/2 where the client offers it (kubectl and client-go do, over ALPN): one connection carries every request
    // and watch of a client, as with kube-apiserver; HTTP/1.1 clients (client-node, curl --http1.1) are served too.
    http2: true,
    https: { ...tls, allowHTTP1: true },
    bodyLimit: maxRequestBodyBytes,
    logger: false,
    // Watches are long-lived; only idle keep-alive sockets are timed out.
    requestTimeout: 0,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    // Errors fastify meets before routing (a path that is not valid percent-encoding) get a Status like the rest.
    frameworkErrors: (err, _request, h2reply) => {
      const reply = h2reply as unknown as FastifyReply;
      const code = (err as { code?: string }).code;
      if (code === 'FST_ERR_BAD_URL') return sendStatusError(reply, badRequest(`invalid path: ${err.message}`));
      return sendStatusError(reply, toStatusError(err as Error));
    },
  }) as unknown as FastifyInstance;
  // Every body arrives as bytes; the handlers decode JSON, YAML, protobuf and patches themselves.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: maxRequestBodyBytes }, (_req, body, done) => done(null, body));
  // kube-apiserver's WithCacheControl: answers that set no caching policy of their own are never cached.
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-cache, private');
    done(null, payload);
  });
  // Group commit: a response leaves only once the writes it may report are in the file (a failed commit answers 500).
  app.addHook('onSend', (_request, _reply, payload, done) => {
    const pending = durable();
    if (!pending) return done(null, payload);
    pending.then(
      () => done(null, payload),
      (error: Error) => done(error),
    );
  });
  app.addHook('onResponse', (request, reply, done) => {
    metrics.observe(request, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
  if (verbosity > 0) {
    app.addHook('onResponse', (request, reply, done) => {
      log(`${request.method} ${request.url} ${reply.statusCode} ${reply.elapsedTime.toFixed(1)}ms`);
      done();
    });
  }
  app.setErrorHandler((err, _request, reply) => {
    try {
      const code = (err as { code?: string }).code;
      if (code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
        return sendStatusError(reply, requestEntityTooLarge(`Request entity too large: limit is ${maxRequestBodyBytes}`));
      }
      if (code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return sendStatusError(reply, unsupportedMediaType('', ['application/json']));
      if (code === 'FST_ERR_CTP_EMPTY_JSON_BODY' || code === 'FST_ERR_CTP_INVALID_CONTENT_LENGTH') {
        return sendStatusError(reply, badRequest((err as Error).message));
      }
      const status = toStatusError(err);
      if (status.code >= 500) log(`error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      return sendStatusError(reply, status);
    } catch (failure) {
      // Reporting the error failed too (a Status too large to serialize): a short 500 Status, never fastify's own body.
      log(`error: reporting ${String((err as Error)?.message).slice(0, 200)} failed: ${(failure as Error)?.message}`);
      return sendStatusError(reply, internalError('the error could not be reported; see the server log'));
    }
  });
  return app;
}

/** The handler fastify serves its HTTPS listener with, to serve the proxy socket with the very same one. */
function requestHandlerOf(app: FastifyInstance): http.RequestListener {
  const listeners = app.server.listeners('request');
  if (listeners.length !== 1) throw new Error(`expected fastify's one request handler on its server, found ${listeners.length}`);
  return listeners[0] as http.RequestListener;
}

function trimSlash(url: string | undefined): string | undefined {
  return url ? url.replace(/\/+$/, '') : undefined;
}

/** Host names of the URLs a shard is reached at: its serving certificate must name them. */
function urlHosts(...urls: Array<string | undefined>): string[] {
  return urls.flatMap((u) => (u ? [new URL(u).hostname.replace(/^\[|\]$/g, '')] : []));
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
