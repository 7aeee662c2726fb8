/** Query parameters shared by the verbs, validated with kube's messages. */
import { parse as parseYaml } from 'yaml';
import { badRequest, fieldErrors, invalid } from '../machinery/status.js';
import type { DeleteOptions } from '../registry/generic-store.js';
import { mediaType } from './body.js';

export function parseDryRun(query: URLSearchParams): boolean {
  const values = query.getAll('dryRun');
  if (values.length === 0) return false;
  for (const v of values) {
    if (v !== 'All') {
      throw invalid({ group: 'meta.k8s.io', kind: 'CreateOptions' }, '', [
        fieldErrors.notSupported('dryRun', v, ['All']),
      ]);
    }
  }
  return true;
}

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

export function parseFieldValidation(query: URLSearchParams): FieldValidation {
  const v = query.get('fieldValidation');
  if (v === null || v === '') return 'Warn';
  if (v === 'Strict' || v === 'Warn' || v === 'Ignore') return v;
  throw badRequest(`fieldValidation must be one of "Ignore", "Warn", or "Strict", got ${JSON.stringify(v)}`);
}

export function parseLimit(query: URLSearchParams): number | undefined {
  const v = query.get('limit');
  if (v === null || v === '') return undefined;
  if (!/^\d+$/.test(v)) throw badRequest(`invalid limit ${JSON.stringify(v)}: must be a non-negative integer`);
  return Number(v);
}

export function parseTimeoutSeconds(query: URLSearchParams): number | undefined {
  const v = query.get('timeoutSeconds');
  if (v === null || v === '') return undefined;
  if (!/^\d+$/.test(v)) throw badRequest(`invalid timeoutSeconds ${JSON.stringify(v)}: must be a non-negative integer`);
  return Number(v);
}

/**
 * DeleteOptions from the body (JSON, YAML, or Kubernetes protobuf as client-go's typed clients send it, e.g. Helm's
 * release storage) or from query parameters, as clients send either.
 */
export async function parseDeleteOptions(query: URLSearchParams, contentType: string | undefined, body: Buffer | undefined): Promise<DeleteOptions> {
  const opts: DeleteOptions = {};
  let fromBody: Record<string, unknown> = {};
  if (body && body.length > 0) {
    const type = mediaType(contentType);
    let parsed: unknown;
    try {
      parsed =
        type === 'application/vnd.kubernetes.protobuf'
          ? await decodeProtobufDeleteOptions(body)
          : type.includes('yaml')
            ? parseYaml(body.toString('utf8'), { maxAliasCount: 100 })
            : JSON.parse(body.toString('utf8'));
    } catch (err) {
      throw badRequest(`the DeleteOptions in the request body are not valid: ${(err as Error).message}`);
    }
    if (parsed !== null && (typeof parsed !== 'object' || Array.isArray(parsed))) {
      throw badRequest('the request body must be a DeleteOptions object');
    }
    fromBody = (parsed ?? {}) as Record<string, unknown>;
  }
  const grace = fromBody.gracePeriodSeconds ?? query.get('gracePeriodSeconds') ?? undefined;
  if (grace !== undefined && grace !== null) {
    const n = Number(grace);
    if (!Number.isInteger(n)) throw badRequest(`invalid gracePeriodSeconds ${JSON.stringify(grace)}`);
    opts.gracePeriodSeconds = Math.max(0, n);
  }
  const policy = (fromBody.propagationPolicy as string | undefined) ?? query.get('propagationPolicy') ?? undefined;
  if (policy !== undefined && policy !== null) {
    if (!['Orphan', 'Background', 'Foreground'].includes(policy)) {
      throw invalid({ group: 'meta.k8s.io', kind: 'DeleteOptions' }, '', [
        fieldErrors.notSupported('propagationPolicy', policy, ['Foreground', 'Background', 'Orphan', 'nil']),
      ]);
    }
    opts.propagationPolicy = policy;
  }
  const orphan = fromBody.orphanDependents ?? query.get('orphanDependents') ?? undefined;
  if (orphan !== undefined && orphan !== null) {
    if (orphan !== true && orphan !== false && orphan !== 'true' && orphan !== 'false') {
      throw badRequest(`invalid orphanDependents ${JSON.stringify(orphan)}: must be true or false`);
    }
    if (opts.propagationPolicy !== undefined) {
      throw invalid({ group: 'meta.k8s.io', kind: 'DeleteOptions' }, '', [
        fieldErrors.invalid('propagationPolicy', opts.propagationPolicy, 'orphanDependents and deletionPropagation cannot be both set'),
      ]);
    }
    opts.orphanDependents = orphan === true || orphan === 'true';
  }
  const dry = (fromBody.dryRun as string[] | undefined) ?? query.getAll('dryRun');
  if (Array.isArray(dry) && dry.length > 0) {
    const q = new URLSearchParams();
    for (const d of dry) q.append('dryRun', String(d));
    opts.dryRun = parseDryRun(q);
  }
  const pre = fromBody.preconditions as { uid?: string; resourceVersion?: string } | undefined;
  if (pre && typeof pre === 'object') opts.preconditions = pre;
  return opts;
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
  const sent = query.get('fieldManager') ?? '';
  const problems = validateFieldManager(sent);
  if (problems.length > 0) throw invalid({ group: 'meta.k8s.io', kind: options }, '', problems);
  if (sent) return sent;
  let fromAgent = '';
  for (const ch of (userAgent ?? '').split('/')[0]!) {
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

function isPrintable(ch: string): boolean {
  return !/[\p{C}\p{Z}]/u.test(ch) || ch === ' ';
}

/** The `force` parameter: only for apply patches. */
export function parseForce(query: URLSearchParams): boolean {
  const v = query.get('force');
  if (v === null || v === '' || v === 'false' || v === '0') return false;
  if (v === 'true' || v === '1') return true;
  throw badRequest(`invalid force ${JSON.stringify(v)}: must be true or false`);
}

/** A protobuf DeleteOptions body as kube JSON; the decoder is loaded on first use, as for object bodies. */
async function decodeProtobufDeleteOptions(body: Buffer): Promise<Record<string, unknown>> {
  const { decodeKubeProtobuf } = await import('../machinery/protobuf/index.js');
  const decoded = decodeKubeProtobuf(body);
  if (decoded.kind !== 'DeleteOptions') throw new Error(`expected a DeleteOptions, got ${decoded.apiVersion}, Kind=${decoded.kind}`);
  return decoded.object;
}
