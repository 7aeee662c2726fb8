/**
 * ConfigMap policy: key names that work as file names, base64 binaryData, a key in only one of data/binaryData,
 * the 1 MiB total, and `immutable: true` freezing the contents.
 */
import { fieldErrors, type FieldError } from '../../machinery/status.js';
import type { KubeObject, Strategy, TablePrinter } from '../../registry/types.js';
import { ageColumn, ageOf, column, keyCount, nameColumn, nameOf } from '../printing.js';
import { record } from '../../machinery/field-values.js';
import { decodedBase64Length } from '../../machinery/go-decode.js';
import { isConfigMapKey, keyPath } from '../value-rules.js';

/** core.MaxSecretSize, shared by ConfigMaps and Secrets. */
export const maxDataSize = 1024 * 1024;

const immutableMessage = 'field is immutable when `immutable` is set';

/** Base64 values of a data map: per-key errors plus the total decoded size. */
export function validateBase64Map(map: Record<string, unknown>, base: string): { errors: FieldError[]; size: number } {
  const errors: FieldError[] = [];
  let size = 0;
  for (const [key, value] of Object.entries(map)) {
    if (typeof value !== 'string') {
      errors.push(fieldErrors.typeInvalid(keyPath(base, key), value, 'must be a base64-encoded string'));
      continue;
    }
    const decoded = decodedBase64Length(value);
    if ('illegalAt' in decoded) {
      errors.push(
        fieldErrors.invalid(keyPath(base, key), '<secret contents redacted>', `illegal base64 data at input byte ${decoded.illegalAt}`),
      );
    } else {
      size += decoded.bytes;
    }
  }
  return { errors, size };
}

/**
 * Data fields that are present but not maps (an array, a string): kube's typed decoding refuses them; read through
 * `record()` they would pass as empty and be stored as sent.
 */
export function notMaps(obj: KubeObject, fields: string[]): FieldError[] {
  return fields
    .filter((f) => obj[f] !== undefined && obj[f] !== null && (typeof obj[f] !== 'object' || Array.isArray(obj[f])))
    .map((f) => fieldErrors.typeInvalid(f, obj[f], 'must be a map of string keys to string values'));
}

/** `immutable: true` on the stored object freezes it (and the flag itself) for good. */
export function validateImmutableContents(obj: KubeObject, old: KubeObject, fields: string[]): FieldError[] {
  if (old.immutable !== true) return [];
  const errs: FieldError[] = [];
  if (obj.immutable !== true) errs.push(fieldErrors.forbidden('immutable', immutableMessage));
  for (const f of fields) {
    if (JSON.stringify(sorted(obj[f])) !== JSON.stringify(sorted(old[f]))) {
      errs.push(fieldErrors.forbidden(f, immutableMessage));
    }
  }
  return errs;
}

/** A map with sorted keys, so key order never reads as a change; empty and absent maps compare equal (as in Go). */
function sorted(value: unknown): unknown {
  const m = record(value);
  const keys = Object.keys(m).sort();
  return keys.length === 0 ? undefined : keys.map((k) => [k, m[k]]);
}

export const configMapStrategy: Strategy = {
  allowUnconditionalUpdate: true,
  validate(obj) {
    const shape = notMaps(obj, ['data', 'binaryData']);
    if (shape.length > 0) return shape;
    const errs: FieldError[] = [];
    const data = record(obj.data);
    const binary = record(obj.binaryData);
    let size = 0;
    for (const [key, value] of Object.entries(data)) {
      for (const msg of isConfigMapKey(key)) errs.push(fieldErrors.invalid(keyPath('data', key), key, msg));
      if (Object.hasOwn(binary, key)) {
        errs.push(fieldErrors.invalid(keyPath('data', key), key, 'duplicate of key present in binaryData'));
      }
      if (typeof value !== 'string') {
        errs.push(fieldErrors.typeInvalid(keyPath('data', key), value, 'must be a string'));
      } else {
        size += Buffer.byteLength(value, 'utf8');
      }
    }
    for (const key of Object.keys(binary)) {
      for (const msg of isConfigMapKey(key)) errs.push(fieldErrors.invalid(keyPath('binaryData', key), key, msg));
    }
    const b = validateBase64Map(binary, 'binaryData');
    errs.push(...b.errors);
    size += b.size;
    // kube reports the total against the whole object (an empty field path).
    if (size > maxDataSize) errs.push(fieldErrors.tooLong('', maxDataSize));
    return errs;
  },
  validateUpdate: (obj, old) => validateImmutableContents(obj, old, ['data', 'binaryData']),
};

export const configMapPrinter: TablePrinter = {
  columns: [
    nameColumn,
    column(
      'Data',
      "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'. " +
        'Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not overlap ' +
        'with the keys in the BinaryData field, this is enforced during validation process.',
    ),
    ageColumn,
  ],
  cells: (obj, now) => [nameOf(obj), keyCount(obj.data) + keyCount(obj.binaryData), ageOf(obj, now)],
};
