/**
 * apiextensions.k8s.io/v1 customresourcedefinitions: the served resource. Validation is kube's (structural.ts);
 * status (accepted names, conditions, storedVersions) is computed on every write against the other CRDs of the
 * same logical cluster, and every CRD carries the cleanup finalizer so deleting it first deletes its objects.
 */
import { defineBuiltin } from '../builtin/define.js';
import { createdAtPrinter } from '../builtin/printing.js';
import { fieldErrors, type FieldError } from '../machinery/status.js';
import { nowTimestamp } from '../registry/object-rules.js';
import type { KubeObject, ResourceType, StrategyContext } from '../registry/types.js';
import type { Store } from '../storage/store.js';
import {
  CLEANUP_FINALIZER,
  computeCRDStatus,
  CRD_GROUP,
  defaultCRD,
  isEstablished,
  type CustomResourceDefinition,
  withTerminating,
} from './crd.js';
import { validateCRDSpec, type CRDLike } from './crd-validation.js';
import { isPlainObject, type JSONSchemaProps } from './types.js';
import { compileSchemaRules, countRules, hasRules, MAX_RULES_PER_CRD } from './cel/compile.js';

export function crdKeyPrefix(cluster: string): string {
  return `/registry/${CRD_GROUP}/customresourcedefinitions/${cluster}/`;
}

/**
 * The names APIBindings hold in a cluster's group, shaped as accepted CRD names (apis/bound-apis.ts), so kube's
 * naming rules refuse a CRD that asks for them.
 */
export type BoundNames = (cluster: string, group: string) => CustomResourceDefinition[];

/** The other CRDs of `group` in one logical cluster, read from storage, and the names bindings hold there. */
export function sameGroupCRDs(store: Store, cluster: string, group: string, exceptName: string, boundNames?: BoundNames): CustomResourceDefinition[] {
  const out: CustomResourceDefinition[] = [...(boundNames?.(cluster, group) ?? [])];
  for (const kv of store.list(crdKeyPrefix(cluster)).items) {
    const crd = JSON.parse(kv.value) as CustomResourceDefinition;
    if (crd.metadata?.name !== exceptName && crd.spec?.group === group) out.push(crd);
  }
  return out;
}

/** True when the spec has the shape status computation needs; malformed specs are left to validation. */
function wellFormed(obj: KubeObject): obj is CustomResourceDefinition {
  const spec = obj.spec as CustomResourceDefinition['spec'] | undefined;
  return (
    !!spec &&
    typeof spec.group === 'string' &&
    !!spec.names &&
    typeof spec.names.plural === 'string' &&
    typeof spec.names.kind === 'string' &&
    Array.isArray(spec.versions)
  );
}

/** ValidateImmutableField for the spec fields kube freezes (scope and kind only once the CRD was Established). */
function immutableFieldErrors(obj: KubeObject, old: KubeObject): FieldError[] {
  const spec = (obj.spec ?? {}) as Partial<CustomResourceDefinition['spec']>;
  const oldSpec = (old.spec ?? {}) as Partial<CustomResourceDefinition['spec']>;
  const errs: FieldError[] = [];
  const immutable = (path: string, next: unknown, prev: unknown) => {
    if (next !== prev) errs.push(fieldErrors.invalid(path, next, 'field is immutable'));
  };
  if (isEstablished(old as CustomResourceDefinition)) {
    immutable('spec.scope', spec.scope, oldSpec.scope);
    immutable('spec.names.kind', spec.names?.kind, oldSpec.names?.kind);
  }
  immutable('spec.group', spec.group, oldSpec.group);
  immutable('spec.names.plural', spec.names?.plural, oldSpec.names?.plural);
  return errs;
}

export function customResourceDefinitionType(store: Store, boundNames?: BoundNames): ResourceType {
  // Spec writes remember what they replace, so validation can tell a create from an update (the API approval rule
  // and the immutable fields need the old object); status writes are not in here and skip spec validation, as in
  // kube's status strategy.
  const specWrites = new WeakMap<KubeObject, { old?: KubeObject }>();
  const refreshStatus = (obj: KubeObject, ctx: StrategyContext) => {
    if (!wellFormed(obj)) return;
    obj.status = computeCRDStatus(obj, sameGroupCRDs(store, ctx.cluster, obj.spec.group, obj.metadata?.name ?? '', boundNames), nowTimestamp());
  };
  return defineBuiltin({
    group: CRD_GROUP,
    version: 'v1',
    resource: 'customresourcedefinitions',
    singular: 'customresourcedefinition',
    kind: 'CustomResourceDefinition',
    namespaced: false,
    shortNames: ['crd', 'crds'],
    categories: ['api-extensions'],
    subresources: { status: true },
    openapiSchemaName: 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition',
    printer: createdAtPrinter,
    strategy: {
      tracksGeneration: true,
      hasStatusSubresource: true,
      // As kube's CRD strategy: a CRD is replaced only at the revision the writer read.
      allowUnconditionalUpdate: false,
      defaults: (obj) => defaultCRD(obj as CustomResourceDefinition),
      prepareForCreate(obj, ctx) {
        specWrites.set(obj, {});
        const meta = obj.metadata!;
        meta.finalizers = [...new Set([...(meta.finalizers ?? []), CLEANUP_FINALIZER])];
        refreshStatus(obj, ctx);
      },
      prepareForUpdate(obj, old, ctx) {
        specWrites.set(obj, { old });
        refreshStatus(obj, ctx);
      },
      prepareForDelete(obj) {
        const status = (obj.status ?? {}) as NonNullable<CustomResourceDefinition['status']>;
        obj.status = { ...status, conditions: withTerminating(status.conditions ?? [], nowTimestamp()) };
      },
      validate(obj) {
        const write = specWrites.get(obj);
        if (!write) return [];
        const errs = validateCRDSpec(obj as CRDLike, write.old as CRDLike | undefined);
        return write.old ? [...errs, ...immutableFieldErrors(obj, write.old)] : errs;
      },
      warnings(obj) {
        const spec = obj.spec as Partial<CustomResourceDefinition['spec']> | undefined;
        const out: string[] = [];
        if (spec?.conversion?.strategy === 'Webhook') {
          out.push(
            `kcpt does not call conversion webhooks: the versions of ${obj.metadata?.name} are converted as with strategy None (only apiVersion changes)`,
          );
        }
        for (const v of spec?.versions ?? []) {
          const schema = v.schema?.openAPIV3Schema;
          if (!isPlainObject(schema) || !hasRules(schema) || countRules(schema, MAX_RULES_PER_CRD) > MAX_RULES_PER_CRD) continue;
          const skipped = compileSchemaRules(schema as JSONSchemaProps).skipped;
          if (skipped.length === 0) continue;
          const shown = skipped.length > 3 ? `${skipped.slice(0, 3).join(', ')} and ${skipped.length - 3} more` : skipped.join(', ');
          out.push(
            `kcpt does not evaluate some kube CEL library functions: version ${v.name}'s ` +
              `${shown} are stored but not evaluated (such a rule is not enforced; such a messageExpression gives way to the rule's message)`,
          );
        }
        return out;
      },
    },
  });
}
