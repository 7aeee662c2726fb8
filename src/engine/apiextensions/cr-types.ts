/**
 * Turns an Established CustomResourceDefinition into the ResourceTypes its served versions are served as: one per
 * served version, all sharing the storage key space `<group>/<plural>` and stored in the storage version. Serving
 * another version only rewrites apiVersion (conversion strategy None). The type carries the version's OpenAPI
 * schema for explain, pruning and server-side apply; its strategy validates with ajv and applies schema defaults.
 */
import { storageVersionHash, allVerbs } from '../builtin/define.js';
import { fieldErrors, StatusError } from '../machinery/status.js';
import { OBJECT_META, refTo } from '../machinery/openapi-schemas/helpers.js';
import type { KubeObject, ResourceType, Strategy } from '../registry/types.js';
import { compileCRSchema } from './cr-validator.js';
import { compileSchemaRules, type CompiledRules } from './cel/compile.js';
import { validateRules } from './cel/validate.js';
import { RUNTIME_CEL_COST_BUDGET } from './cel/cost.js';
import { ChangeDetector } from '../machinery/canonical-json.js';
import { validateScaleFields } from './scale.js';
import type { CustomResourceDefinition, CRDVersion } from './crd.js';
import { applyDefaults } from './defaults.js';
import { prune } from './prune.js';
import { compareKubeVersions } from '../registry/catalog.js';
import { printerForColumns } from './printer-columns.js';
import { fieldSelectorsFor } from './selectable-fields.js';
import type { JSONSchemaProps } from './types.js';

/** kube's OpenAPI name for a CR kind: the group reversed, then version and kind (`com.example.v1.Widget`). */
export function crSchemaName(group: string, version: string, kind: string): string {
  return `${group.split('.').reverse().join('.')}.${version}.${kind}`;
}

/**
 * The component kube publishes for a CR version: the CRD schema with apiVersion/kind described, metadata as a
 * reference to ObjectMeta, and the GVK tag kubectl's explain and apply look for.
 */
function publishedSchema(schema: JSONSchemaProps, gvk: { group: string; version: string; kind: string }): Record<string, unknown> {
  const out = structuredClone(schema) as Record<string, unknown>;
  const properties = { ...((out.properties as Record<string, unknown> | undefined) ?? {}) };
  properties.apiVersion = {
    description:
      'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized ' +
      'schemas to the latest internal value, and may reject unrecognized values.',
    type: 'string',
  };
  properties.kind = {
    description:
      'Kind is a string value representing the REST resource this object represents. Servers may infer this from the ' +
      'endpoint the client submits requests to. Cannot be updated. In CamelCase.',
    type: 'string',
  };
  properties.metadata = {
    allOf: [{ $ref: refTo(OBJECT_META) }],
    description: "Standard object's metadata.",
  };
  out.type ??= 'object';
  out.properties = properties;
  out['x-kubernetes-group-version-kind'] = [gvk];
  return out;
}

function terminatingGuard(crd: CustomResourceDefinition): Strategy['prepareForCreate'] {
  return () => {
    if (!crd.metadata?.deletionTimestamp) return;
    // apierrors.NewMethodNotSupported with kube's own message; details carry the group and the plural.
    throw new StatusError(405, 'MethodNotAllowed', 'create not allowed while custom resource definition is terminating', {
      group: crd.spec.group,
      kind: crd.spec.names.plural,
    });
  };
}

/** kube's hasBlockingErr: schema errors after which x-kubernetes-validations are not evaluated. */
const CEL_BLOCKING = new Set(['FieldValueNotSupported', 'FieldValueRequired', 'FieldValueTooLong', 'FieldValueTooMany', 'FieldValueTypeInvalid']);
const RULES_NOT_CHECKED = 'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation';

function strategyFor(crd: CustomResourceDefinition, version: CRDVersion): Strategy {
  const schema = version.schema?.openAPIV3Schema ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  // Compiled on first use: start-up builds the tenancy types from CRDs, and most served versions of most CRDs
  // are never written to in a given run (compiling all of them was a third of kcpt's start-up CPU).
  let compiled: ReturnType<typeof compileCRSchema> | undefined;
  let rules: CompiledRules | undefined;
  const hasStatus = !!version.subresources?.status;
  const scale = version.subresources?.scale;
  return {
    tracksGeneration: true,
    hasStatusSubresource: hasStatus,
    allowUnconditionalUpdate: false,
    defaults: (obj) => applyDefaults(obj, schema),
    prepareForCreate: terminatingGuard(crd),
    validate: (obj: KubeObject, _ctx, old) => {
      const changes = new ChangeDetector();
      const errors = (compiled ??= compileCRSchema(schema)).validate(obj, old, changes);
      // kube's ValidateScaleSpec and ValidateScaleStatus come after the schema's errors.
      errors.push(...validateScaleFields(obj, scale, old));
      rules ??= compileSchemaRules(schema);
      if (!rules.root) return errors;
      // As kube: a value of the wrong type or shape blocks the rules (CEL values are typed by the schema).
      if (errors.some((e) => CEL_BLOCKING.has(e.type))) return [...errors, fieldErrors.invalid('<nil>', null, RULES_NOT_CHECKED)];
      return [...errors, ...validateRules(rules, obj, old, RUNTIME_CEL_COST_BUDGET, changes)];
    },
  };
}

/**
 * kube's warning for a deprecated version: its deprecationWarning, else defaultDeprecationWarning, which points to
 * the most preferred served, non-deprecated version more preferred than this one.
 */
function deprecationWarning(crd: CustomResourceDefinition, version: CRDVersion): string {
  if (version.deprecationWarning !== undefined) return version.deprecationWarning;
  const { group } = crd.spec;
  const kind = crd.spec.names.kind;
  const message = `${group}/${version.name} ${kind} is deprecated`;
  const newer = crd.spec.versions
    .filter((v) => v.served && !v.deprecated && compareKubeVersions(v.name, version.name) < 0)
    .map((v) => v.name)
    .sort(compareKubeVersions);
  return newer.length === 0 ? message : `${message}; use ${group}/${newer[0]} ${kind}`;
}

const PRESERVE_ALL: JSONSchemaProps = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };

function schemaOf(crd: CustomResourceDefinition, versionName: string): JSONSchemaProps {
  return crd.spec.versions.find((v) => v.name === versionName)?.schema?.openAPIV3Schema ?? PRESERVE_ALL;
}

/**
 * How objects go to and come from storage, as kube's CR storage codec does it: objects are stored in the storage
 * version (conversion None only rewrites apiVersion); on the way out they are pruned against the schema of the
 * version they were stored in, converted, then defaulted with the served version's schema, so objects stored before
 * a default (or through another version) read like new ones.
 */
function storageConversion(crd: CustomResourceDefinition, served: string, storage: string, storedAsRead: boolean): NonNullable<ResourceType['convert']> {
  const group = crd.spec.group;
  const servedAPIVersion = `${group}/${served}`;
  const storedAPIVersion = `${group}/${storage}`;
  const servedSchema = schemaOf(crd, served);
  /** Whether reading `obj` changed it (it is changed in place). */
  const read = (obj: KubeObject): boolean => {
    const storedAs = typeof obj.apiVersion === 'string' ? obj.apiVersion.slice(group.length + 1) : storage;
    const pruned = prune(obj, schemaOf(crd, storedAs)).length > 0;
    const converted = obj.apiVersion !== servedAPIVersion;
    obj.apiVersion = servedAPIVersion;
    const defaulted = applyDefaults(obj, servedSchema);
    return pruned || converted || defaulted;
  };
  return {
    storedAsRead: storedAsRead && served === storage,
    toStorage: (obj) => (obj.apiVersion === storedAPIVersion ? obj : { ...obj, apiVersion: storedAPIVersion }),
    fromStorage: (obj) => {
      read(obj);
      return obj;
    },
    // Stored text is JSON.stringify's own output, so an object reading unchanged serializes back to the same text.
    fromStorageText: (json) => {
      const obj = JSON.parse(json) as KubeObject;
      return read(obj) ? JSON.stringify(obj) : json;
    },
  };
}

/**
 * The ResourceTypes an Established CRD serves (none when it is not Established). `storedAsRead`: only for a CRD of
 * kcpt's own whose every writer stores objects as a read gives them back (see ResourceType.convert).
 */
export function customResourceTypes(crd: CustomResourceDefinition, opts: { storedAsRead?: boolean } = {}): ResourceType[] {
  const names = crd.status?.acceptedNames;
  if (!names?.plural || !names.kind) return [];
  const group = crd.spec.group;
  const storage = crd.spec.versions.find((v) => v.storage)?.name ?? crd.spec.versions[0]?.name ?? 'v1';
  const kind = names.kind;
  const types: ResourceType[] = [];
  for (const version of crd.spec.versions) {
    if (!version.served) continue;
    const schemaName = crSchemaName(group, version.name, kind);
    const schema = version.schema?.openAPIV3Schema ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
    const scale = version.subresources?.scale;
    const rt: ResourceType = {
      group,
      version: version.name,
      resource: names.plural,
      singular: names.singular ?? kind.toLowerCase(),
      kind,
      listKind: names.listKind ?? `${kind}List`,
      namespaced: crd.spec.scope === 'Namespaced',
      shortNames: names.shortNames,
      categories: names.categories,
      verbs: allVerbs,
      subresources: {
        ...(version.subresources?.status ? { status: true } : {}),
        ...(scale ? { scale: { ...scale } } : {}),
      },
      strategy: strategyFor(crd, version),
      ...(version.deprecated ? { requestWarnings: [deprecationWarning(crd, version)] } : {}),
      printer: printerForColumns(version.additionalPrinterColumns),
      fieldSelectors: fieldSelectorsFor(version.selectableFields),
      storagePrefix: `${group}/${names.plural}`,
      storageVersion: storage,
      storageVersionHash: storageVersionHash(group, storage, kind),
      openapiSchemaName: schemaName,
      schemas: { [schemaName]: publishedSchema(schema, { group, version: version.name, kind }) },
      isCustomResource: true,
    };
    rt.convert = storageConversion(crd, version.name, storage, opts.storedAsRead === true);
    types.push(rt);
  }
  return types;
}
