/**
 * The workspace's type and the types it extends: which exports they want bound (while initializing, all of them;
 * afterwards only those of types that `Maintain` their bindings). A type that cannot be had is reported and retried.
 */
import type { StepResult } from '../../controllers/reconcile-steps.js';
import { TYPE_ANNOTATION, splitPath } from '../../machinery/kcp-names.js';
import type { WorkspaceType, WorkspaceTypes } from '../../tenancy/workspace-types.js';
import { defaultExportRefs, typeInvalid } from '../default-bindings.js';
import type { LogicalClusterView } from './deps.js';
import type { DefaultBindingsState } from './state.js';

export function typeStep(state: DefaultBindingsState): StepResult {
  const { initializations, cluster, lc, initializing } = state;
  const aliases = aliasesOf(initializations.deps.workspaceTypes, lc);
  if (typeof aliases === 'string') {
    if (initializing) initializations.setConditions(cluster, lc, typeInvalid(aliases));
    return initializations.retryLater(cluster);
  }
  state.refs = defaultExportRefs(aliases, (t) => initializations.clusterOfType(t)).filter((r) => initializing || r.maintain);
  return 'continue';
}

/** The aliases of the LogicalCluster's type, or kcp's message when they cannot be had. */
function aliasesOf(workspaceTypes: WorkspaceTypes, lc: LogicalClusterView): WorkspaceType[] | string {
  const qualified = lc.metadata?.annotations?.[TYPE_ANNOTATION] ?? '';
  const { parent, name } = splitPath(qualified);
  const type = parent ? workspaceTypes.get(parent, name) : undefined;
  if (!type) return `error getting WorkspaceType ${parent ?? ''}|${name}: workspacetypes.tenancy.kcp.io "${name}" not found`;
  try {
    return workspaceTypes.aliases(type);
  } catch (err) {
    return `error resolving transitive set of workspace types: ${(err as Error).message}`;
  }
}
