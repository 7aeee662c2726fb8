/**
 * List continue tokens in k8s.io/apiserver's format (pkg/storage/continue.go): unpadded base64url of
 * `{"v":"meta.k8s.io/v1","rv":<list revision>,"start":"<key after the list prefix>"}`. Clients treat them as
 * opaque, but matching the format keeps tokens readable with the usual tools and errors worded as kube words them.
 */
import { badRequest, gone, type StatusError } from './status.js';
import { jsonValueName, unmarshalTypeError } from './go-decode.js';
import { goJsonSyntaxError } from './go-json-syntax.js';

export interface ContinueToken {
  /** The revision of the snapshot the first page was read at. */
  rv: number;
  /** Where the next page starts, relative to the list's key prefix. */
  start: string;
}

const VERSION = 'meta.k8s.io/v1';
const INVALID = 'continue key is not valid';

/** Go's json.Marshal escapes these for safe embedding in HTML; mirrored so tokens are byte-identical. */
function goJson(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

export function encodeContinue(rv: number, start: string): string {
  const json = `{"v":${goJson(VERSION)},"rv":${Math.trunc(rv)},"start":${goJson(start)}}`;
  return Buffer.from(json, 'utf8').toString('base64url');
}

function invalidToken(detail: string): StatusError {
  return badRequest(`invalid continue token: ${detail}`);
}

/** base64.RawURLEncoding.DecodeString: no padding, URL alphabet; errors name the offending byte. */
function decodeBase64(token: string): Buffer {
  const bad = token.search(/[^A-Za-z0-9_-]/);
  if (bad >= 0) throw invalidToken(`${INVALID}: illegal base64 data at input byte ${bad}`);
  if (token.length % 4 === 1) throw invalidToken(`${INVALID}: illegal base64 data at input byte ${token.length - 1}`);
  return Buffer.from(token, 'base64url');
}

/** Go's path.Clean for a rooted path. */
function cleanRooted(p: string): string {
  const out: string[] = [];
  for (const part of p.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') out.pop();
    else out.push(part);
  }
  return `/${out.join('/')}`;
}

/**
 * Decode `?continue=`. Malformed tokens are 400 BadRequest `invalid continue token: continue key is not valid…`,
 * as the etcd3 store reports them. Traversal outside the list prefix (`../`) is rejected as kube does.
 */
export function decodeContinue(token: string): ContinueToken {
  const bytes = decodeBase64(token);
  const syntax = goJsonSyntaxError(bytes);
  if (syntax) throw invalidToken(`${INVALID}: ${syntax}`);
  const parsed: unknown = JSON.parse(bytes.toString('utf8'));
  const kind = jsonValueName(parsed);
  if (kind !== 'object' && kind !== 'null') {
    throw invalidToken(`${INVALID}: ${unmarshalTypeError(kind, '', '', 'storage.continueToken')}`);
  }
  // JSON null leaves Go's struct at its zero value (then refused for its empty version).
  const obj = (parsed ?? {}) as Record<string, unknown>;
  const expect = (field: string, type: 'string' | 'int64', ok: boolean) => {
    if (!ok) {
      throw invalidToken(`${INVALID}: ${unmarshalTypeError(jsonValueName(obj[field]), 'continueToken', field, type)}`);
    }
  };
  const { v = '', rv = 0, start = '' } = obj;
  expect('v', 'string', typeof v === 'string' || v === null);
  expect('rv', 'int64', (typeof rv === 'number' && Number.isInteger(rv)) || rv === null);
  expect('start', 'string', typeof start === 'string' || start === null);
  const version = (v ?? '') as string;
  const revision = (rv ?? 0) as number;
  const startKey = (start ?? '') as string;
  if (version !== VERSION) {
    throw invalidToken(`${INVALID}: server does not recognize this encoded version ${version}`);
  }
  // Beyond what a revision can be (negative, or past 2^53): the store could not read at it.
  if (revision === 0 || revision < 0 || !Number.isSafeInteger(revision)) throw invalidToken(`${INVALID}: incorrect encoded start resourceVersion (version meta.k8s.io/v1)`);
  if (startKey === '') throw invalidToken(`${INVALID}: encoded start key empty (version meta.k8s.io/v1)`);
  const rooted = startKey.startsWith('/') ? startKey : `/${startKey}`;
  if (cleanRooted(rooted) !== rooted) throw invalidToken(`${INVALID}: ${startKey}`);
  return { rv: revision, start: rooted.slice(1) };
}

/** `?continue=` together with a resourceVersion other than "" or "0". */
export function continueWithResourceVersion(): StatusError {
  return badRequest('specifying resource version is not allowed when using continue');
}

export const CONTINUE_EXPIRED_MESSAGE =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list ' +
  'without the continue parameter.';

export const INCONSISTENT_CONTINUE_MESSAGE =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list ' +
  'without the continue parameter, or use the continue token in this response to retrieve the remainder of the ' +
  'results. Continuing with the provided token results in an inconsistent list - objects that were created, ' +
  'modified, or deleted between the time the first chunk was returned and now may show up in the list.';

/**
 * 410 Expired for a token whose snapshot was compacted. Kube also puts an "inconsistent" token in the Status's
 * metadata.continue when it offers one; that is up to the caller, since StatusError carries no list metadata.
 */
export function continueExpired(offersInconsistentToken = false): StatusError {
  return gone(offersInconsistentToken ? INCONSISTENT_CONTINUE_MESSAGE : CONTINUE_EXPIRED_MESSAGE);
}
