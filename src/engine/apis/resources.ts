/**
 * The served apis.kcp.io types (every logical cluster, root included) with kcp's admission around the CRD machinery:
 * - APIResourceSchema: a valid CRD spec named `<prefix>.<plural>.<group>`, immutable, and not deletable while an
 *   APIExport of the same workspace names it;
 * - APIExport: `kcp.io/path` kept current, the identity secret reference immutable once set;
 * - APIBinding: `kcp.io/path`, the export reference immutable, verb `bind` on the export required of the user in
 *   the export's workspace, and the finalizer that lets the binding controller remove the bound objects first;
 * - v1alpha1 of APIExport and APIBinding served through conversion.ts from the stored v1alpha2.
 */
import { customResourceTypes } from '../apiextensions/cr-types.js';
import { validateCRDSpec } from '../apiextensions/crd-validation.js';
import { fieldErrors, forbidden, type FieldError } from '../machinery/status.js';
import { jsonEqual } from '../machinery/canonical-json.js';
import type { KubeObject, ResourceType, Strategy, StrategyContext } from '../registry/types.js';
import type { Store } from '../storage/store.js';
import { bindingToV1alpha1, bindingToV1alpha2, exportToV1alpha1, exportToV1alpha2 } from './conversion.js';
import { apisCRD, type APIKind } from './crds.js';
import { APIS_GROUP, BINDING_FINALIZER, BINDINGS, BINDINGS_PREFIX, EXPORT_LABEL, EXPORTS_PREFIX, exportLabelValue, RESOURCE_SCHEMAS } from './names.js';
import { crdForSchema } from './schema-types.js';
import type { APIBinding, APIExport, APIResourceSchema } from './types.js';

export interface APIsAdmissionDeps {
  store: Store;
  /** Canonical path of a logical cluster. */
  pathOf(cluster: string): string | undefined;
  /** Cluster name of a workspace path (or a cluster name). */
  resolvePath(path: string): string | undefined;
  /** Whether RBAC in the export's cluster lets the user `bind` the export (an export elsewhere: as answered ahead). */
  mayBind(user: NonNullable<StrategyContext['user']>, cluster: string, exportName: string): boolean;
  /** Asks the shard hosting an export of another shard whether the user may `bind` it (for `mayBind` to answer). */
  askBind?(user: NonNullable<StrategyContext['user']>, cluster: string, exportName: string): Promise<void>;
  /** Undefined once other shards' exports are copied here; before (this shard just started), a promise of it. */
  untilExportsCopied?(): Promise<void> | undefined;
}

type Hooks = Partial<Strategy>;

/** Chains our hooks after the CRD strategy's own. */
function withHooks(rt: ResourceType, hooks: Hooks): ResourceType {
  const base = rt.strategy;
  return {
    ...rt,
    strategy: {
      ...base,
      prepareForCreate(obj, ctx) {
        base.prepareForCreate?.(obj, ctx);
        hooks.prepareForCreate?.(obj, ctx);
      },
      prepareForUpdate(obj, old, ctx) {
        base.prepareForUpdate?.(obj, old, ctx);
        hooks.prepareForUpdate?.(obj, old, ctx);
      },
      validate(obj, ctx, old) {
        return [...(base.validate?.(obj, ctx, old) ?? []), ...(hooks.validate?.(obj, ctx, old) ?? [])];
      },
      validateUpdate(obj, old, ctx) {
        return [...(base.validateUpdate?.(obj, old, ctx) ?? []), ...(hooks.validateUpdate?.(obj, old, ctx) ?? [])];
      },
      admit: hooks.admit,
      admitAhead: hooks.admitAhead,
      admitDelete: hooks.admitDelete,
    },
  };
}

function typesOf(kind: APIKind): Map<string, ResourceType> {
  return new Map(customResourceTypes(apisCRD(kind)).map((rt) => [rt.version, rt]));
}

function schemaTypes(deps: APIsAdmissionDeps): ResourceType[] {
  const rt = typesOf('apiresourceschemas').get('v1alpha1')!;
  const gr = { group: APIS_GROUP, resource: RESOURCE_SCHEMAS };
  return [
    withHooks(rt, {
      validate(obj) {
        const schema = obj as APIResourceSchema;
        if (!schema.spec?.names || !Array.isArray(schema.spec.versions)) return [];
        const errs: FieldError[] = validateCRDSpec(crdForSchema(schema)).filter((e) => e.field !== 'metadata.name');
        const name = obj.metadata?.name ?? '';
        const suffix = `.${schema.spec.names.plural}.${schema.spec.group || 'core'}`;
        if (!name.endsWith(suffix) || name.length === suffix.length) {
          errs.push(fieldErrors.invalid('metadata.name', name, `must be of the format <prefix>${suffix}`));
        }
        return errs;
      },
      validateUpdate(obj, old) {
        return jsonEqual(obj.spec, old.spec) ? [] : [fieldErrors.invalid('spec', 'object', 'Spec is immutable')];
      },
      admitDelete(obj, ctx) {
        // The server's own deletes (a workspace being deleted) remove exports and schemas together.
        if (!ctx.user) return;
        const name = obj.metadata?.name ?? '';
        const users = deps.store
          .list(`${EXPORTS_PREFIX}${ctx.cluster}/`)
          .items.map((kv) => JSON.parse(kv.value) as APIExport)
          .filter((e) => (e.spec?.resources ?? []).some((r) => r.schema === name))
          .map((e) => e.metadata!.name!);
        if (users.length > 0) {
          throw forbidden(gr, name, `APIResourceSchema is in use by APIExport(s): ${users.sort().join(', ')}`);
        }
      },
    }),
  ];
}

function exportTypes(deps: APIsAdmissionDeps): ResourceType[] {
  const versions = typesOf('apiexports');
  // Their `kcp.io/path` is stamped by the write authority (admission/write-authority.ts), as on every object carrying one.
  const hooks: Hooks = {
    validateUpdate(obj, old) {
      const was = (old as APIExport).spec?.identity?.secretRef;
      const now = (obj as APIExport).spec?.identity?.secretRef;
      if (was?.name && !jsonEqual(was, now)) return [fieldErrors.invalid('spec.identity.secretRef', now ?? null, 'field is immutable')];
      return [];
    },
  };
  const v1 = withHooks(versions.get('v1alpha1')!, hooks);
  v1.convert = { toStorage: exportToV1alpha2, fromStorage: exportToV1alpha1 };
  return [v1, withHooks(versions.get('v1alpha2')!, hooks)];
}

function bindingTypes(deps: APIsAdmissionDeps): ResourceType[] {
  const versions = typesOf('apibindings');
  const gr = { group: APIS_GROUP, resource: BINDINGS };
  /** kcp's mutating admission: the label the export's virtual workspace selects the binding by. */
  const labelExport = (obj: KubeObject, ctx: StrategyContext) => {
    const ref = (obj as APIBinding).spec?.reference?.export;
    const exportCluster = ref?.path ? deps.resolvePath(ref.path) : ctx.cluster;
    if (!ref?.name || !exportCluster) return;
    const meta = obj.metadata!;
    meta.labels = { ...(meta.labels ?? {}), [EXPORT_LABEL]: exportLabelValue(exportCluster, ref.name) };
  };
  const hooks: Hooks = {
    prepareForCreate(obj, ctx) {
      labelExport(obj, ctx);
      const meta = obj.metadata!;
      if (!(meta.finalizers ?? []).includes(BINDING_FINALIZER)) meta.finalizers = [...(meta.finalizers ?? []), BINDING_FINALIZER];
    },
    prepareForUpdate(obj, _old, ctx) {
      labelExport(obj, ctx);
    },
    validateUpdate(obj, old) {
      const was = (old as APIBinding).spec?.reference;
      const now = (obj as APIBinding).spec?.reference;
      return jsonEqual(was, now) ? [] : [fieldErrors.invalid('spec.reference', 'object', 'APIExport reference must not be changed')];
    },
    async admitAhead(obj, ctx) {
      const ref = (obj as APIBinding).spec?.reference?.export;
      if (!ctx.user || ctx.onBehalfOfUser || !ref?.path || !ref.name || !deps.askBind) return;
      // Leaving the spec alone needs no answer (`admit` does not ask): a label change works while the export's shard is down.
      const stored = obj.metadata?.name ? deps.store.get(`${BINDINGS_PREFIX}${ctx.cluster}/${obj.metadata.name}`) : undefined;
      if (stored && jsonEqual((JSON.parse(stored.value) as APIBinding).spec, (obj as APIBinding).spec)) return;
      // Just started: the export may be another shard's, not copied here yet (its path would not resolve).
      const copying = deps.untilExportsCopied?.();
      if (copying) await copying;
      const exportCluster = deps.resolvePath(ref.path);
      if (exportCluster) await deps.askBind(ctx.user, exportCluster, ref.name);
    },
    admit(obj, old, ctx) {
      if (!ctx.user || ctx.onBehalfOfUser) return;
      const binding = obj as APIBinding;
      // Leaving a binding alone (finalizer removal, labels) needs no permission on the export.
      if (old && jsonEqual(binding.spec, (old as APIBinding).spec)) return;
      const ref = binding.spec.reference.export;
      const exportPath = ref.path || deps.pathOf(ctx.cluster) || ctx.cluster;
      const exportCluster = ref.path ? deps.resolvePath(ref.path) : ctx.cluster;
      if (!exportCluster || !deps.mayBind(ctx.user, exportCluster, ref.name)) {
        throw forbidden(gr, obj.metadata?.name ?? '', `unable to create APIBinding: no permission to bind to export ${exportPath}:${ref.name}`);
      }
    },
  };
  const v1 = withHooks(versions.get('v1alpha1')!, hooks);
  v1.convert = { toStorage: bindingToV1alpha2, fromStorage: bindingToV1alpha1 };
  return [v1, withHooks(versions.get('v1alpha2')!, hooks)];
}

/** Every served apis.kcp.io type. */
export function apisResourceTypes(deps: APIsAdmissionDeps): ResourceType[] {
  return [
    ...schemaTypes(deps),
    ...exportTypes(deps),
    ...typesOf('apiexportendpointslices').values(),
    ...bindingTypes(deps),
  ];
}
