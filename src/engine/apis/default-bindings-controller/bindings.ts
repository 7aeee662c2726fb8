/**
 * One APIBinding per default export, created as the workspace's creator (who therefore needs `bind`); while
 * initializing, or when maintained, its claims follow the export's. Refusals are reported on the LogicalCluster and
 * retried; a refusal for want of another shard's answer asks that shard first and tries again at once.
 */
import type { StepResult } from '../../controllers/reconcile-steps.js';
import { StatusError } from '../../machinery/status.js';
import { decodeStored } from '../../registry/stored-object.js';
import { PATH_ANNOTATION, splitPath } from '../../machinery/kcp-names.js';
import { bindingErrors, desiredBinding, EXPORTS_MISSING, inheritedSelector } from '../default-bindings.js';
import type { APIBinding } from '../types.js';
import type { LogicalClusterView } from './deps.js';
import type { DefaultBindingsState, Initializations } from './state.js';

export function bindingsStep(state: DefaultBindingsState): StepResult | Promise<StepResult> {
  const { initializations, cluster, lc } = state;
  const asks: Promise<void>[] = [];
  const errors = ensureBindings(state, asks);
  // The export's shard is asked whether the creator may bind it; then the binding is created again right away.
  if (asks.length > 0) return Promise.allSettled(asks).then(() => ({ requeueAfterMs: 1 }));
  if (errors.length > 0) {
    initializations.setConditions(cluster, lc, bindingErrors(state.conditionType, errors));
    return initializations.retryLater(cluster);
  }
  initializations.succeeded(cluster);
  return 'continue';
}

/**
 * Creates (or, while initializing, updates the claims of) each default binding; returns kcp's error messages. A
 * binding to another shard's export refused for want of that shard's answer adds the question to `asks` instead,
 * once per two attempts (the answer is cached for a while, then asked again).
 */
function ensureBindings({ initializations, cluster, lc, refs, initializing }: DefaultBindingsState, asks: Promise<void>[]): string[] {
  const { generic, apiBindings } = initializations.deps;
  const errors: string[] = [];
  let exportsMissing = false;
  let parentBindings: APIBinding[] | undefined;
  for (const ref of refs) {
    const exportCluster = initializations.resolvePath(ref.path);
    const found = exportCluster ? initializations.exportOf(exportCluster, ref.export) : undefined;
    const exportObj = found?.object;
    if (!exportObj) {
      if (!exportsMissing) errors.push(EXPORTS_MISSING);
      exportsMissing = true;
      continue;
    }
    parentBindings ??= parentBindingsOf(initializations, lc);
    const wanted = desiredBinding(cluster, ref, exportObj, (claim) => inheritedSelector(parentBindings!, ref, claim));
    const name = wanted.metadata!.name!;
    const existing = initializations.getObject<APIBinding>(apiBindings, cluster, name);
    const ctx = { rt: apiBindings, cluster, namespace: '', user: lc.spec?.createdBy && { groups: [], ...lc.spec.createdBy } };
    try {
      if (!existing) {
        generic.create(ctx, wanted);
      } else if (JSON.stringify(existing.spec?.permissionClaims ?? []) !== JSON.stringify(wanted.spec?.permissionClaims ?? [])) {
        // kcp keeps the claims of a default binding equal to the export's (while initializing, or when maintained).
        if (initializing || ref.maintain) generic.update(ctx, name, { ...existing, spec: { ...existing.spec, permissionClaims: wanted.spec?.permissionClaims } });
      }
    } catch (err) {
      const question = `${cluster}/${ref.path}|${ref.export}`;
      const { asked } = initializations;
      if (found.shard && err instanceof StatusError && err.code === 403 && !asked.has(question) && apiBindings.strategy.admitAhead) {
        asked.add(question);
        asks.push(apiBindings.strategy.admitAhead(wanted, ctx));
        continue;
      }
      asked.delete(question);
      errors.push((err as Error).message);
    }
  }
  return errors;
}

/** The parent workspace's bindings, for kcp's claim-selector inheritance. */
function parentBindingsOf(initializations: Initializations, lc: LogicalClusterView): APIBinding[] {
  const { deps } = initializations;
  const { parent } = splitPath(lc.metadata?.annotations?.[PATH_ANNOTATION] ?? '');
  const parentCluster = parent ? deps.paths.resolve(parent) : undefined;
  if (!parentCluster) return [];
  const prefix = `/registry/${deps.apiBindings.storagePrefix}/${parentCluster}/`;
  return deps.store.list(prefix).items.map((kv) => decodeStored(kv) as APIBinding);
}
