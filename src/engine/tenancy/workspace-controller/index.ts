/**
 * The workspace lifecycle for every logical cluster, from one queue: Scheduling → (Initializing →) Ready, and on
 * deletion Terminating/Deleting until the workspace's logical cluster and everything in it are gone. Driven by the
 * storage watch on Workspaces and LogicalClusters; after a restart, pending work is found through marker keys
 * written with the objects (workspaces not yet Ready, LogicalClusters being deleted), never by a scan.
 *
 * Keys: `ws|<parent>/<name>` a Workspace, whose reconcile runs its steps in order, each in its own file (deletion,
 * scheduling, phase); `hc|<cluster>` a LogicalCluster another shard created here (hosted-cluster.ts);
 * `lc|<cluster>` a LogicalCluster being deleted and `lg|<cluster>` one whose child workspace went
 * (logical-cluster-deletion.ts).
 */
import { defineController, type Controller } from '../../controllers/controller.js';
import { runSteps, type ReconcileStep } from '../../controllers/reconcile-steps.js';
import { deletionMarkerPrefix } from '../../registry/object-rules.js';
import { decodeStored } from '../../registry/stored-object.js';
import { hasKeys, type StoreEvent } from '../../storage/store.js';
import { logicalClustersPrefix, workspaceKey, workspacesPrefix } from '../cluster-paths.js';
import { hostedPendingPrefix, isReady, isReadyText, pendingPrefix } from '../pending-markers.js';
import type { Workspace } from '../workspace-resource.js';
import type { LogicalClusterView } from '../workspace-progress.js';
import { deletionStep } from './deletion.js';
import type { WorkspaceControllerDeps } from './deps.js';
import { reconcileHostedCluster } from './hosted-cluster.js';
import { reconcileLogicalClusterDeletion } from './logical-cluster-deletion.js';
import { phaseStep } from './phase.js';
import { schedulingStep } from './scheduling.js';
import { workspaceState, type WorkspaceState } from './state.js';

export type { RemoteWorkspaceFollower, WorkspaceControllerDeps } from './deps.js';

const workspaceSteps: readonly ReconcileStep<WorkspaceState>[] = [deletionStep, schedulingStep, phaseStep];

/**
 * Whether a workspace's own change gives the controller something to do. One being deleted that already shows
 * Deleting/Terminating waits for its LogicalCluster, whose events bring it back (terminators leaving, the cluster
 * gone); its MODIFIED event is the controller's own write.
 */
function needsLook(ws: Workspace): boolean {
  if (!ws.metadata?.deletionTimestamp) return !isReady(ws);
  return ws.status?.phase !== 'Deleting' && ws.status?.phase !== 'Terminating';
}

/**
 * The commit that first marks a LogicalCluster deleted: the workspace controller wrote its workspace's Deleting
 * phase in that very commit (or a user deleted the cluster of a live workspace, which shows nothing of it).
 */
function isDeletionMark(e: StoreEvent, lc: LogicalClusterView): boolean {
  return e.type === 'MODIFIED' && Boolean(lc.metadata?.deletionTimestamp) && e.prevValue !== undefined && !e.prevValue.includes('"deletionTimestamp"');
}

export function workspaceController(deps: WorkspaceControllerDeps): Controller {
  const { store } = deps;
  /** An event's object; the marks of the cluster deleter's own passes come parsed already (the event is their write). */
  const objectOf = (e: StoreEvent): unknown => (e.type === 'MODIFIED' ? deps.deleter.markAt(e.key, e.revision) : undefined) ?? JSON.parse(e.value);
  return defineController({
    name: 'workspace',
    store,
    onError: deps.onError,
    group: store.group?.bind(store),
    watches(feed) {
      feed.watch(workspacesPrefix, (e, i, events) => {
        // Created and scheduled in one commit (ADDED then MODIFIED): a reconcile reads the final state anyway, so
        // whether it needs one is the MODIFIED's question.
        if (e.type === 'ADDED' && events[i + 1]?.type === 'MODIFIED' && events[i + 1]!.key === e.key) return;
        const rest = e.key.slice(workspacesPrefix.length);
        if (e.type === 'DELETED') {
          // A child workspace finally gone may be what its parent's deletion was waiting for (the last one is).
          feed.add(`lg|${rest.split('/')[0]}`);
          return;
        }
        // Ready and not being deleted (needsLook's false), read from the text: every created workspace has such a
        // MODIFIED, and its parse was ~2 % of a workspace's creation CPU.
        if (e.type === 'MODIFIED' && isReadyText(e.value)) return;
        // A new workspace is always Scheduling (status comes from its defaults): no need to parse it.
        if (e.type === 'ADDED' || needsLook(objectOf(e) as Workspace)) feed.add(`ws|${rest}`);
      });
      feed.watch(logicalClustersPrefix, (e) => {
        const cluster = e.key.slice(logicalClustersPrefix.length).split('/')[0]!;
        // A LogicalCluster appears in the commit that schedules its workspace, which has nothing left to do then;
        // one still Scheduling was created by another shard (or a privileged user) and is looked at.
        if (e.type === 'ADDED') {
          if (e.value.includes('"phase":"Scheduling"') || !e.value.includes('"phase":')) feed.add(`hc|${cluster}`);
          return;
        }
        const lc = objectOf(e) as LogicalClusterView;
        // Its last initializer gone: a LogicalCluster whose workspace is elsewhere turns Ready here.
        if (lc.status?.phase === 'Initializing' && !lc.status.initializers?.length && e.type === 'MODIFIED') feed.add(`hc|${cluster}`);
        const owner = lc.spec?.owner;
        if (owner?.cluster && owner.name && !isDeletionMark(e, lc)) feed.add(`ws|${owner.cluster}/${owner.name}`);
        if (e.type !== 'DELETED' && lc.metadata?.deletionTimestamp) feed.add(`lc|${cluster}`);
      });
      // A Shard changed (labels, the unschedulable annotation): workspaces waiting for one may fit now. Only the
      // workspaces not yet Ready are looked at, through their markers.
      feed.listen(deps.shards.onChange.bind(deps.shards), () => {
        for (const kv of store.list(pendingPrefix).items) feed.add(`ws|${kv.key.slice(pendingPrefix.length)}`);
      });
      // Work a restart interrupted: LogicalClusters other shards created here, workspaces not Ready yet, and those
      // being deleted.
      for (const kv of store.list(hostedPendingPrefix).items) feed.add(`hc|${kv.key.slice(hostedPendingPrefix.length)}`);
      for (const kv of store.list(pendingPrefix).items) feed.add(`ws|${kv.key.slice(pendingPrefix.length)}`);
      const wsMarkers = deletionMarkerPrefix(deps.types.workspaces.storagePrefix);
      for (const kv of store.list(wsMarkers).items) feed.add(`ws|${kv.key.slice(wsMarkers.length)}`);
      const lcMarkers = deletionMarkerPrefix(deps.types.logicalClusters.storagePrefix);
      for (const kv of store.list(lcMarkers).items) feed.add(`lc|${kv.key.slice(lcMarkers.length).split('/')[0]}`);
    },
    reconcile(key) {
      const [kind, rest] = [key.slice(0, 2), key.slice(3)];
      if (kind === 'lc') return reconcileLogicalClusterDeletion(deps, rest);
      if (kind === 'hc') return reconcileHostedCluster(deps, rest);
      // A child of a cluster being deleted is gone: while others are still going, they will call again.
      if (kind === 'lg') return hasKeys(store, `${workspacesPrefix}${rest}/`) ? undefined : reconcileLogicalClusterDeletion(deps, rest);
      const slash = rest.indexOf('/');
      const parent = rest.slice(0, slash);
      const row = store.get(workspaceKey(parent, rest.slice(slash + 1)));
      if (!row) return undefined;
      return runSteps(workspaceSteps, workspaceState(deps, parent, decodeStored(row) as Workspace, row));
    },
  });
}
