/**
 * Request bodies: JSON, YAML and Kubernetes protobuf for create/update; the patch types for PATCH. Anything else
 * is a 415 with kube's message. Malformed bodies are 400s that say what is wrong; nothing gets near storage.
 */
import { jsonDuplicateKeys, type DuplicateKeys } from '../machinery/json-duplicate-keys.js';
import { jsonNumberLiterals, type NumberLiterals } from '../machinery/json-number-literals.js';
import { MAX_NESTING_DEPTH, nestingTooDeep } from '../machinery/nesting-depth.js';
import { readRequestYaml, YamlBodyError } from '../machinery/request-yaml.js';
import { badRequest, unsupportedMediaType } from '../machinery/status.js';
import type { KubeObject } from '../registry/types.js';

export const objectMediaTypes = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'];

export function mediaType(contentType: string | undefined): string {
  // The header nearly every body comes with is its own media type: nothing to split, trim or lower-case.
  if (contentType === 'application/json') return contentType;
  return (contentType ?? '').split(';')[0].trim().toLowerCase();
}

/** The text of each JSON body decoded here: its numbers' texts are read from it when a number meets an int field. */
const textOfBody = new WeakMap<KubeObject, string>();
const literalsOfBody = new WeakMap<KubeObject, NumberLiterals | undefined>();

/** The number texts JSON.parse altered in a JSON body decoded here (`1.0`), found on first asking. */
export function numberLiteralsOf(obj: KubeObject): NumberLiterals | undefined {
  if (!literalsOfBody.has(obj)) {
    const text = textOfBody.get(obj);
    literalsOfBody.set(obj, text === undefined ? undefined : jsonNumberLiterals(text, obj));
  }
  return literalsOfBody.get(obj);
}

/** The keys each JSON body decoded here repeats, for the strict decoding problems and Go's merge. */
const duplicatesOfBody = new WeakMap<KubeObject, DuplicateKeys>();

export function duplicateKeysOf(obj: KubeObject): DuplicateKeys | undefined {
  return duplicatesOfBody.get(obj);
}

/** Decode a create/update body into an object. */
export async function decodeObjectBody(contentType: string | undefined, body: Buffer | undefined): Promise<KubeObject> {
  const type = mediaType(contentType);
  const raw = body ?? Buffer.alloc(0);
  if (raw.length === 0) throw badRequest('the body of the request is empty; send the object to create or update');
  switch (type) {
    case 'application/json':
    case '': {
      const text = raw.toString('utf8');
      const obj = asObject(parseJson(text));
      textOfBody.set(obj, text);
      const duplicates = jsonDuplicateKeys(text, obj);
      if (duplicates) duplicatesOfBody.set(obj, duplicates);
      return obj;
    }
    // kube-apiserver's only YAML media type: `text/yaml` or `application/x-yaml` are 415 there, so they are here.
    case 'application/yaml':
      return asObject(parseYamlText(raw.toString('utf8')));
    case 'application/vnd.kubernetes.protobuf': {
      // Loaded on first use: most clients send JSON, and the decoder's schemas cost start-up time.
      const [{ kubeProtobuf }, { ProtobufDecodeError }] = await Promise.all([
        import('../builtin/protobuf.js'),
        import('../machinery/protobuf/index.js'),
      ]);
      try {
        return kubeProtobuf.decode(raw).object as KubeObject;
      } catch (err) {
        if (err instanceof ProtobufDecodeError) throw badRequest(err.message);
        throw err;
      }
    }
    default:
      throw unsupportedMediaType(type, objectMediaTypes);
  }
}

/**
 * The body of a DELETE, for parseDeleteOptions: a protobuf DeleteOptions (what client-go's typed clients send by
 * default since v0.35) becomes its JSON; JSON and YAML bodies pass through.
 */
export async function deleteOptionsBody(
  contentType: string | undefined,
  body: Buffer | undefined,
): Promise<{ contentType: string | undefined; body: Buffer | undefined }> {
  if (!body?.length || mediaType(contentType) !== 'application/vnd.kubernetes.protobuf') return { contentType, body };
  const decoded = await decodeObjectBody(contentType, body);
  if (decoded.kind !== 'DeleteOptions') throw badRequest(`the request body must be a DeleteOptions object, not ${String(decoded.kind)}`);
  return { contentType: 'application/json', body: Buffer.from(JSON.stringify(decoded)) };
}

export function parseJson(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw badRequest(`the request body is not valid JSON: ${(err as Error).message}`);
  }
  // Each level of nesting takes an opening and a closing bracket: a text shorter than twice the limit cannot nest
  // past it, so most bodies skip the walk.
  return text.length < 2 * (MAX_NESTING_DEPTH + 1) ? value : notTooDeep(value, 'JSON');
}

/** Refuses a decoded body nested deeper than the object code can walk (see nesting-depth.ts). */
export function notTooDeep(value: unknown, format: string): unknown {
  const tooDeep = nestingTooDeep(value);
  if (tooDeep) throw badRequest(`the request body is not valid ${format}: ${tooDeep}`);
  return value;
}

export function parseYamlText(text: string): unknown {
  let value: unknown;
  try {
    value = readRequestYaml(text, { duplicateKeys: 'last-wins' });
  } catch (err) {
    if (err instanceof YamlBodyError) throw badRequest(`the request body is not valid YAML: ${err.message}`);
    throw err;
  }
  return notTooDeep(value, 'YAML');
}

function asObject(value: unknown): KubeObject {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw badRequest('the request body must be a JSON or YAML object');
  }
  const obj = value as KubeObject;
  if (obj.metadata !== undefined && (obj.metadata === null || typeof obj.metadata !== 'object' || Array.isArray(obj.metadata))) {
    throw badRequest('metadata must be an object');
  }
  return obj;
}
