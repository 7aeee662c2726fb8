/** Query parameters shared by the verbs, validated with kube's messages. */
import { jsonValueName, unmarshalTypeError } from '../machinery/go-decode.js';
import { readRequestYaml, YamlBodyError } from '../machinery/request-yaml.js';
import { badRequest, fieldErrors, invalid } from '../machinery/status.js';
import type { DeleteOptions } from '../registry/generic-store.js';
import { isWatchQuery, queryBool, queryInt64, queryString } from '../machinery/query-params.js';
import { mediaType } from './body.js';

/**
 * The dryRun parameter of a write (all its values, as kube reads it): true for `All`, a 422 for anything else.
 * `kind` names the options type in the error, as kube does.
 */
export function parseDryRun(query: URLSearchParams, kind: OptionsKind = 'CreateOptions'): boolean {
  return dryRunOf(query.getAll('dryRun'), kind);
}

function dryRunOf(values: readonly string[], kind: OptionsKind): boolean {
  if (values.length === 0) return false;
  const unsupported = values.find((v) => v !== 'All');
  if (unsupported !== undefined) {
    throw invalid({ group: 'meta.k8s.io', kind }, '', [fieldErrors.notSupported('dryRun', unsupported, ['All'])]);
  }
  return true;
}

type OptionsKind = 'CreateOptions' | 'UpdateOptions' | 'PatchOptions' | 'DeleteOptions';

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

/** fieldValidation, kube's ValidateFieldValidation: empty is the default (Warn), an unknown value a 422. */
export function parseFieldValidation(query: URLSearchParams, kind: OptionsKind = 'CreateOptions'): FieldValidation {
  const v = queryString(query, 'fieldValidation') ?? '';
  if (v === '') return 'Warn';
  if (v === 'Strict' || v === 'Warn' || v === 'Ignore') return v;
  throw invalid({ group: 'meta.k8s.io', kind }, '', [fieldErrors.notSupported('fieldValidation', v, ['', 'Ignore', 'Strict', 'Warn'])]);
}

/** What LIST and WATCH read from the query (kube's ListOptions), decoded in kube's field order. */
export interface ListOptionsQuery {
  labelSelector?: string;
  fieldSelector?: string;
  watch: boolean;
  allowWatchBookmarks: boolean;
  resourceVersion?: string;
  resourceVersionMatch?: string;
  /** As sent: a negative value ends a watch at once, as in kube; callers bound long ones (see longTimer). */
  timeoutSeconds?: number;
  /** Positive, at most Number.MAX_SAFE_INTEGER; absent when unset, zero or negative (kube: no limit). */
  limit?: number;
  continueToken?: string;
  sendInitialEvents?: boolean;
}

export function parseListOptions(query: URLSearchParams): ListOptionsQuery {
  const timeoutSeconds = queryInt64(query, 'timeoutSeconds');
  const limit = queryInt64(query, 'limit');
  return {
    labelSelector: queryString(query, 'labelSelector'),
    fieldSelector: queryString(query, 'fieldSelector'),
    watch: isWatchQuery(query),
    allowWatchBookmarks: queryBool(query, 'allowWatchBookmarks') ?? false,
    resourceVersion: queryString(query, 'resourceVersion'),
    resourceVersionMatch: queryString(query, 'resourceVersionMatch'),
    timeoutSeconds,
    // A limit larger than any store is no limit; kube's storage takes every int64.
    limit: limit !== undefined && limit > 0 ? Math.min(limit, Number.MAX_SAFE_INTEGER) : undefined,
    continueToken: queryString(query, 'continue'),
    sendInitialEvents: queryBool(query, 'sendInitialEvents'),
  };
}

/**
 * DeleteOptions as kube reads them: from the body when there is one (JSON or YAML), else from the query
 * (gracePeriodSeconds, orphanDependents, propagationPolicy, dryRun, and preconditions from uid/resourceVersion);
 * then kube's ValidateDeleteOptions.
 */
export function parseDeleteOptions(query: URLSearchParams, contentType: string | undefined, body: Buffer | undefined): DeleteOptions {
  const sent = body && body.length > 0 ? deleteOptionsFromBody(contentType, body) : deleteOptionsFromQuery(query);
  const opts: DeleteOptions = {};
  const errors = [];
  if (sent.orphanDependents !== undefined && sent.propagationPolicy !== undefined) {
    errors.push(fieldErrors.invalid('propagationPolicy', sent.propagationPolicy, 'orphanDependents and deletionPropagation cannot be both set'));
  }
  if (sent.propagationPolicy !== undefined && !['Foreground', 'Background', 'Orphan'].includes(sent.propagationPolicy)) {
    errors.push(fieldErrors.notSupported('propagationPolicy', sent.propagationPolicy, ['Foreground', 'Background', 'Orphan', 'nil']));
  }
  const badDryRun = sent.dryRun.find((v) => v !== 'All');
  if (badDryRun !== undefined) errors.push(fieldErrors.notSupported('dryRun', badDryRun, ['All']));
  if (errors.length > 0) throw invalid({ group: 'meta.k8s.io', kind: 'DeleteOptions' }, '', errors);
  // Negative grace periods count as 1 s in kube; no kind here deletes gracefully, so only the sign matters.
  if (sent.gracePeriodSeconds !== undefined) opts.gracePeriodSeconds = Math.max(0, sent.gracePeriodSeconds);
  if (sent.propagationPolicy !== undefined) opts.propagationPolicy = sent.propagationPolicy;
  if (sent.orphanDependents !== undefined) opts.orphanDependents = sent.orphanDependents;
  if (sent.dryRun.length > 0) opts.dryRun = true;
  if (sent.preconditions) opts.preconditions = sent.preconditions;
  return opts;
}

interface SentDeleteOptions {
  gracePeriodSeconds?: number;
  orphanDependents?: boolean;
  propagationPolicy?: string;
  dryRun: string[];
  preconditions?: { uid?: string; resourceVersion?: string };
}

function deleteOptionsFromQuery(query: URLSearchParams): SentDeleteOptions {
  const sent: SentDeleteOptions = {
    gracePeriodSeconds: queryInt64(query, 'gracePeriodSeconds'),
    orphanDependents: queryBool(query, 'orphanDependents'),
    propagationPolicy: queryString(query, 'propagationPolicy'),
    dryRun: query.getAll('dryRun'),
  };
  const uid = queryString(query, 'uid');
  const resourceVersion = queryString(query, 'resourceVersion');
  if (uid || resourceVersion) sent.preconditions = { ...(uid ? { uid } : {}), ...(resourceVersion ? { resourceVersion } : {}) };
  return sent;
}

function deleteOptionsFromBody(contentType: string | undefined, body: Buffer): SentDeleteOptions {
  const type = mediaType(contentType);
  let parsed: unknown;
  const text = body.toString('utf8');
  try {
    parsed = type.includes('yaml') ? readRequestYaml(text, { duplicateKeys: 'refuse' }) : JSON.parse(text);
  } catch (err) {
    if (!(err instanceof YamlBodyError || err instanceof SyntaxError)) throw err;
    throw badRequest(`the DeleteOptions in the request body are not valid: ${err.message}`);
  }
  if (parsed !== null && (typeof parsed !== 'object' || Array.isArray(parsed))) {
    throw badRequest('the request body must be a DeleteOptions object');
  }
  const o = (parsed ?? {}) as Record<string, unknown>;
  const field = <T>(name: string, goType: string, ok: (v: unknown) => boolean): T | undefined => {
    if (!Object.hasOwn(o, name) || o[name] === null) return undefined;
    if (!ok(o[name])) {
      throw badRequest(unmarshalTypeError(jsonValueName(o[name]), 'DeleteOptions', name, goType));
    }
    return o[name] as T;
  };
  const isInt64 = (v: unknown) => typeof v === 'number' && Number.isInteger(v);
  const pre = field<{ uid?: unknown; resourceVersion?: unknown }>('preconditions', 'v1.Preconditions', (v) => typeof v === 'object' && !Array.isArray(v));
  return {
    gracePeriodSeconds: field<number>('gracePeriodSeconds', 'int64', isInt64),
    orphanDependents: field<boolean>('orphanDependents', 'bool', (v) => typeof v === 'boolean'),
    propagationPolicy: field<string>('propagationPolicy', 'v1.DeletionPropagation', (v) => typeof v === 'string'),
    dryRun: field<string[]>('dryRun', '[]string', (v) => Array.isArray(v) && v.every((x) => typeof x === 'string')) ?? [],
    preconditions: pre
      ? {
          ...(typeof pre.uid === 'string' ? { uid: pre.uid } : {}),
          ...(typeof pre.resourceVersion === 'string' ? { resourceVersion: pre.resourceVersion } : {}),
        }
      : undefined,
  };
}

/** Longest fieldManager kube accepts. */
export const FIELD_MANAGER_MAX_LENGTH = 128;

/**
 * The manager a write is recorded under: the `fieldManager` parameter, or else the User-Agent up to its first `/`
 * (kube's default, so `kubectl/v1.32 …` becomes `kubectl`). The parameter must be at most 128 printable characters.
 */
export function writeFieldManager(
  query: URLSearchParams,
  userAgent: string | undefined,
  options: 'CreateOptions' | 'UpdateOptions' | 'PatchOptions',
): string {
  const sent = queryString(query, 'fieldManager') ?? '';
  const problems = validateFieldManager(sent);
  if (problems.length > 0) throw invalid({ group: 'meta.k8s.io', kind: options }, '', problems);
  if (sent) return sent;
  const agent = (userAgent ?? '').split('/')[0]!;
  // The common agent (`kubectl`, `Go-http-client`, …): printable ASCII that fits, taken as it is; anything else is
  // cut character by character below.
  if (agent.length <= FIELD_MANAGER_MAX_LENGTH && isPrintableAscii(agent)) return agent;
  let fromAgent = '';
  for (const ch of agent) {
    if (!isPrintable(ch)) continue;
    if (Buffer.byteLength(fromAgent + ch) > FIELD_MANAGER_MAX_LENGTH) break;
    fromAgent += ch;
  }
  return fromAgent;
}

function validateFieldManager(manager: string) {
  const problems = [];
  if (Buffer.byteLength(manager) > FIELD_MANAGER_MAX_LENGTH) problems.push(fieldErrors.tooLong('fieldManager', FIELD_MANAGER_MAX_LENGTH));
  let position = 0;
  for (const ch of manager) {
    if (!isPrintable(ch)) {
      const code = `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
      problems.push(fieldErrors.invalid('fieldManager', manager, `invalid character ${code} (at position ${position})`));
    }
    position += Buffer.byteLength(ch);
  }
  return problems;
}

/** Every character in U+0020–U+007E: what isPrintable accepts of ASCII (its byte length is its length). */
function isPrintableAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c > 0x7e) return false;
  }
  return true;
}

function isPrintable(ch: string): boolean {
  return !/[\p{C}\p{Z}]/u.test(ch) || ch === ' ';
}

/** The `force` parameter of an apply patch (kube: a *bool, true unless `0`/`false`). */
export function parseForce(query: URLSearchParams): boolean {
  return queryBool(query, 'force') ?? false;
}
