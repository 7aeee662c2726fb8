/**
 * Everything the server runs, as one list in start order: the caches requests read, the listener, the objects
 * written at start (kube's post-start hooks), and every controller. The lifecycle starts them in this order and
 * stops them in reverse. Adding a controller: write it with defineController (controllers/controller.ts), build it
 * here from the server's parts, and put it in the list after what it needs running.
 */
import type { FastifyInstance } from 'fastify';
import { permissionClaimsController } from '../apis/permission-claims-controller.js';
import { APIS_GROUP } from '../apis/names.js';
import { bootstrapMetricsViewer } from '../auth/metrics-viewer.js';
import { clusterRoleAggregationController } from '../controllers/clusterrole-aggregation-controller.js';
import { writeBootstrapPolicy } from '../authorization/index.js';
import type { Controller } from '../controllers/controller.js';
import { crdController } from '../controllers/crd-controller.js';
import { garbageCollector } from '../controllers/garbage-collector.js';
import { ensureNamespace, ensureRootLogicalCluster, logicalClusterController } from '../controllers/logical-cluster-controller.js';
import { namespaceController } from '../controllers/namespace-controller.js';
import { resourceQuotaController } from '../controllers/resource-quota-controller.js';
import { serviceAccountController } from '../controllers/service-account-controller.js';
import { tokenSecretController } from '../controllers/token-secret-controller.js';
import { BindingIndex } from '../apis/binding-index.js';
import { keepRegistering, shardObject } from '../shards/shard-registration.js';
import { RemoteShardDirectory } from '../shards/shard-directory.js';
import { backfillAccessSubjects } from '../tenancy/access-subjects.js';
import { bootstrapWorkspaceTypes, registerShard } from '../tenancy/bootstrap.js';
import type { ShardSpec } from '../tenancy/shard-placement.js';
import { endpointSliceController } from '../virtual/apiexport/endpoint-slice-controller.js';
import { remoteSliceEndpointsController } from '../virtual/apiexport/remote-slice-endpoints.js';
import type { ServerParts } from './assembly.js';
import { listener } from './http-app.js';
import type { Component } from './lifecycle.js';
import { trimSlash } from './options.js';

export function serverComponents(server: ServerParts, app: FastifyInstance): Component[] {
  const { config, store, generic, types, address, apis, tenancy, tenancyParts, replica, shardDirectory, onControllerError: onError } = server;
  const { isRoot } = config.shard;
  const catalogFor = server.crdCatalogs.catalogFor;

  // Controllers of the engine's own objects.
  const aggregation = clusterRoleAggregationController({
    store,
    generic,
    clusterRoles: types.clusterRoles,
    onError: (controller, key, err) => config.log(`controller ${controller}: ${key}: ${(err as Error).message}`),
  });
  const namespaces = namespaceController({ store, generic, namespaceType: types.namespaces, catalogFor, onError });
  const logicalClusters = logicalClusterController({
    store,
    generic,
    logicalClusterType: types.logicalClusters,
    namespaceType: types.namespaces,
    serviceAccountType: types.serviceAccounts,
    externalUrl: () => address.externalUrl,
    onError,
  });
  const serviceAccounts = serviceAccountController({ store, generic, namespaceType: types.namespaces, serviceAccountType: types.serviceAccounts, onError });
  const tokenSecrets = tokenSecretController({
    store,
    generic,
    secretType: types.secrets,
    serviceAccountType: types.serviceAccounts,
    tokens: server.serviceAccountTokens,
    caCertPem: server.foundation.certs.caCertPem,
    onError,
  });
  const crds = crdController({ store, generic, crdType: types.customResourceDefinitions, catalogs: server.crdCatalogs, boundNames: (c, g) => apis.bound.namesIn(c, g), onError });
  const collector = garbageCollector({ store, generic, owners: server.owners, onError });
  const quotas = resourceQuotaController({ store, generic, usage: server.admission.quotaUsage, onError });

  // API sharing. The apis.kcp.io types as stored (every workspace serves them; a non-root shard has no root cluster to ask).
  const apisType = (resource: string) => apis.types.find((t) => t.group === APIS_GROUP && t.resource === resource && t.version === t.storageVersion);
  const onRemoteExportChange = (listener: (cluster: string, name: string) => void) =>
    apis.bound.onReplicaChange((kind, cluster, name) => {
      if (kind === 'apiexports') listener(cluster, name);
    });
  const bindingIndex = new BindingIndex(store);
  const permissionClaims = permissionClaimsController({
    store,
    generic,
    bindingType: () => apisType('apibindings'),
    bindingsOf: (cluster, name) => bindingIndex.bindingsOf(cluster, name).map((b) => ({ cluster: b.cluster, name: b.binding })),
    resolvePath: server.resolvePath,
    exportElsewhere: (cluster, name) => apis.bound.exportOf(cluster, name)?.object,
    onExportElsewhereChange: onRemoteExportChange,
    onError,
  });
  const endpointSlices = endpointSliceController({
    store,
    generic,
    bindings: server.exportBindings,
    apisType,
    resolvePath: server.resolvePath,
    exportExists: (cluster, name) => apis.bound.exportOf(cluster, name) !== undefined,
    externalUrl: () => address.virtualWorkspaceUrl,
    shardUrls: () => {
      const shards = shardDirectory.shards();
      // Not listed from root yet (a non-root shard just started): nothing is known to be gone.
      if (!shards.some((s) => s.metadata?.name === config.shard.name)) return undefined;
      return shards.flatMap((s) => {
        const spec = s.spec as ShardSpec | undefined;
        const url = trimSlash(spec?.virtualWorkspaceURL || spec?.baseURL);
        return url ? [url] : [];
      });
    },
    onShardsChange: (listener) => shardDirectory.onChange(listener),
    onRemoteExportChange: (listener) =>
      replica.onChange((kind, cluster, name) => {
        if (kind === 'apiexports') listener(cluster, name);
      }),
    onError,
  });
  const remoteSlices = remoteSliceEndpointsController({
    replica,
    bindings: server.exportBindings,
    resolvePath: server.resolvePath,
    virtualWorkspaceUrl: () => address.virtualWorkspaceUrl,
    client: server.shardClient,
    onError,
  });
  const apiControllers = apis.controllers({
    generic,
    namespaceType: types.namespaces,
    serviceAccountType: types.serviceAccounts,
    secretType: types.secrets,
    resolvePath: server.resolvePath,
    pathOf: (cluster) => tenancy.paths.pathOf(cluster),
    crdsOf: (cluster) => server.crdCatalogs.crdsOf(cluster),
    onCRDChange: (listener) => server.crdCatalogs.onChange((cluster) => listener(cluster)),
    recheckCRDs: (cluster, group) => crds.recheckGroup(cluster, group),
    onError,
  });
  const defaultBindings = server.defaultAPIs.controller({ generic, logicalClusters: types.logicalClusters, onError });

  return [
    // Closed at shutdown, opened on first use.
    { name: 'shard-client', stop: () => server.closeShardClient() },
    { name: 'export-paths', stop: () => server.localExportPaths.stop() },
    // What requests read from the first one on.
    running('bound-apis', apis.bound),
    running('crd-catalogs', server.crdCatalogs),
    listener(app, server),
    // The root logical cluster and its default namespace exist from the first start (on the root shard).
    ...onlyIf(isRoot, {
      name: 'root-logical-cluster',
      start: () => {
        ensureRootLogicalCluster(generic, types.logicalClusters);
        ensureNamespace(generic, { namespaceType: types.namespaces, serviceAccountType: types.serviceAccounts }, 'root', 'default');
      },
    }),
    running('rbac', server.rbac.indexes),
    { name: 'bootstrap-policy', start: () => writeBootstrapPolicy(generic, types, config.homeCreatorGroups, aggregation) },
    controller(aggregation),
    controller(namespaces),
    controller(logicalClusters),
    controller(crds),
    controller(collector),
    controller(quotas),
    running('export-bindings', server.exportBindings),
    controller(endpointSlices),
    controller(remoteSlices),
    running('sharing-replica', replica),
    controller(permissionClaims),
    controller(serviceAccounts),
    controller(tokenSecrets),
    ...onlyIf(isRoot, { name: 'root-logical-cluster-status', start: () => logicalClusters.reconcile('root') }),
    // Tenancy: paths and types, root's workspace types and Shard, then the workspace lifecycle.
    running('cluster-paths', tenancy.paths),
    { name: 'access-subjects', start: () => backfillAccessSubjects(store) },
    running('workspace-types', tenancy.workspaceTypes),
    // A non-root shard keeps root's built-in types too (kcp replicates them to every shard through its cache
    // server): workspaces of those types can be created in workspaces it hosts.
    {
      name: 'bootstrap-workspace-types',
      start: () => bootstrapWorkspaceTypes(generic, tenancy.workspaceTypeType, config.batteries, address.virtualWorkspaceUrl),
    },
    ...onlyIf(isRoot, {
      name: 'register-root-shard',
      start: () => registerShard(generic, tenancy.shards, { baseURL: address.baseUrl, externalURL: address.externalUrl, virtualWorkspaceURL: address.virtualWorkspaceUrl }),
    }),
    running('shard-directory', shardDirectory),
    { name: 'schedule-on-create', start: () => tenancyParts.scheduleOnCreate() },
    running('occupied-resources', tenancyParts.occupied),
    controller(tenancyParts.workspaceController),
    controller(tenancyParts.workspaceTypeStatusController),
    ...onlyIf(!isRoot, shardRegistration(server)),
    controller(apiControllers.identities),
    controller(apiControllers.bindings),
    running('maximal-permission-policies', server.defaultAPIs.policies),
    controller(defaultBindings),
    ...onlyIf(config.batteries.has('metrics-viewer'), {
      name: 'metrics-viewer',
      start: () =>
        bootstrapMetricsViewer(generic, {
          serviceAccounts: types.serviceAccounts,
          secrets: types.secrets,
          clusterRoles: types.clusterRoles,
          clusterRoleBindings: types.clusterRoleBindings,
        }),
    }),
  ];
}

/** A non-root shard registers its Shard in root in the background: it serves meanwhile, and root may be down a while. */
function shardRegistration({ config, address, shardClient, shardDirectory }: ServerParts): Component {
  let registration: ReturnType<typeof keepRegistering> | undefined;
  return {
    name: 'shard-registration',
    start() {
      const spec = { baseURL: address.baseUrl, externalURL: address.externalUrl, virtualWorkspaceURL: address.virtualWorkspaceUrl };
      registration = keepRegistering(shardClient(), shardObject(config.shard.name, spec), config.log);
      void registration.done.then(() => (shardDirectory instanceof RemoteShardDirectory ? shardDirectory.refresh() : undefined));
    },
    stop: () => registration?.stop(),
  };
}

function controller(c: Controller): Component {
  return { name: c.name, start: () => c.start(), stop: () => c.stop() };
}

/** Something with its own start and stop (a cache following the store, the replica of other shards' objects). */
function running(name: string, part: { start(): void; stop(): void | Promise<void> }): Component {
  return { name, start: () => part.start(), stop: () => part.stop() };
}

function onlyIf(condition: boolean, ...components: Component[]): Component[] {
  return condition ? components : [];
}
