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
  type CustomResourceDefinition,
  withTerminating,
} from './crd.js';
import { validateCRDSpec, type CRDLike } from './structural.js';

export function crdKeyPrefix(cluster: string): string {
  return `/registry/${CRD_GROUP}/customresourcedefinitions/${cluster}/`;
}

/** The other CRDs of `group` in one logical cluster, read from storage. */
export function sameGroupCRDs(store: Store, cluster: string, group: string, exceptName: string): CustomResourceDefinition[] {
  const out: CustomResourceDefinition[] = [];
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

export function customResourceDefinitionType(store: Store): ResourceType {
  const refreshStatus = (obj: KubeObject, ctx: StrategyContext) => {
    if (!wellFormed(obj)) return;
    obj.status = computeCRDStatus(obj, sameGroupCRDs(store, ctx.cluster, obj.spec.group, obj.metadata?.name ?? ''), nowTimestamp());
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
      allowUnconditionalUpdate: true,
      defaults: (obj) => defaultCRD(obj as CustomResourceDefinition),
      prepareForCreate(obj, ctx) {
        const meta = obj.metadata!;
        meta.finalizers = [...new Set([...(meta.finalizers ?? []), CLEANUP_FINALIZER])];
        refreshStatus(obj, ctx);
      },
      prepareForUpdate: (obj, _old, ctx) => refreshStatus(obj, ctx),
      prepareForDelete(obj) {
        const status = (obj.status ?? {}) as NonNullable<CustomResourceDefinition['status']>;
        obj.status = { ...status, conditions: withTerminating(status.conditions ?? [], nowTimestamp()) };
      },
      validate: (obj) => validateCRDSpec(obj as CRDLike),
      warnings(obj) {
        const spec = obj.spec as Partial<CustomResourceDefinition['spec']> | undefined;
        if (spec?.conversion?.strategy !== 'Webhook') return [];
        return [
          `kcpt does not call conversion webhooks: the versions of ${obj.metadata?.name} are converted as with strategy None (only apiVersion changes)`,
        ];
      },
      validateUpdate(obj, old) {
        const errs: FieldError[] = [];
        const spec = (obj.spec ?? {}) as Partial<CustomResourceDefinition['spec']>;
        const oldSpec = (old.spec ?? {}) as Partial<CustomResourceDefinition['spec']>;
        if (spec.group !== oldSpec.group) errs.push(fieldErrors.invalid('spec.group', spec.group, 'field is immutable'));
        if (spec.scope !== oldSpec.scope) errs.push(fieldErrors.invalid('spec.scope', spec.scope, 'field is immutable'));
        return errs;
      },
    },
  });
}
