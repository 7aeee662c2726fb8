/**
 * The `system:apibindings` initializer, in-process (kcp's APIBinder) and its `Maintain` twin (kcp's
 * DefaultAPIBindingLifecycle controller). For a workspace whose type (or a type it extends) lists
 * `defaultAPIBindings`, it creates one APIBinding per export as the workspace's creator (who therefore needs `bind`),
 * waits until every one is bound, then removes `system:apibindings` from the LogicalCluster's status.initializers so
 * the workspace turns Ready. Problems (a missing export, a refused binding) stay on the LogicalCluster and its
 * Workspace as the `APIBindingsInitialized` condition while it retries.
 *
 * A cluster's reconcile runs its steps in order, each in its own file: the type's exports, the bindings, completion.
 *
 * Cost: only clusters of such types are ever queued. A LogicalCluster event is looked at without parsing (its JSON
 * names the initializer or not); APIBinding and APIExport events queue only the clusters still waiting, and
 * `Maintain` workspaces are found through marker rows written with their LogicalCluster, never by a scan.
 */
import { defineController, type Controller } from '../../controllers/controller.js';
import { runSteps, type ReconcileStep } from '../../controllers/reconcile-steps.js';
import { decodeStored } from '../../registry/stored-object.js';
import { logicalClusterKey, logicalClustersPrefix, workspaceKey } from '../../tenancy/cluster-paths.js';
import { workspaceTypesPrefix } from '../../tenancy/workspace-types.js';
import { APIBINDINGS_INITIALIZER, BINDINGS_INITIALIZED, BINDINGS_RECONCILED } from '../default-bindings.js';
import { bindingsStep } from './bindings.js';
import { completionStep } from './completion.js';
import type { DefaultAPIBindingsDeps, LogicalClusterView } from './deps.js';
import { initializingPrefix, maintainedPrefix, pendingWorkspacesPrefix } from './markers.js';
import { Initializations, type DefaultBindingsState } from './state.js';
import { typeStep } from './type.js';

export type { DefaultAPIBindingsDeps } from './deps.js';
export { initializingClustersWriter, maintainedWorkspacesWriter } from './markers.js';

const steps: readonly ReconcileStep<DefaultBindingsState>[] = [typeStep, bindingsStep, completionStep];

const INITIALIZER_TEXT = `"${APIBINDINGS_INITIALIZER}"`;

export function defaultAPIBindingsController(deps: DefaultAPIBindingsDeps): Controller {
  const { store, apiBindings, apiExports } = deps;
  const initializations = new Initializations(deps);
  return defineController({
    name: 'default-apibindings',
    store,
    onError: deps.onError,
    watches(feed) {
      const bindingsPrefix = `/registry/${apiBindings.storagePrefix}/`;
      /** An export or a type changed: what waits or is maintained may now go further. */
      const wakeAll = () => {
        for (const cluster of initializations.waiting) feed.add(cluster);
        for (const kv of store.list(maintainedPrefix).items) feed.add(kv.key.slice(maintainedPrefix.length));
      };
      feed.watch(logicalClustersPrefix, (e) => {
        const cluster = e.key.slice(logicalClustersPrefix.length).split('/')[0]!;
        if (e.type === 'DELETED') initializations.forget(cluster);
        else if (e.value.includes(INITIALIZER_TEXT)) feed.add(cluster);
      });
      feed.watch(bindingsPrefix, (e) => {
        const cluster = e.key.slice(bindingsPrefix.length).split('/')[0]!;
        // A maintained workspace gets a deleted default binding back.
        if (initializations.waiting.has(cluster) || (e.type === 'DELETED' && store.get(`${maintainedPrefix}${cluster}`))) feed.add(cluster);
      });
      // Many events of one commit (a burst of exports or types) wake everything once.
      feed.watch(`/registry/${apiExports.storagePrefix}/`, (_e, i) => i === 0 && wakeAll());
      feed.watch(workspaceTypesPrefix, (_e, i) => i === 0 && wakeAll());
      // Types and exports of other shards (a sharded deployment) arrive through the replica, not this store.
      feed.listen(deps.workspaceTypes.onRemoteChange.bind(deps.workspaceTypes), wakeAll);
      if (deps.onRemoteExportChange) feed.listen(deps.onRemoteExportChange, wakeAll);
      // Initializations a restart interrupted: among the workspaces not Ready yet.
      for (const kv of store.list(pendingWorkspacesPrefix).items) {
        const [parent, name] = kv.key.slice(pendingWorkspacesPrefix.length).split('/');
        const ws = store.get(workspaceKey(parent!, name!));
        const cluster = ws ? (JSON.parse(ws.value) as { spec?: { cluster?: string } }).spec?.cluster : undefined;
        if (cluster && store.get(logicalClusterKey(cluster))?.value.includes(INITIALIZER_TEXT)) feed.add(cluster);
      }
      for (const kv of store.list(initializingPrefix).items) feed.add(kv.key.slice(initializingPrefix.length));
    },
    reconcile(cluster) {
      const kv = store.get(logicalClusterKey(cluster));
      const lc = kv ? (decodeStored(kv) as LogicalClusterView) : undefined;
      if (!lc || lc.metadata?.deletionTimestamp) return initializations.forget(cluster);
      const initializing = lc.status?.phase === 'Initializing' && (lc.status.initializers ?? []).includes(APIBINDINGS_INITIALIZER);
      if (initializing) initializations.waiting.add(cluster);
      else initializations.waiting.delete(cluster);
      const maintained = !initializing && store.get(`${maintainedPrefix}${cluster}`) !== undefined;
      if (!initializing && !maintained) return initializations.forget(cluster);
      const conditionType = initializing ? BINDINGS_INITIALIZED : BINDINGS_RECONCILED;
      return runSteps(steps, { initializations, cluster, lc, initializing, conditionType, refs: [] });
    },
  });
}
