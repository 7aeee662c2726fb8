/**
 * Decoder for Kubernetes protobuf request bodies (`Content-Type: application/vnd.kubernetes.protobuf`), which
 * kubectl 1.32 sends for every typed-client command (`create configmap`, `auth can-i`, `auth whoami`, …) and
 * client-go's generated clientsets send by default since v0.35 (CRDs, Events, …), never falling back to JSON.
 * Layout: the 4 magic bytes `k8s\0`, then a runtime.Unknown whose `raw` holds the object's own message. The result
 * is the JSON object a JSON client would have sent for the same command.
 */
import protobufjs from 'protobufjs';
import { ConversionError, messageToJson } from './convert.js';
import { buildSchema, type BuiltSchema, type PackageDefs } from './schema.js';

export const KUBE_PROTOBUF_CONTENT_TYPE = 'application/vnd.kubernetes.protobuf';
const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]); // "k8s\0"

export type ProtobufDecodeFailure =
  /** Not a Kubernetes protobuf body at all: bad magic, undecodable envelope, missing type information. */
  | 'InvalidEnvelope'
  /** A valid envelope for a kind this server has no protobuf schema for (it may still accept it as JSON). */
  | 'UnsupportedKind'
  /** The envelope names a supported kind but its object bytes are malformed. */
  | 'InvalidObject';

/** The only error decodeKubeProtobuf throws. Callers usually answer 400 BadRequest (415 for UnsupportedKind). */
export class ProtobufDecodeError extends Error {
  constructor(
    readonly reason: ProtobufDecodeFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ProtobufDecodeError';
  }
}

export interface DecodedKubeObject {
  apiVersion: string;
  kind: string;
  /** The object in kube JSON form, with apiVersion and kind set. */
  object: Record<string, unknown>;
}

/** The protobufjs Root and kind table of a set of packages, plus the envelope message. */
export type DecodeSchema = BuiltSchema & { unknown: protobufjs.Type };

export function decodeSchema(packages: readonly PackageDefs[]): DecodeSchema {
  const built = buildSchema(packages);
  return { ...built, unknown: built.root.lookupType('.runtime.Unknown') };
}

// client-go encodes DeleteOptions in the group-version of the resource being deleted (it is registered in all).
const GROUP_VERSION_RE = /^(?:[a-z0-9](?:[-a-z0-9.]{0,251}[a-z0-9])?\/)?v[0-9]+(?:(?:alpha|beta)[0-9]+)?$/;

/** Quote untrusted envelope strings for error messages: bounded length, no control characters. */
function show(s: string): string {
  const cut = s.length > 80 ? `${s.slice(0, 80)}…` : s;
  return /[\x00-\x1f\x7f]/.test(cut) ? JSON.stringify(cut) : cut;
}

function gvk(apiVersion: string, kind: string): string {
  return `${show(apiVersion)}, Kind=${show(kind)}`;
}

/** protobufjs reports "index out of range: 12 + 5 > 15" and the like; say what it means for the sender. */
function why(e: unknown): string {
  if (e instanceof RangeError && /call stack/i.test(e.message)) return 'malformed bytes (nesting too deep)';
  return `malformed or truncated bytes (${e instanceof Error ? e.message : String(e)})`;
}

/**
 * Decode a Kubernetes protobuf request body into kube JSON. Throws ProtobufDecodeError and nothing else; the work
 * and memory are bounded by the body size (byte fields are views into `body`).
 */
export function decodeKubeProtobuf(s: DecodeSchema, body: Buffer | Uint8Array): DecodedKubeObject {
  if (!(body instanceof Uint8Array)) throw new ProtobufDecodeError('InvalidEnvelope', 'invalid protobuf envelope: body is not bytes');
  if (body.length < MAGIC.length || !MAGIC.equals(body.subarray(0, MAGIC.length))) {
    throw new ProtobufDecodeError(
      'InvalidEnvelope',
      `invalid protobuf envelope: body does not start with the Kubernetes protobuf magic "k8s\\x00" (Content-Type ${KUBE_PROTOBUF_CONTENT_TYPE} needs it)`,
    );
  }
  let unknown: Record<string, unknown>;
  try {
    unknown = s.unknown.decode(body.subarray(MAGIC.length)) as unknown as Record<string, unknown>;
  } catch (e) {
    throw new ProtobufDecodeError('InvalidEnvelope', `invalid protobuf envelope: ${why(e)}`, { cause: e });
  }
  const typeMeta = (unknown.typeMeta ?? {}) as Record<string, unknown>;
  const apiVersion = typeof typeMeta.apiVersion === 'string' ? typeMeta.apiVersion : '';
  const kind = typeof typeMeta.kind === 'string' ? typeMeta.kind : '';
  if (!apiVersion || !kind) {
    throw new ProtobufDecodeError('InvalidEnvelope', 'invalid protobuf envelope: typeMeta.apiVersion and typeMeta.kind must be set');
  }
  const contentEncoding = String(unknown.contentEncoding ?? '');
  if (contentEncoding !== '') {
    throw new ProtobufDecodeError('InvalidEnvelope', `invalid protobuf envelope: unsupported contentEncoding ${show(contentEncoding)}`);
  }
  const contentType = String(unknown.contentType ?? '');
  if (contentType !== '' && contentType !== KUBE_PROTOBUF_CONTENT_TYPE) {
    throw new ProtobufDecodeError('InvalidEnvelope', `invalid protobuf envelope: unsupported contentType ${show(contentType)}`);
  }

  const typeName =
    s.kinds.get(`${apiVersion}|${kind}`) ??
    (kind === 'DeleteOptions' && GROUP_VERSION_RE.test(apiVersion) ? 'meta.v1.DeleteOptions' : undefined);
  if (!typeName) {
    throw new ProtobufDecodeError(
      'UnsupportedKind',
      `unsupported protobuf kind ${gvk(apiVersion, kind)}; send it as application/json instead`,
    );
  }
  const type = s.root.lookupType(`.${typeName}`);
  const raw = unknown.raw instanceof Uint8Array ? unknown.raw : new Uint8Array(0);
  let object: Record<string, unknown>;
  try {
    const msg = type.decode(raw) as unknown as Record<string, unknown>;
    object = messageToJson(type, msg, s.fieldMeta, '');
  } catch (e) {
    const detail = e instanceof ConversionError ? e.message : why(e);
    throw new ProtobufDecodeError('InvalidObject', `invalid protobuf ${gvk(apiVersion, kind)} object: ${detail}`, { cause: e });
  }
  // Every object kind has metadata; kube's JSON always carries it (`"metadata": {}` at minimum).
  const head: Record<string, unknown> = { apiVersion, kind };
  if (type.fields.metadata) head.metadata = object.metadata ?? {};
  return { apiVersion, kind, object: { ...head, ...object } };
}

/** The kinds decodeKubeProtobuf understands, as `<apiVersion>, Kind=<Kind>` (DeleteOptions: any group-version). */
export function supportedProtobufKinds(s: DecodeSchema): string[] {
  return [...s.kinds.keys()].map((k) => k.replace('|', ', Kind=')).sort();
}
