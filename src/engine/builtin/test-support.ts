/**
 * Test helpers: run a built-in strategy the way the generic store does (defaults → prepare → validate) without
 * storage, and render field errors the way a 422 message shows them.
 */
import type { FieldError } from '../machinery/status.js';
import type { KubeObject, ResourceType, StrategyContext } from '../registry/types.js';

const ctx: StrategyContext = { cluster: 'c1' };

export interface StrategyResult {
  obj: KubeObject;
  /** `field: detail`, as in a 422 message. */
  errors: string[];
  warnings: string[];
}

const render = (errs: FieldError[]) => errs.map((e) => `${e.field}: ${e.detail}`);

export function runCreate(rt: ResourceType, input: KubeObject): StrategyResult {
  const obj = structuredClone(input);
  const meta = (obj.metadata ??= {});
  if (rt.namespaced) meta.namespace ??= 'default';
  meta.creationTimestamp ??= '2024-01-01T00:00:00Z';
  if (rt.strategy.hasStatusSubresource && rt.strategy.tracksGeneration) delete obj.status;
  rt.strategy.defaults?.(obj, ctx);
  rt.strategy.prepareForCreate?.(obj, ctx);
  return { obj, errors: render(rt.strategy.validate?.(obj, ctx) ?? []), warnings: rt.strategy.warnings?.(obj) ?? [] };
}

export function runUpdate(rt: ResourceType, old: KubeObject, input: KubeObject): StrategyResult {
  const obj = structuredClone(input);
  obj.metadata = { ...structuredClone(old.metadata ?? {}), ...(obj.metadata ?? {}) };
  if (rt.strategy.hasStatusSubresource) {
    if (old.status === undefined) delete obj.status;
    else obj.status = structuredClone(old.status);
  }
  rt.strategy.defaults?.(obj, ctx);
  rt.strategy.prepareForUpdate?.(obj, old, ctx);
  const errors = [...(rt.strategy.validateUpdate?.(obj, old, ctx) ?? []), ...(rt.strategy.validate?.(obj, ctx) ?? [])];
  return { obj, errors: render(errors), warnings: rt.strategy.warnings?.(obj, old) ?? [] };
}

/** The header row of `kubectl get` (priority-0 columns, upper-cased) and, with `wide`, all of them. */
export function headers(rt: ResourceType, wide = false): string[] {
  return (rt.printer?.columns ?? []).filter((c) => wide || !c.priority).map((c) => c.name.toUpperCase());
}
