/**
 * Secret policy: `stringData` folded into base64 `data` (then dropped, as kube's conversion does), type Opaque by
 * default and immutable once set, the keys each well-known type requires, and the `immutable` freeze.
 */
import { ownValue, setOwnValue } from '../../machinery/own-properties.js';
import { fieldErrors, type FieldError } from '../../machinery/status.js';
import type { KubeObject, Strategy, TablePrinter } from '../../registry/types.js';
import { maxDataSize, notMaps, validateBase64Map, validateImmutableContents } from './configmap.js';
import { ageColumn, ageOf, column, keyCount, nameColumn, nameOf } from '../printing.js';
import { record, str } from '../../machinery/field-values.js';
import { jsonValueName, unmarshalTypeError } from '../../machinery/go-decode.js';
import { goJsonSyntaxError } from '../../machinery/go-json-syntax.js';
import { tlsKeyPairProblem } from './secret-tls.js';
import { fieldImmutable, isConfigMapKey, keyPath } from '../value-rules.js';

export const secretTypes = {
  opaque: 'Opaque',
  serviceAccountToken: 'kubernetes.io/service-account-token',
  dockercfg: 'kubernetes.io/dockercfg',
  dockerConfigJson: 'kubernetes.io/dockerconfigjson',
  basicAuth: 'kubernetes.io/basic-auth',
  sshAuth: 'kubernetes.io/ssh-auth',
  tls: 'kubernetes.io/tls',
} as const;

export const serviceAccountNameAnnotation = 'kubernetes.io/service-account.name';

/** stringData wins over data for the same key; stored Secrets never carry stringData. */
function foldStringData(obj: KubeObject): void {
  if (obj.stringData === undefined) return;
  const strings = record(obj.stringData);
  if (Object.keys(strings).length > 0) {
    const data = { ...record(obj.data) };
    for (const [key, value] of Object.entries(strings)) {
      setOwnValue(data, key, Buffer.from(typeof value === 'string' ? value : String(value), 'utf8').toString('base64'));
    }
    obj.data = data;
  }
  delete obj.stringData;
}

function decoded(obj: KubeObject, key: string): Buffer | undefined {
  const value = ownValue(record(obj.data), key);
  return typeof value === 'string' ? Buffer.from(value, 'base64') : undefined;
}

function hasKey(obj: KubeObject, key: string): boolean {
  return key in record(obj.data);
}

/**
 * Go's json.Unmarshal into map[string]interface{}: a JSON object (or null), with encoding/json's own error text, never
 * V8's, which would quote the redacted contents back.
 */
function jsonObjectProblem(bytes: Buffer): string | undefined {
  const syntax = goJsonSyntaxError(bytes);
  if (syntax) return syntax;
  const kind = jsonValueName(JSON.parse(bytes.toString('utf8')));
  if (kind === 'object' || kind === 'null') return undefined;
  return unmarshalTypeError(kind, '', '', 'map[string]interface {}');
}

function validateTypeRequirements(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  switch (str(obj.type)) {
    case secretTypes.serviceAccountToken:
      // The token itself is filled in later by the token controller; only the owner's name is required.
      if (!obj.metadata?.annotations?.[serviceAccountNameAnnotation]) {
        errs.push(fieldErrors.required(keyPath('metadata.annotations', serviceAccountNameAnnotation)));
      }
      break;
    case secretTypes.dockercfg:
    case secretTypes.dockerConfigJson: {
      const key = str(obj.type) === secretTypes.dockercfg ? '.dockercfg' : '.dockerconfigjson';
      const bytes = decoded(obj, key);
      if (!bytes) {
        errs.push(fieldErrors.required(keyPath('data', key)));
        break;
      }
      const problem = jsonObjectProblem(bytes);
      if (problem) errs.push(fieldErrors.invalid(keyPath('data', key), '<secret contents redacted>', problem));
      break;
    }
    case secretTypes.basicAuth:
      // Either may be empty, but one of them has to be there.
      if (!hasKey(obj, 'username') && !hasKey(obj, 'password')) {
        errs.push(fieldErrors.required(keyPath('data', 'username')), fieldErrors.required(keyPath('data', 'password')));
      }
      break;
    case secretTypes.sshAuth:
      if (!decoded(obj, 'ssh-privatekey')?.length) errs.push(fieldErrors.required(keyPath('data', 'ssh-privatekey')));
      break;
    case secretTypes.tls:
      if (!hasKey(obj, 'tls.crt')) errs.push(fieldErrors.required(keyPath('data', 'tls.crt')));
      if (!hasKey(obj, 'tls.key')) errs.push(fieldErrors.required(keyPath('data', 'tls.key')));
      break;
    default:
  }
  return errs;
}

export const secretStrategy: Strategy = {
  allowUnconditionalUpdate: true,
  defaults(obj) {
    foldStringData(obj);
    if (!obj.type) obj.type = secretTypes.opaque;
  },
  validate(obj) {
    const shape = notMaps(obj, ['data']);
    if (shape.length > 0) return shape;
    const data = record(obj.data);
    const errs: FieldError[] = [];
    for (const key of Object.keys(data)) {
      for (const msg of isConfigMapKey(key)) errs.push(fieldErrors.invalid(keyPath('data', key), key, msg));
    }
    const b = validateBase64Map(data, 'data');
    errs.push(...b.errors);
    if (b.size > maxDataSize) errs.push(fieldErrors.tooLong('data', maxDataSize));
    errs.push(...validateTypeRequirements(obj));
    return errs;
  },
  validateUpdate(obj, old) {
    const errs: FieldError[] = [];
    if (str(obj.type) !== str(old.type)) errs.push(fieldErrors.invalid('type', str(obj.type), fieldImmutable));
    // stringData was already folded into data, so data is all there is to compare.
    errs.push(...validateImmutableContents(obj, old, ['data']));
    return errs;
  },
  warnings(obj) {
    if (str(obj.type) !== secretTypes.tls) return [];
    const cert = decoded(obj, 'tls.crt')?.toString('utf8') ?? '';
    const key = decoded(obj, 'tls.key')?.toString('utf8') ?? '';
    const problem = tlsKeyPairProblem(cert, key);
    return problem ? [problem] : [];
  },
};

export const secretPrinter: TablePrinter = {
  columns: [
    nameColumn,
    column('Type', 'Used to facilitate programmatic handling of secret data. More info: https://kubernetes.io/docs/concepts/configuration/secret/#secret-types'),
    column(
      'Data',
      "Data contains the secret data. Each key must consist of alphanumeric characters, '-', '_' or '.'. The " +
        'serialized form of the secret data is a base64 encoded string, representing the arbitrary (possibly ' +
        'non-string) data value here. Described in https://tools.ietf.org/html/rfc4648#section-4',
    ),
    ageColumn,
  ],
  cells: (obj, now) => [nameOf(obj), str(obj.type), keyCount(obj.data), ageOf(obj, now)],
};

export const secretFieldSelectors: Record<string, (obj: KubeObject) => string> = {
  type: (obj) => str(obj.type),
};
