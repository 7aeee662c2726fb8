/**
 * Moving a workspace subtree snapshot to a new place: new logical cluster names, a new path, new UIDs. Cluster names
 * (16 random base-36 characters) and UIDs (random UUIDs) are replaced wherever they occur in an object's JSON — keys,
 * spec.cluster, owner references, LogicalCluster owners, APIBinding status, endpoint URLs — because nothing else can
 * contain them by accident. Paths are ordinary words, so they are rewritten only in the fields that hold a workspace
 * path: Workspace spec.URL, the type annotation, and the `path` fields of tenancy and APIs objects (workspace type and
 * export references) that point inside the subtree; a reference outside it stays as it was. The `kcp.io/path` objects
 * carry is not taken from the file at all: restore.ts sets it from the restored tree.
 */
import { randomUUID } from 'node:crypto';
import { ownValue } from '../machinery/own-properties.js';
import { clusterAnnotation as CLUSTER_ANNOTATION, clusterOfKey } from '../registry/stored-object.js';
import type { KubeObject } from '../registry/types.js';
import type { KeyValue } from '../storage/store.js';
import { workspaceKey } from '../tenancy/cluster-paths.js';
import { splitPath, TYPE_ANNOTATION } from '../machinery/kcp-names.js';
import { SnapshotFormatError, type SnapshotHeader } from './format.js';

export interface Relocation {
  /** Where the subtree's top workspace goes. */
  path: string;
  /** The cluster that will hold its Workspace object (the new parent's). */
  parentCluster: string;
  /** Old cluster name → new one, for every cluster of the subtree. */
  clusters: Record<string, string>;
  /** This server's external URL: Workspace URLs point here, whichever server the snapshot came from. */
  baseUrl?: string;
}

export interface RelocatedObject {
  key: string;
  object: KubeObject;
}

const CLUSTER_NAME = /\b[0-9a-z]{16}\b/g;
const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g;

/** The snapshot's objects as they are to be stored at `to` (keys and objects), in no particular order. */
export function relocate(header: SnapshotHeader, entries: readonly KeyValue[], to: Relocation): RelocatedObject[] {
  const from = header.workspace!;
  const oldTopKey = workspaceKey(from.parentCluster, splitPath(from.path).name);
  const newName = splitPath(to.path).name;
  const movePath = (path: string) => (path === from.path || path.startsWith(`${from.path}:`) ? to.path + path.slice(from.path.length) : undefined);

  const uids = new Map<string, string>();
  for (const entry of entries) {
    if (!entry.key.startsWith('/registry/')) continue;
    const uid = parseObject(entry.value)?.metadata?.uid;
    if (uid) uids.set(uid, randomUUID());
  }
  const texts = (text: string) =>
    text.replace(CLUSTER_NAME, (name) => ownValue(to.clusters, name) ?? name).replace(UUID, (uid) => uids.get(uid) ?? uid);

  const out: RelocatedObject[] = [];
  entries.forEach((entry, i) => {
    if (!entry.key.startsWith('/registry/')) return; // the server's bookkeeping rows are rebuilt by its index writers
    const isTop = entry.key === oldTopKey;
    const cluster = clusterOfKey(entry.key);
    if (!isTop && !Object.hasOwn(to.clusters, cluster)) {
      throw new SnapshotFormatError(`entry ${i + 1} (${entry.key}) is outside the snapshot's workspaces`);
    }
    const object = parseObject(texts(entry.value));
    if (!object) throw new SnapshotFormatError(`entry ${i + 1} (${entry.key}) is not a JSON object`);
    const meta = (object.metadata ??= {});
    const annotations = meta.annotations;
    const group = object.apiVersion?.split('/')[0];
    if (group === 'tenancy.kcp.io' && object.kind === 'Workspace') moveWorkspaceURL(object, movePath, to.baseUrl);
    // Workspace types and API exports are named by path: references into the subtree follow it, others stay.
    if (group === 'tenancy.kcp.io' || group === 'apis.kcp.io') movePathFields(object.spec, movePath);
    const type = annotations?.[TYPE_ANNOTATION];
    if (annotations && type !== undefined) {
      const { parent: typePath, name: typeName } = splitPath(type);
      const moved = typePath === undefined ? undefined : movePath(typePath);
      if (moved) annotations[TYPE_ANNOTATION] = `${moved}:${typeName}`;
    }
    // The top cluster's owner is the Workspace that now has the new name, in the new parent.
    if (group === 'core.kcp.io' && object.kind === 'LogicalCluster' && cluster === from.cluster) {
      const owner = (object.spec as { owner?: { name?: string; cluster?: string } } | undefined)?.owner;
      if (owner) Object.assign(owner, { name: newName, cluster: to.parentCluster });
    }
    if (isTop) {
      meta.name = newName;
      meta.annotations = { ...meta.annotations, [CLUSTER_ANNOTATION]: to.parentCluster };
      out.push({ key: workspaceKey(to.parentCluster, newName), object });
      return;
    }
    out.push({ key: replaceCluster(entry.key, to.clusters[cluster]!), object });
  });
  return out;
}

function parseObject(text: string): KubeObject | undefined {
  try {
    const parsed = JSON.parse(text) as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as KubeObject) : undefined;
  } catch {
    return undefined;
  }
}

function replaceCluster(key: string, cluster: string): string {
  const parts = key.split('/');
  parts[4] = cluster;
  return parts.join('/');
}

function moveWorkspaceURL(ws: KubeObject, movePath: (path: string) => string | undefined, baseUrl: string | undefined): void {
  const spec = ws.spec as { URL?: string } | undefined;
  if (!spec?.URL) return;
  const at = spec.URL.lastIndexOf('/clusters/');
  if (at < 0) return;
  const moved = movePath(spec.URL.slice(at + '/clusters/'.length));
  if (moved) spec.URL = `${baseUrl || spec.URL.slice(0, at)}/clusters/${moved}`;
}

/** Every `path` field under `value` (type references, export references) that points into the subtree, moved. */
function movePathFields(value: unknown, movePath: (path: string) => string | undefined): void {
  if (Array.isArray(value)) {
    for (const item of value) movePathFields(item, movePath);
    return;
  }
  if (!value || typeof value !== 'object') return;
  const record = value as Record<string, unknown>;
  for (const [field, inner] of Object.entries(record)) {
    if (field === 'path' && typeof inner === 'string') record[field] = movePath(inner) ?? inner;
    else movePathFields(inner, movePath);
  }
}
