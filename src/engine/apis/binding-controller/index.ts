/**
 * kcp's APIBinding controller: resolves `spec.reference.export` (empty path = the binding's own workspace), checks
 * the export (found, identity, schemas), refuses naming conflicts (one owner per group/resource per workspace: a
 * local CRD or another binding that already serves it), and records what is bound in `status.boundResources` —
 * which is what the catalogs serve (bound-apis.ts). Phases go "" → Binding → Bound; Ready mirrors
 * InitialBindingCompleted. When an export points a resource at a new APIResourceSchema, every binding of the export
 * (from the binding index) follows; objects stay, stored under the same identity. Deleting a binding first deletes
 * its objects in the workspace, then drops the finalizer.
 *
 * A binding's reconcile runs its steps in order, each in its own file: deletion, export, initial phase, naming
 * conflicts, bound resources.
 */
import { defineController, type Controller } from '../../controllers/controller.js';
import { runSteps, type SyncReconcileStep } from '../../controllers/reconcile-steps.js';
import { splitClusterKey, type ReconcileResult } from '../../controllers/work-queue.js';
import { decodeStored } from '../../registry/stored-object.js';
import { BindingIndex } from '../binding-index.js';
import { conditionOf } from '../conditions.js';
import { BINDINGS, BINDINGS_PREFIX, EXPORTS_PREFIX, SCHEMAS_PREFIX } from '../names.js';
import { pendingKeys, ROLLOUTS, rolloutRow } from '../pending.js';
import type { APIBinding } from '../types.js';
import { boundResourcesStep } from './bound-resources.js';
import { conflictsStep } from './conflicts.js';
import { deletionStep } from './deletion.js';
import type { BindingControllerDeps } from './deps.js';
import { exportStep } from './export.js';
import { initialPhaseStep } from './phase.js';
import { bindingState, type BindingState } from './state.js';

export type { BindingControllerDeps } from './deps.js';

const steps: readonly SyncReconcileStep<BindingState>[] = [deletionStep, exportStep, initialPhaseStep, conflictsStep, boundResourcesStep];

/** Queue keys of export jobs (`@export|<cluster>|<name>`); binding keys are `<cluster>|<name>`. */
const EXPORT_KEY = '@export|';

export function bindingController(deps: BindingControllerDeps): Controller {
  const { store, bound } = deps;
  const index = new BindingIndex(store);
  /**
   * Export name (or `schema:<name>`) → keys of bindings waiting for an export of that name to appear or get its
   * identity, or for a schema of that name to appear.
   */
  const waiting = new Map<string, Set<string>>();

  const reconcileBinding = (key: string): ReconcileResult | undefined => {
    const { cluster, name } = splitClusterKey(key);
    const kv = store.get(`${BINDINGS_PREFIX}${cluster}/${name}`);
    if (!kv) return undefined;
    const waitFor = (what: string) => {
      let keys = waiting.get(what);
      if (!keys) waiting.set(what, (keys = new Set()));
      keys.add(key);
    };
    return runSteps(steps, bindingState(deps, cluster, decodeStored(kv) as APIBinding, waitFor));
  };

  /**
   * Moves every binding of an export to its current resources, one after the other in this job, then forgets the
   * export's rollout row: a restart in the middle resumes from the row.
   */
  const rollOut = (key: string): ReconcileResult | undefined => {
    const { cluster, name } = splitClusterKey(key);
    let retry: ReconcileResult | undefined;
    for (const b of index.bindingsOf(cluster, name)) {
      const result = reconcileBinding(`${b.cluster}|${b.binding}`);
      if (result) retry = result;
    }
    if (retry) return retry;
    const row = rolloutRow(cluster, name);
    if (store.get(row)) store.commit([{ type: 'delete', key: row }]);
    return undefined;
  };

  return defineController({
    name: 'apibinding',
    store,
    onError: deps.onError,
    watches(feed) {
      /** Queues the bindings waiting for `what`. */
      const wake = (what: string) => {
        for (const key of waiting.get(what) ?? []) feed.add(key);
        waiting.delete(what);
      };
      feed.listen(bound.onChange.bind(bound), (cluster, resources, binding) => {
        feed.add(`${cluster}|${binding.metadata!.name}`);
        for (const group of new Set(resources.map((r) => r.slice(r.indexOf('.') + 1)))) deps.recheckCRDs(cluster, group);
      });
      // An export changed (schemas rolled forward, identity set): every binding of it follows.
      feed.watch(EXPORTS_PREFIX, (e) => {
        const rest = e.key.slice(EXPORTS_PREFIX.length);
        feed.add(`${EXPORT_KEY}${rest.replace('/', '|')}`);
        wake(rest.slice(rest.indexOf('/') + 1));
      });
      feed.watch(SCHEMAS_PREFIX, (e) => {
        if (e.type === 'ADDED') wake(`schema:${e.key.slice(e.key.lastIndexOf('/') + 1)}`);
      });
      // The same for other shards' exports and schemas, replicated here.
      feed.listen(bound.onReplicaChange.bind(bound), (kind, cluster, name) => {
        if (kind === 'apiexports') {
          feed.add(`${EXPORT_KEY}${cluster}|${name}`);
          wake(name);
        } else if (kind === 'apiresourceschemas') wake(`schema:${name}`);
      });
      for (const key of pendingKeys((p) => store.list(p).items, ROLLOUTS)) feed.add(`${EXPORT_KEY}${key}`);
      // A CRD came or went: bindings of that workspace waiting on a naming conflict look again.
      feed.listen(deps.onCRDChange, (cluster) => {
        for (const b of bound.bindingsIn(cluster)) {
          if (conditionOf(b.status?.conditions, 'BindingUpToDate')?.status !== 'True') feed.add(`${cluster}|${b.metadata!.name}`);
        }
      });
      for (const key of pendingKeys((p) => store.list(p).items, BINDINGS)) feed.add(key);
    },
    reconcile: (key) => (key.startsWith(EXPORT_KEY) ? rollOut(key.slice(EXPORT_KEY.length)) : reconcileBinding(key)),
  });
}
