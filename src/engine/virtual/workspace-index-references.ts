/**
 * How the workspace index of one shard and the front-proxy join a user's workspaces across shards.
 *
 * A shard decides access to the logical clusters it hosts, but a workspace's Workspace object is stored with its
 * parent, which may be on another shard. When the proxy asks for them (REFERENCES_HEADER), a shard's index answers
 * such a reachable cluster with a *reference* (parent cluster, workspace name, cluster, path) instead of leaving it
 * out: in a LIST as the body field REFERENCES_FIELD, in a WATCH as events carrying a REFERENCE_KIND object (ADDED
 * when it becomes reachable, DELETED when it stops). The proxy then reads those Workspaces from the parent's shard
 * with its own identity, through the same index restricted to them (ONLY_HEADER), so they come rendered exactly as
 * the index renders its own (path annotation, Table rows, deletion shown in the phase).
 *
 * Clients that send neither header see what they always saw.
 */
import type http from 'node:http';
import { badRequest } from '../machinery/status.js';
import type { KubeObject } from '../registry/types.js';
import { workspaceKey } from '../tenancy/cluster-paths.js';

/** Request header (`true`): report reachable clusters whose Workspace is stored on another shard as references. */
export const REFERENCES_HEADER = 'kcpt-workspace-index-references';
/**
 * Request header: `<parent cluster>/<workspace name>[/<cluster>],…`: answer (and watch) only these Workspaces, each
 * only while it leads to the named cluster (the one whose shard vouched for the user's access).
 */
export const ONLY_HEADER = 'kcpt-workspace-index-only';
/** Top-level field of a LIST answer holding the references. */
export const REFERENCES_FIELD = 'kcptWorkspaceReferences';
/** Kind of the objects of reference watch events. */
export const REFERENCE_KIND = 'WorkspaceIndexReference';
const REFERENCE_API_VERSION = 'kcpt.io/v1alpha1';

export interface WorkspaceReference {
  /** The parent's logical cluster, which stores the Workspace object. */
  parent: string;
  /** The Workspace's name in its parent. */
  name: string;
  /** The workspace's own logical cluster (hosted by the shard that reports the reference). */
  cluster: string;
  /** The workspace's path. */
  path: string;
}

export interface ReferenceMarker extends WorkspaceReference {
  kind: typeof REFERENCE_KIND;
  apiVersion: string;
  metadata: { resourceVersion: string };
  /** Sent when a watch resumes: the client was shown it before (follow it, do not announce it again). */
  resumed?: boolean;
}

/** What a request to the index asked for with the headers above. */
export interface IndexJoin {
  references: boolean;
  /** Workspace storage keys to restrict the answer to → the cluster each must lead to (spec.cluster), if named. */
  only?: Map<string, string | undefined>;
}

const NAME = /^[a-z0-9:]([a-z0-9:.-]*[a-z0-9])?$/;

export function parseIndexJoin(headers: http.IncomingHttpHeaders | undefined): IndexJoin {
  const references = headers?.[REFERENCES_HEADER] === 'true';
  const onlyHeader = headers?.[ONLY_HEADER];
  if (typeof onlyHeader !== 'string') return { references };
  const only = new Map<string, string | undefined>();
  for (const part of onlyHeader.split(',')) {
    const [parent, name, cluster, extra] = part.trim().split('/');
    if (!parent || !name || extra !== undefined || !NAME.test(parent) || !NAME.test(name) || (cluster !== undefined && !NAME.test(cluster))) {
      throw badRequest(`${ONLY_HEADER}: ${JSON.stringify(part)} is not <parent cluster>/<workspace name>[/<cluster>]`);
    }
    only.set(workspaceKey(parent, name), cluster);
  }
  return { references, only };
}

/** The ONLY_HEADER value naming these workspaces (and the clusters they must lead to, when given). */
export function onlyHeaderValue(refs: readonly (Pick<WorkspaceReference, 'parent' | 'name'> & { cluster?: string })[]): string {
  return refs.map((r) => `${r.parent}/${r.name}${r.cluster ? `/${r.cluster}` : ''}`).join(',');
}

/**
 * Whether a Workspace leads to `cluster`. A LogicalCluster's owner is how the index finds a cluster's Workspace, and
 * the cluster's admins may write it: the Workspace counts only when it points back at the cluster.
 */
export function leadsTo(ws: KubeObject, cluster: string | undefined): boolean {
  return cluster === undefined || (ws.spec as { cluster?: string } | undefined)?.cluster === cluster;
}

export function referenceKey(ref: Pick<WorkspaceReference, 'parent' | 'name'>): string {
  return `${ref.parent}/${ref.name}`;
}

export function referenceMarker(ref: WorkspaceReference, revision: number, resumed = false): ReferenceMarker {
  const { parent, name, cluster, path } = ref;
  return {
    kind: REFERENCE_KIND,
    apiVersion: REFERENCE_API_VERSION,
    metadata: { resourceVersion: String(revision) },
    parent,
    name,
    cluster,
    path,
    ...(resumed ? { resumed: true } : {}),
  };
}

export function isReferenceMarker(obj: unknown): obj is ReferenceMarker {
  const marker = obj as Partial<ReferenceMarker> | undefined;
  return marker?.kind === REFERENCE_KIND && typeof marker.parent === 'string' && typeof marker.name === 'string';
}

/** A LIST body (a JSON object's text) with the references added as its last field. */
export function withReferences(body: string, refs: readonly WorkspaceReference[]): string {
  if (!body.endsWith('}')) return body;
  const fields = refs.map(({ parent, name, cluster, path }) => ({ parent, name, cluster, path }));
  return `${body.slice(0, -1)},${JSON.stringify(REFERENCES_FIELD)}:${JSON.stringify(fields)}}`;
}
