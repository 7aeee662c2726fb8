/**
 * Brings a new LogicalCluster to life: fills its status (URL, phase) and creates the `default` namespace (with its
 * `default` ServiceAccount), so a
 * cluster created by a privileged user is usable at once. The tenancy layer's initializers build on this.
 */
import { StatusError } from '../machinery/status.js';
import { nowTimestamp, WriteBatch, type GenericStore } from '../registry/generic-store.js';
import { KeyExistsError } from '../storage/store.js';
import { defaultServiceAccount } from './service-account-controller.js';
import { decodeStored, objectKey } from '../registry/stored-object.js';
import type { KubeObject, ResourceType } from '../registry/types.js';
import type { Store } from '../storage/store.js';
import { defineController, type Controller } from './controller.js';

const WORKSPACE_OWNER = '"owner":{"apiVersion":"tenancy.kcp.io/v1alpha1"';

export interface LogicalClusterControllerDeps {
  store: Store;
  generic: GenericStore;
  logicalClusterType: ResourceType;
  namespaceType: ResourceType;
  serviceAccountType: ResourceType;
  /** `https://host:port`, for status.URL. */
  externalUrl(): string;
  onError?(controller: string, key: string, err: unknown): void;
}

export interface LogicalClusterController extends Controller {
  /** Brings one cluster up now, outside the queue (root's, before the tenancy layer starts). */
  reconcile(cluster: string): Promise<void>;
}

export function logicalClusterController(deps: LogicalClusterControllerDeps): LogicalClusterController {
  const prefix = `/registry/${deps.logicalClusterType.storagePrefix}/`;
  const controller = defineController({
    name: 'logicalcluster',
    store: deps.store,
    onError: deps.onError,
    watches(feed) {
      feed.watch(prefix, (e) => {
        // Workspaces' logical clusters (they have an owner) are brought up by the workspace controller. The
        // scheduler's owner reference is recognised without parsing (quotes inside JSON strings are escaped, so
        // this text is structure, and only spec.owner has that shape); anything else is parsed to be sure.
        if (e.type !== 'ADDED' || e.value.includes(WORKSPACE_OWNER)) return;
        if (!(JSON.parse(e.value) as { spec?: { owner?: unknown } }).spec?.owner) feed.add(e.key.slice(prefix.length).split('/')[0]!);
      });
    },
    reconcile: (cluster) => reconcileLogicalCluster(deps, cluster),
  });
  return { ...controller, reconcile: async (cluster) => reconcileLogicalCluster(deps, cluster) };
}

function reconcileLogicalCluster(deps: LogicalClusterControllerDeps, cluster: string): void {
  const { store, generic, logicalClusterType } = deps;
  const kv = store.get(`/registry/${logicalClusterType.storagePrefix}/${cluster}/cluster`);
  if (!kv) return;
  const lc = decodeStored(kv);
  // Workspaces' logical clusters are brought up by the workspace controller, with their type's initializers.
  if ((lc.spec as { owner?: unknown } | undefined)?.owner) return;
  if (lc.metadata?.deletionTimestamp) return;
  ensureNamespace(generic, deps, cluster, 'default');
  const status = (lc.status ?? {}) as { phase?: string; URL?: string; initializers?: string[]; conditions?: unknown[] };
  const initializers = (lc.spec as { initializers?: string[] } | undefined)?.initializers ?? [];
  const wanted = {
    ...status,
    URL: `${deps.externalUrl()}/clusters/${cluster}`,
    phase: status.phase && status.phase !== 'Scheduling' ? status.phase : initializers.length > 0 ? 'Initializing' : 'Ready',
  };
  if (JSON.stringify(wanted) === JSON.stringify(status)) return;
  generic.update({ rt: logicalClusterType, cluster, namespace: '' }, 'cluster', { ...lc, status: wanted }, { subresource: 'status' });
}

/** Creates namespace `name` with its `default` ServiceAccount, in one commit, unless the namespace exists. */
export function ensureNamespace(
  generic: GenericStore,
  types: { namespaceType: ResourceType; serviceAccountType: ResourceType },
  cluster: string,
  name: string,
): void {
  // Look first: a create of what exists meets admission before storage, and a full object cap would refuse it.
  if (generic.store.get(objectKey(types.namespaceType, cluster, '', name))) return;
  const batch = new WriteBatch();
  try {
    generic.create({ rt: types.namespaceType, cluster, namespace: '' }, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, { batch });
    defaultServiceAccount(generic, types.serviceAccountType, cluster, name, batch);
    generic.commitBatch(batch);
  } catch (err) {
    if ((err instanceof StatusError && err.code === 409) || err instanceof KeyExistsError) return;
    throw err;
  }
}

/** The root logical cluster exists from the first start (kcp bootstraps it the same way). */
export function ensureRootLogicalCluster(generic: GenericStore, logicalClusterType: ResourceType): KubeObject | undefined {
  // Look first: every restart finds it, and a create that ends in 409 runs admission and the schema on the way.
  if (generic.store.get(objectKey(logicalClusterType, 'root', '', 'cluster'))) return undefined;
  try {
    return generic.create(
      { rt: logicalClusterType, cluster: 'root', namespace: '' },
      {
        apiVersion: 'core.kcp.io/v1alpha1',
        kind: 'LogicalCluster',
        metadata: {
          name: 'cluster',
          annotations: { 'internal.tenancy.kcp.io/type': 'root:root' },
        },
        spec: { createdBy: { username: 'system:kcp-bootstrapper' } },
      },
    );
  } catch (err) {
    if (err instanceof StatusError && err.code === 409) return undefined;
    throw err;
  }
  void nowTimestamp;
}
