/**
 * Server-side apply: `PATCH` with `application/apply-patch+yaml` (YAML or JSON). Creates the object when it does
 * not exist (201), otherwise merges the configuration as its field manager (200). Request-level checks and their
 * messages are kube-apiserver's.
 */
import { nestingTooDeep } from '../machinery/nesting-depth.js';
import { decodeBuiltin } from '../machinery/unknown-fields.js';
import { schemasOf } from '../registry/schemas.js';
import { readRequestYaml, YamlBodyError } from '../machinery/request-yaml.js';
import { ApplyConflictError, UndeclaredFieldsError } from '../machinery/ssa/apply.js';
import { conflictStatus } from '../machinery/ssa/conflict-status.js';
import { badRequest, fieldErrors, invalid, notFound } from '../machinery/status.js';
import type { OpContext } from '../registry/generic-store.js';
import { apiVersionOf, type KubeObject, type ResourceType } from '../registry/types.js';
import { queryString } from '../machinery/query-params.js';
import { parseDryRun, parseFieldValidation, parseForce, writeFieldManager } from './query.js';
import type { ApiRequest, ResourceServices } from './request.js';

export interface ApplyOutcome {
  object: KubeObject;
  created: boolean;
  warnings: string[];
}

export function serverSideApply(svc: ResourceServices, req: ApiRequest, rt: ResourceType, ctx: OpContext): ApplyOutcome {
  if (!queryString(req.query, 'fieldManager')) {
    throw invalid({ group: 'meta.k8s.io', kind: 'PatchOptions' }, '', [fieldErrors.required('fieldManager', 'is required for apply patch')]);
  }
  const manager = writeFieldManager(req.query, undefined, 'PatchOptions');
  const force = parseForce(req.query);
  const warnings: string[] = [];
  const config = decodeConfig(req.body, parseFieldValidation(req.query, 'PatchOptions'), warnings);
  checkConfig(rt, config, req.info.name);
  const undeclared = svc.generic.fields.undeclaredFields(rt, config);
  if (undeclared.length > 0) {
    const gvk = `${apiVersionOf(rt).includes('/') ? apiVersionOf(rt) : `/${apiVersionOf(rt)}`}, Kind=${rt.kind}`;
    const where = `${config.metadata?.namespace ?? ''}/${config.metadata?.name ?? ''}`;
    throw badRequest(`failed to create typed patch object (${where}; ${gvk}): ${new UndeclaredFieldsError(undeclared).message}`);
  }
  decodeAppliedBuiltin(rt, config);

  const name = req.info.name;
  const subresource = req.info.subresource || undefined;
  const dryRun = parseDryRun(req.query, 'PatchOptions');
  const current = svc.store.get(svc.generic.key(ctx, name));
  try {
    if (!current) {
      if (subresource) throw notFound(rt, name);
      const merged = svc.generic.fields.apply(rt, undefined, { ...config, metadata: { ...config.metadata, name } }, { manager, force });
      return { object: svc.generic.create(ctx, merged, { dryRun, fieldsApplied: true }), created: true, warnings };
    }
    const live = svc.generic.get(ctx, name);
    const merged = svc.generic.fields.apply(rt, live, config, { manager, force, subresource });
    const object = svc.generic.update(ctx, name, merged, { dryRun, subresource, fieldsApplied: true }, current.revision);
    return { object, created: false, warnings };
  } catch (err) {
    if (err instanceof ApplyConflictError) throw conflictStatus(err.conflicts);
    throw err;
  }
}

/**
 * A built-in's applied configuration as kube's conversion of the merged object into its Go type leaves it: null
 * elements of scalar maps and lists become zero values (`labels: {a: null}` is `a: ""`). Structured-merge-diff has
 * already refused what does not fit the schema, so the decode walk's own findings are not reported again.
 */
function decodeAppliedBuiltin(rt: ResourceType, config: KubeObject): void {
  const schemas = schemasOf(rt);
  const name = rt.openapiSchemaName;
  const schema = name ? schemas[name] : undefined;
  // Null fields are left to the merge (a null in an applied configuration is the merge's business, not decoding's).
  if (!rt.isCustomResource && schema) decodeBuiltin(config, schema, schemas, name!.slice(name!.lastIndexOf('.') + 1), { nullFields: false });
}

/** The configuration an apply request carries (for admission that must look ahead; errors are reported by the apply). */
export function applyConfiguration(body: Buffer | undefined): KubeObject {
  try {
    return decodeConfig(body, 'Ignore', []);
  } catch {
    return {};
  }
}

/** The configuration: a JSON object, or YAML. */
function decodeConfig(body: Buffer | undefined, validation: string, warnings: string[]): KubeObject {
  const text = (body ?? Buffer.alloc(0)).toString('utf8');
  if (text.trim() === '') throw badRequest('error decoding YAML: the apply patch is empty');
  const value = jsonConfig(text) ?? yamlConfig(text, validation, warnings);
  const tooDeep = nestingTooDeep(value);
  if (tooDeep) throw badRequest(`error decoding YAML: ${tooDeep}`);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw badRequest('error decoding YAML: an apply patch must be an object');
  }
  const config = value as KubeObject;
  if (config.metadata !== undefined && (config.metadata === null || typeof config.metadata !== 'object' || Array.isArray(config.metadata))) {
    throw badRequest('error decoding YAML: metadata must be an object');
  }
  return config;
}

/**
 * A configuration sent as a JSON object (kubectl and the client libraries send JSON under the apply content type),
 * read by the native parser: composing it as YAML took ~4 s for a 1 MB object (a large CRD applied server-side),
 * ~15 ms this way. Duplicate keys in JSON are read as a JSON create's body is (the last one wins). Undefined when
 * the text is not a JSON object: YAML's reading, and its messages, then apply.
 */
function jsonConfig(text: string): unknown {
  if (!/^\s*\{/.test(text)) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * YAML text: duplicate keys fail under Strict and warn under Warn, as kube's decoder does (the last one wins when
 * they do not fail). A malformed document is reported as such before its duplicate keys are.
 */
function yamlConfig(text: string, validation: string, warnings: string[]): unknown {
  if (validation === 'Ignore') return decodeYaml(text, 'last-wins');
  try {
    return decodeYaml(text, 'refuse');
  } catch (err) {
    if (!(err instanceof YamlBodyError && err.duplicateKey)) throw err;
    const value = decodeYaml(text, 'last-wins');
    const message = `error strict decoding YAML: ${err.message}`;
    if (validation === 'Strict') throw badRequest(message);
    warnings.push(message);
    return value;
  }
}

function decodeYaml(text: string, duplicateKeys: 'last-wins' | 'refuse'): unknown {
  try {
    return readRequestYaml(text, { duplicateKeys });
  } catch (err) {
    if (err instanceof YamlBodyError && !(duplicateKeys === 'refuse' && err.duplicateKey)) throw badRequest(`error decoding YAML: ${err.message}`);
    throw err;
  }
}

function checkConfig(rt: ResourceType, config: KubeObject, urlName: string): void {
  const expected = apiVersionOf(rt);
  if (config.apiVersion !== expected) {
    throw badRequest(
      `Incorrect version specified in apply patch. Specified patch version: ${config.apiVersion ?? ''}, expected: ${expected}`,
    );
  }
  if (config.kind !== rt.kind) {
    throw badRequest(
      config.kind === undefined || config.kind === ''
        ? `Object 'Kind' is missing in apply patch`
        : `the kind in the apply patch (${String(config.kind)}) does not match the expected kind (${rt.kind})`,
    );
  }
  if (config.metadata?.managedFields !== undefined) throw badRequest('metadata.managedFields must be nil');
  const name = config.metadata?.name;
  if (name !== undefined && name !== urlName) {
    throw badRequest(`the name of the object (${String(name)}) does not match the name on the URL (${urlName})`);
  }
}
