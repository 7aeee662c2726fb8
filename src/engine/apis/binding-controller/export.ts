/**
 * The export a binding names: resolved (empty path = the binding's own workspace, another shard's through the
 * replica), with its identity and every schema it lists; condition APIExportValid says which is missing, and the
 * binding waits for that export or schema to change.
 */
import type { StepResult } from '../../controllers/reconcile-steps.js';
import type { BindingState } from './state.js';

/**
 * Safety retry while the export, its identity or a schema is missing. Bindings waiting on an export are also kept
 * by export name and queued as soon as an export of that name changes, so this only catches what no export event
 * announces (the export's workspace created later, a schema created after the export).
 */
const WAIT_MS = 30_000;
/** Just started: another shard's exports may not be replicated yet. */
const REPLICA_WAIT_MS = 250;

export function exportStep(state: BindingState): StepResult {
  const { deps, cluster, binding, status } = state;
  const { bound } = deps;
  const ref = binding.spec.reference.export;
  const exportPath = ref.path || deps.pathOf(cluster) || cluster;
  const exportCluster = ref.path ? deps.resolvePath(ref.path) : cluster;
  const found = exportCluster ? bound.exportOf(exportCluster, ref.name) : undefined;
  // A binding is not told its export is gone while the replica may still bring it.
  if ((!exportCluster || !found) && !bound.replicaSynced()) return { requeueAfterMs: REPLICA_WAIT_MS };
  if (!exportCluster || !found) {
    state.set({ type: 'APIExportValid', status: 'False', reason: 'APIExportNotFound', message: `APIExport ${exportPath}|${ref.name} not found` });
    state.waitFor(ref.name);
    return state.write(WAIT_MS);
  }
  const exp = found.object;
  const identityHash = exp.status?.identityHash;
  if (!identityHash) {
    state.set({ type: 'APIExportValid', status: 'False', reason: 'MissingIdentityHash', message: `APIExport ${exportPath}|${ref.name} is missing status.identityHash` });
    state.waitFor(ref.name);
    return state.write(WAIT_MS);
  }
  for (const r of exp.spec?.resources ?? []) {
    const schema = bound.schema(exportCluster, r.schema);
    if (!schema && !bound.replicaSynced()) return { requeueAfterMs: REPLICA_WAIT_MS };
    if (!schema) {
      state.set({
        type: 'APIExportValid',
        status: 'False',
        reason: 'InternalError',
        message: `Invalid APIExport. Please contact the APIExport owner to resolve: APIResourceSchema ${JSON.stringify(r.schema)} not found`,
      });
      state.waitFor(`schema:${r.schema}`);
      return state.write(WAIT_MS);
    }
    state.schemas.push(schema);
  }
  state.set({ type: 'APIExportValid', status: 'True' });
  // exportPermissionClaims, appliedPermissionClaims and the claim conditions belong to the permission-claims
  // controller; this one keeps whatever it finds there.
  status.apiExportClusterName = exportCluster;
  state.exportCluster = exportCluster;
  state.identityHash = identityHash;
  return 'continue';
}
