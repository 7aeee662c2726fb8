/**
 * APIExportEndpointSlices: where a provider's controller finds the APIExport virtual workspace.
 *
 * - Every APIExport gets a slice named like it, in its workspace, owned by it (so it goes with the export), unless
 *   the export carries `apiexports.apis.kcp.io/skip-endpointslice`.
 * - A slice's status: condition APIExportValid (False, APIExportNotFound, while the export it names is missing;
 *   the endpoints are dropped then), PartitionValid, and `endpoints[].url` = `<server>/services/apiexport/<export
 *   cluster>/<export>` only while at least one APIBinding to the export exists (kcp's shard publishes its URL when it
 *   hosts a binding), so a fresh export has no endpoint.
 *
 * Slices created by users that point at any export are kept the same way. Which slices point at an export is read
 * once, the first time a binding or export change needs it, and followed by the slice watch afterwards.
 */
import { defineController, type Controller, type ControllerQueue } from '../../controllers/controller.js';
import type { GenericStore } from '../../registry/generic-store.js';
import { jsonEqual } from '../../registry/stored-object.js';
import type { KubeObject, ResourceType } from '../../registry/types.js';
import type { Store, StoreEvent } from '../../storage/store.js';
import { exportClusterOf } from '../../apis/export-reference.js';
import { APIS_GROUP, EXPORTS_PREFIX, type KcpCondition } from '../../apis/names.js';
import { APIEXPORT_VIRTUAL_WORKSPACE } from './apiexport-workspace.js';
import { exportKey, type ExportBindingsReader, type ExportKey } from './export-bindings.js';

export const SKIP_ENDPOINT_SLICE_ANNOTATION = 'apiexports.apis.kcp.io/skip-endpointslice';
const PATH_ANNOTATION = 'kcp.io/path';
const EXPORTS = EXPORTS_PREFIX;
const SLICES = `/registry/${APIS_GROUP}/apiexportendpointslices/`;

export interface EndpointSliceControllerDeps {
  store: Store;
  generic: GenericStore;
  bindings: ExportBindingsReader;
  /** The served types of `apis.kcp.io` (`apiexports`, `apiexportendpointslices`). */
  apisType(resource: string): ResourceType | undefined;
  resolvePath(path: string): string | undefined;
  /** Whether the export exists, here or (replicated) on another shard. */
  exportExists(cluster: string, name: string): boolean;
  externalUrl(): string;
  /**
   * The virtual workspace URLs of the Shards that exist now (undefined while not known yet): URLs of shards gone
   * for good are dropped from the slices here, as no shard is left to remove them.
   */
  shardUrls?(): readonly string[] | undefined;
  /** Called when the set of Shards changed. */
  onShardsChange?(listener: () => void): void;
  /** Called when another shard's export changed (its replicated copy). */
  onRemoteExportChange?(listener: (cluster: string, name: string) => void): void;
  onError?(controller: string, key: string, err: unknown): void;
}

interface SliceSpec {
  export?: { path?: string; name?: string };
  partition?: string;
}

export function endpointSliceController(deps: EndpointSliceControllerDeps): Controller {
  const slices = new SliceTargets(deps);
  /** Queues every slice naming the export (the default one first; it needs no index). */
  const exportChanged = (queue: ControllerQueue, cluster: string, name: string) => {
    queue.add(`slice:${cluster}/${name}`);
    const wanted = exportKey(cluster, name);
    for (const [slice, target] of slices.all()) if (target === wanted) queue.add(`slice:${slice}`);
  };
  return defineController({
    name: 'apiexportendpointslice',
    store: deps.store,
    onError: deps.onError,
    watches(feed) {
      feed.watch(EXPORTS, (e) => {
        const key = e.key.slice(EXPORTS.length);
        if (e.type !== 'DELETED') feed.add(`export:${key}`);
        const [cluster, name] = key.split('/') as [string, string];
        exportChanged(feed, cluster, name);
      });
      feed.watch(SLICES, (e) => {
        const key = e.key.slice(SLICES.length);
        slices.observe(key, e);
        if (e.type !== 'DELETED') feed.add(`slice:${key}`);
      });
      feed.listen(deps.bindings.onChange.bind(deps.bindings), (cluster, name) => exportChanged(feed, cluster, name));
      if (deps.onShardsChange) {
        feed.listen(deps.onShardsChange, () => {
          for (const slice of slices.all().keys()) feed.add(`slice:${slice}`);
        });
      }
      if (deps.onRemoteExportChange) feed.listen(deps.onRemoteExportChange, (cluster, name) => exportChanged(feed, cluster, name));
    },
    reconcile: (key) => (key.startsWith('export:') ? ensureDefaultSlice(deps, key.slice('export:'.length)) : updateSliceStatus(deps, key.slice('slice:'.length))),
  });
}

/** Which export each slice names: read once, the first time it is needed, then followed by the slice watch. */
class SliceTargets {
  /** slice key (`<cluster>/<name>`) → export it names; undefined until first needed. */
  private sliceExports?: Map<string, ExportKey>;

  constructor(private readonly deps: EndpointSliceControllerDeps) {}

  all(): Map<string, ExportKey> {
    if (!this.sliceExports) {
      this.sliceExports = new Map();
      for (const kv of this.deps.store.list(SLICES).items) this.file(kv.key.slice(SLICES.length), JSON.parse(kv.value) as KubeObject);
    }
    return this.sliceExports;
  }

  /** A slice written or deleted: followed once the map is read. */
  observe(key: string, e: StoreEvent): void {
    if (!this.sliceExports) return;
    if (e.type === 'DELETED') this.sliceExports.delete(key);
    else this.file(key, JSON.parse(e.value) as KubeObject);
  }

  private file(key: string, slice: KubeObject): void {
    const target = exportOfSlice(this.deps, key.split('/')[0]!, slice);
    if (target) this.sliceExports!.set(key, exportKey(target.cluster, target.name));
    else this.sliceExports!.delete(key);
  }
}

function exportOfSlice(deps: EndpointSliceControllerDeps, sliceCluster: string, slice: KubeObject): { cluster: string; name: string; path: string } | undefined {
  const ref = (slice.spec as SliceSpec | undefined)?.export;
  if (!ref?.name) return undefined;
  const cluster = exportClusterOf(ref.path, sliceCluster, deps.resolvePath);
  return { cluster: cluster ?? '', name: ref.name, path: ref.path || sliceCluster };
}

function updateSliceStatus(deps: EndpointSliceControllerDeps, sliceKey: string): void {
  const kv = deps.store.get(`${SLICES}${sliceKey}`);
  const sliceType = deps.apisType('apiexportendpointslices');
  if (!kv || !sliceType) return;
  const slice = JSON.parse(kv.value) as KubeObject;
  const [cluster, name] = sliceKey.split('/') as [string, string];
  const target = exportOfSlice(deps, cluster, slice);
  if (!target) return;
  const exists = target.cluster !== '' && deps.exportExists(target.cluster, target.name);
  const bound = exists && deps.bindings.hasBindings(target.cluster, target.name);
  const status = sliceStatus(slice, target, exists, bound, deps.externalUrl(), deps.shardUrls?.());
  if (jsonEqual(status, slice.status ?? {})) return;
  deps.generic.update(
    { rt: sliceType, cluster, namespace: '' },
    name,
    { ...slice, status, metadata: { ...slice.metadata, resourceVersion: String(kv.revision) } },
    { subresource: 'status' },
  );
}

/** The slice kcp's APIExport controller creates beside each export. */
function ensureDefaultSlice(deps: EndpointSliceControllerDeps, exportKeyPath: string): void {
  const kv = deps.store.get(`${EXPORTS}${exportKeyPath}`);
  const sliceType = deps.apisType('apiexportendpointslices');
  const exportType = deps.apisType('apiexports');
  if (!kv || !sliceType || deps.store.get(`${SLICES}${exportKeyPath}`)) return;
  const exp = JSON.parse(kv.value) as KubeObject;
  const meta = exp.metadata ?? {};
  if (meta.deletionTimestamp || meta.annotations?.[SKIP_ENDPOINT_SLICE_ANNOTATION] !== undefined) return;
  const [cluster, name] = exportKeyPath.split('/') as [string, string];
  const slice: KubeObject = {
    apiVersion: `${APIS_GROUP}/v1alpha1`,
    kind: 'APIExportEndpointSlice',
    metadata: {
      name,
      ownerReferences: [{ apiVersion: `${APIS_GROUP}/${exportType?.storageVersion ?? 'v1alpha2'}`, kind: 'APIExport', name, uid: meta.uid! }],
    },
    spec: { export: { path: meta.annotations?.[PATH_ANNOTATION] ?? cluster, name } },
  };
  try {
    deps.generic.create({ rt: sliceType, cluster, namespace: '' }, slice);
  } catch (err) {
    if ((err as { code?: number }).code === 409) return;
    throw err;
  }
}

/** A slice's status for the export it names: whether that export exists and whether anything binds it. */
export function sliceStatus(
  slice: KubeObject,
  target: { cluster: string; name: string; path: string },
  exportExists: boolean,
  bound: boolean,
  baseUrl: string,
  /** Virtual workspace URLs of the existing Shards: other URLs are dropped (undefined: keep every URL). */
  shardUrls?: readonly string[],
): Record<string, unknown> {
  const previous = ((slice.status as { conditions?: KcpCondition[] } | undefined)?.conditions ?? []) as KcpCondition[];
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  const at = (c: Omit<KcpCondition, 'lastTransitionTime'>): KcpCondition => {
    const before = previous.find((p) => p.type === c.type);
    return { ...c, lastTransitionTime: before && before.status === c.status ? before.lastTransitionTime : now };
  };
  const conditions: KcpCondition[] = [
    exportExists
      ? at({ type: 'APIExportValid', status: 'True' })
      : at({
          type: 'APIExportValid',
          status: 'False',
          severity: 'Error',
          reason: 'APIExportNotFound',
          message: `Error getting APIExport ${target.path}|${target.name}`,
        }),
    at({ type: 'PartitionValid', status: 'True' }),
  ];
  const status: Record<string, unknown> = { conditions };
  const published = (slice.status as { endpoints?: SliceEndpoint[] } | undefined)?.endpoints ?? [];
  const before = shardUrls ? published.filter((e) => shardUrls.some((u) => e?.url?.startsWith(`${u}/services/`))) : published;
  const endpoints = exportExists ? withShardEndpoint(before, shardEndpointUrl(baseUrl, target), bound) : [];
  if (endpoints.length > 0) status.endpoints = endpoints;
  return status;
}

export interface SliceEndpoint {
  url: string;
}

/** A shard's URL of an export's virtual workspace: `<virtualWorkspaceURL>/services/apiexport/<cluster>/<export>`. */
export function shardEndpointUrl(virtualWorkspaceUrl: string, target: { cluster: string; name: string }): string {
  return `${virtualWorkspaceUrl}/services/${APIEXPORT_VIRTUAL_WORKSPACE}/${target.cluster}/${target.name}`;
}

/**
 * A slice's endpoints with one shard's URL present or not: each shard adds its own URL while it hosts a binding to
 * the export and removes it with the last one, leaving the other shards' URLs as they are.
 */
export function withShardEndpoint(endpoints: readonly SliceEndpoint[], url: string, present: boolean): SliceEndpoint[] {
  const others = endpoints.filter((e) => e?.url !== url);
  return present ? [...others, { url }] : others;
}
