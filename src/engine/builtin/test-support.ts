/**
 * Test helpers: run a built-in strategy the way the generic store does (defaults → prepare → validate) without
 * storage, and render field errors the way a 422 message shows them.
 */
import type { FieldError } from '../machinery/status.js';
import { conditionsByType, genericPatchSchema, kindPatchSchema } from '../machinery/patch/patchSchemas.js';
import type { PatchSchema } from '../machinery/patch/schema.js';
import { typeFromOpenAPI } from '../machinery/ssa/type-info.js';
import type { KubeObject, ResourceType, StrategyContext } from '../registry/types.js';
import { builtinResourceTypes, builtinSchemas } from './groups.js';

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

/**
 * Strategic-merge keys by group and kind, as the patch tests look them up: each served built-in kind's
 * `patchSchema`, plus kinds kcpt does not serve whose kubectl fixtures exercise merge keys (Service ports by port,
 * webhooks by name). Unknown kinds get ObjectMeta's only.
 */
const fixtureOnlyPatchSchemas: Record<string, PatchSchema> = {
  Service: kindPatchSchema({
    // Upstream merges ports by `port` alone (not port+protocol): 53/TCP and 53/UDP collide, as in kube.
    spec: { fields: { ports: { patchStrategy: 'merge', patchMergeKey: 'port' } } },
    status: { fields: { conditions: conditionsByType } },
  }),
  'ValidatingWebhookConfiguration.admissionregistration.k8s.io': kindPatchSchema({
    webhooks: { patchStrategy: 'merge', patchMergeKey: 'name' },
  }),
  'MutatingWebhookConfiguration.admissionregistration.k8s.io': kindPatchSchema({
    webhooks: { patchStrategy: 'merge', patchMergeKey: 'name' },
  }),
};

export function patchSchemaFor(group: string, kind: string): PatchSchema {
  const rt = builtinResourceTypes().find((t) => t.group === group && t.kind === kind);
  if (rt) return rt.patchSchema ?? genericPatchSchema;
  const key = group ? `${kind}.${group}` : kind;
  return Object.hasOwn(fixtureOnlyPatchSchemas, key) ? fixtureOnlyPatchSchemas[key]! : genericPatchSchema;
}

/** SSA type info of the real ConfigMap schema. */
export const configMapType = typeFromOpenAPI(builtinSchemas['io.k8s.api.core.v1.ConfigMap']!, builtinSchemas);
