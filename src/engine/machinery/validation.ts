/**
 * Name, label and annotation validation with the exact wording of k8s.io/apimachinery (pkg/util/validation,
 * pkg/api/validation, pkg/apis/meta/v1/validation) as served by kube-apiserver 1.32, so 422 messages read the
 * same as on a real cluster. The `is*` helpers return kube's message list (empty = valid); the `validate*`
 * helpers return FieldErrors at kube's field paths.
 */
import type { ObjectMeta, OwnerReference } from './object-types.js';
import { fieldErrors, type FieldError } from './status.js';

export const DNS1123_LABEL_MAX_LENGTH = 63;
export const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;
export const DNS1035_LABEL_MAX_LENGTH = 63;
export const LABEL_VALUE_MAX_LENGTH = 63;
export const QUALIFIED_NAME_MAX_LENGTH = 63;
/** metadata.annotations: keys plus values, in bytes. */
export const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1035_LABEL_FMT = '[a-z]([-a-z0-9]*[a-z0-9])?';
const QUALIFIED_NAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;
const CONFIG_MAP_KEY_FMT = '[-._a-zA-Z0-9]+';

// The formats above, matched character by character (UTF-16 code units, as a JavaScript regex without the `u` flag
// reads them): every write validates a handful of names and keys, and the regex engine cost about twice as much.
// validation.test.ts holds each matcher to its regex over every short string of an alphabet of edge characters.
const isDigit = (c: number) => c >= 48 && c <= 57;
const isLowerAlnum = (c: number) => (c >= 97 && c <= 122) || isDigit(c);
const isAlnum = (c: number) => isLowerAlnum(c) || (c >= 65 && c <= 90);
const DASH = 45;
const DOT = 46;
const UNDERSCORE = 95;

/** DNS1123_LABEL_FMT on value[from, to); DNS1035_LABEL_FMT when `letterFirst`. */
function matchesDNSLabel(value: string, from: number, to: number, letterFirst = false): boolean {
  if (to <= from) return false;
  const first = value.charCodeAt(from);
  if (!(letterFirst ? first >= 97 && first <= 122 : isLowerAlnum(first)) || !isLowerAlnum(value.charCodeAt(to - 1))) return false;
  for (let i = from + 1; i < to - 1; i++) {
    const c = value.charCodeAt(i);
    if (!isLowerAlnum(c) && c !== DASH) return false;
  }
  return true;
}

/** DNS1123_SUBDOMAIN_FMT on value[from, to): labels joined by single dots. */
function matchesDNSSubdomain(value: string, from = 0, to = value.length): boolean {
  for (let start = from; ; ) {
    const dot = value.indexOf('.', start);
    const end = dot === -1 || dot >= to ? to : dot;
    if (!matchesDNSLabel(value, start, end)) return false;
    if (end === to) return true;
    start = end + 1;
  }
}

/** QUALIFIED_NAME_FMT on value[from, to). */
function matchesQualifiedName(value: string, from = 0, to = value.length): boolean {
  if (to <= from || !isAlnum(value.charCodeAt(from)) || !isAlnum(value.charCodeAt(to - 1))) return false;
  for (let i = from + 1; i < to - 1; i++) {
    const c = value.charCodeAt(i);
    if (!isAlnum(c) && c !== DASH && c !== UNDERSCORE && c !== DOT) return false;
  }
  return true;
}

/** CONFIG_MAP_KEY_FMT. */
function matchesConfigMapKey(value: string): boolean {
  if (value.length === 0) return false;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (!isAlnum(c) && c !== DASH && c !== UNDERSCORE && c !== DOT) return false;
  }
  return true;
}

/**
 * Whether isQualifiedName(key) finds nothing, decided without splitting or building messages (the common case of
 * every label, annotation and finalizer written): the matchers accept ASCII only, so a key's length is its byte
 * length. A key refused here goes the long way, which explains why.
 */
function isValidQualifiedName(key: string): boolean {
  const slash = key.indexOf('/');
  if (slash === -1) return key.length <= QUALIFIED_NAME_MAX_LENGTH && matchesQualifiedName(key);
  if (key.indexOf('/', slash + 1) !== -1 || slash > DNS1123_SUBDOMAIN_MAX_LENGTH) return false;
  return key.length - slash - 1 <= QUALIFIED_NAME_MAX_LENGTH && matchesDNSSubdomain(key, 0, slash) && matchesQualifiedName(key, slash + 1);
}

const QUALIFIED_NAME_ERR =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

/** Go's len(): kube's length limits count UTF-8 bytes, not characters. */
const byteLength = (s: string) => Buffer.byteLength(s, 'utf8');

export function maxLenError(length: number): string {
  return `must be no more than ${length} characters`;
}

export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${fmt}')`;
}

export const EMPTY_ERROR = 'must be non-empty';

export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_LABEL_MAX_LENGTH) errs.push(maxLenError(DNS1123_LABEL_MAX_LENGTH));
  if (!matchesDNSLabel(value, 0, value.length)) {
    errs.push(
      regexError(
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
        DNS1123_LABEL_FMT,
        'my-name',
        '123-abc',
      ),
    );
  }
  return errs;
}

export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!matchesDNSSubdomain(value)) {
    errs.push(
      regexError(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
        DNS1123_SUBDOMAIN_FMT,
        'example.com',
      ),
    );
  }
  return errs;
}

/** Services and a few other kinds use RFC 1035 labels (must start with a letter). */
export function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1035_LABEL_MAX_LENGTH) errs.push(maxLenError(DNS1035_LABEL_MAX_LENGTH));
  if (!matchesDNSLabel(value, 0, value.length, true)) {
    errs.push(
      regexError(
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
        DNS1035_LABEL_FMT,
        'my-name',
        'abc-123',
      ),
    );
  }
  return errs;
}

/** Names that only have to survive being a URL path segment (RBAC objects, some CRs). */
export function isValidPathSegmentName(name: string): string[] {
  for (const illegal of ['.', '..']) if (name === illegal) return [`may not be '${illegal}'`];
  return isValidPathSegmentPrefix(name);
}

/** Like isValidPathSegmentName, but a suffix will follow, so `.` and `..` are fine. */
export function isValidPathSegmentPrefix(name: string): string[] {
  return ['/', '%'].filter((c) => name.includes(c)).map((c) => `may not contain '${c}'`);
}

/** Label keys, annotation keys (lower-cased first), finalizers: `[dns-subdomain/]name`. */
export function isQualifiedName(value: string): string[] {
  if (isValidQualifiedName(value)) return [];
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0]!;
  } else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) errs.push(`prefix part ${EMPTY_ERROR}`);
    else errs.push(...isDNS1123Subdomain(prefix).map((m) => `prefix part ${m}`));
  } else {
    return [
      `a qualified name ${regexError(QUALIFIED_NAME_ERR, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}` +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) errs.push(`name part ${EMPTY_ERROR}`);
  else if (byteLength(name) > QUALIFIED_NAME_MAX_LENGTH) errs.push(`name part ${maxLenError(QUALIFIED_NAME_MAX_LENGTH)}`);
  if (!matchesQualifiedName(name)) {
    errs.push(`name part ${regexError(QUALIFIED_NAME_ERR, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}`);
  }
  return errs;
}

export function isValidLabelValue(value: string): string[] {
  // As isValidQualifiedName: the common valid value decided before any message is built.
  if (value.length === 0 || (value.length <= LABEL_VALUE_MAX_LENGTH && matchesQualifiedName(value))) return [];
  const errs: string[] = [];
  if (byteLength(value) > LABEL_VALUE_MAX_LENGTH) errs.push(maxLenError(LABEL_VALUE_MAX_LENGTH));
  if (value.length > 0 && !matchesQualifiedName(value)) {
    errs.push(
      regexError(
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        LABEL_VALUE_FMT,
        'MyValue',
        'my_value',
        '12345',
      ),
    );
  }
  return errs;
}

/** Keys of ConfigMap/Secret `data` and `binaryData` (they become file names when mounted). */
export function isConfigMapKey(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!matchesConfigMapKey(value)) {
    errs.push(
      regexError(
        "a valid config key must consist of alphanumeric characters, '-', '_' or '.'",
        CONFIG_MAP_KEY_FMT,
        'key.name',
        'KEY_NAME',
        'key-name',
      ),
    );
  }
  if (value === '.') errs.push("must not be '.'");
  else if (value === '..') errs.push("must not be '..'");
  else if (value.startsWith('..')) errs.push("must not start with '..'");
  return errs;
}

export type NameValidation = 'subdomain' | 'label' | 'path-segment';

/**
 * kube's ValidateNameFunc. `prefix` is true for generateName, where a trailing dash is fine because random
 * characters follow. maskTrailingDash drops two characters before appending `a`; kept as upstream does.
 */
export function validateName(kind: NameValidation, name: string, prefix: boolean): string[] {
  if (kind === 'path-segment') return prefix ? isValidPathSegmentPrefix(name) : isValidPathSegmentName(name);
  if (prefix) name = maskTrailingDash(name);
  return kind === 'label' ? isDNS1123Label(name) : isDNS1123Subdomain(name);
}

/** apimachinery's maskTrailingDash (a generateName prefix may end in a dash). */
export function maskTrailingDash(name: string): string {
  return name.length > 1 && name.endsWith('-') ? `${name.slice(0, name.length - 2)}a` : name;
}

export function validateLabels(labels: Record<string, string> | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const [k, v] of Object.entries(labels ?? {})) {
    for (const msg of isQualifiedName(k)) errs.push(fieldErrors.invalid(path, k, msg));
    for (const msg of isValidLabelValue(String(v))) errs.push(fieldErrors.invalid(path, v, msg));
  }
  return errs;
}

export function validateAnnotations(annotations: Record<string, string> | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  let total = 0;
  for (const [k, v] of Object.entries(annotations ?? {})) {
    // Annotation keys are qualified names where case does not matter.
    for (const msg of isQualifiedName(k.toLowerCase())) errs.push(fieldErrors.invalid(path, k, msg));
    total += byteLength(k) + byteLength(String(v));
  }
  if (total > TOTAL_ANNOTATION_SIZE_LIMIT) errs.push(fieldErrors.tooLong(path, TOTAL_ANNOTATION_SIZE_LIMIT));
  return errs;
}

/** Finalizer names are qualified names (`kubernetes`, `orphan`, `example.com/cleanup`). */
export function validateFinalizers(finalizers: string[] | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const f of finalizers ?? []) for (const msg of isQualifiedName(f)) errs.push(fieldErrors.invalid(path, f, msg));
  if (finalizers?.includes('orphan') && finalizers.includes('foregroundDeletion')) {
    errs.push(fieldErrors.invalid(path, finalizers, 'finalizer orphan and foregroundDeletion cannot be both set'));
  }
  return errs;
}

/** schema.ParseGroupVersion's version part; empty when the apiVersion does not parse. */
function versionOf(apiVersion: string): string {
  const parts = apiVersion.split('/');
  if (parts.length === 1) return parts[0]!;
  if (parts.length === 2) return parts[1]!;
  return '';
}

/** Note kube reports owner reference problems at `ownerReferences.<field>`, without an index. */
export function validateOwnerReferences(refs: OwnerReference[] | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  let firstController = '';
  for (const ref of refs ?? []) {
    const apiVersion = ref.apiVersion ?? '';
    const version = versionOf(apiVersion);
    if (!version) errs.push(fieldErrors.invalid(`${path}.apiVersion`, apiVersion, 'version must not be empty'));
    if (!ref.kind) errs.push(fieldErrors.invalid(`${path}.kind`, ref.kind ?? '', 'must not be empty'));
    if (!ref.name) errs.push(fieldErrors.invalid(`${path}.name`, ref.name ?? '', 'must not be empty'));
    if (!ref.uid) errs.push(fieldErrors.invalid(`${path}.uid`, ref.uid ?? '', 'must not be empty'));
    if (apiVersion === 'v1' && ref.kind === 'Event') {
      errs.push(fieldErrors.invalid(path, ref, '/v1, Kind=Event is disallowed from being an owner'));
    }
    if (ref.controller === true) {
      const current = `${ref.kind}/${ref.name}`;
      if (firstController) {
        errs.push(
          fieldErrors.invalid(
            path,
            refs,
            `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${current}`,
          ),
        );
      } else {
        firstController = current;
      }
    }
  }
  return errs;
}

export interface ObjectMetaValidationOptions {
  namespaced: boolean;
  nameValidation: NameValidation;
  /** generateName is validated on create only (names are immutable afterwards). */
  isCreate: boolean;
  /** The caller already found no metadataTypeErrors (the generic store checks them first, on every write). */
  typesChecked?: boolean;
}

const isMap = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * The shapes kube's typed ObjectMeta enforces when it decodes: string maps, a list of strings, a list of objects.
 * Checked first, so the rules below never iterate a string or read a number as a label (a finalizers map from a
 * strategic-merge directive was a 500; a numeric label value was stored).
 */
export function metadataTypeErrors(meta: ObjectMeta): FieldError[] {
  const errs: FieldError[] = [];
  for (const field of ['labels', 'annotations'] as const) {
    const value = meta[field] as unknown;
    if (value === undefined || value === null) continue;
    if (!isMap(value)) {
      errs.push(fieldErrors.typeInvalid(`metadata.${field}`, value, 'must be a map of string keys to string values'));
      continue;
    }
    for (const [k, v] of Object.entries(value)) {
      if (typeof v !== 'string') errs.push(fieldErrors.typeInvalid(`metadata.${field}[${k}]`, v, 'must be a string'));
    }
  }
  const finalizers = meta.finalizers as unknown;
  if (finalizers !== undefined && finalizers !== null && (!Array.isArray(finalizers) || finalizers.some((f) => typeof f !== 'string'))) {
    errs.push(fieldErrors.typeInvalid('metadata.finalizers', finalizers, 'must be a list of strings'));
  }
  const refs = meta.ownerReferences as unknown;
  if (refs !== undefined && refs !== null && (!Array.isArray(refs) || !refs.every(isMap))) {
    errs.push(fieldErrors.typeInvalid('metadata.ownerReferences', refs, 'must be a list of owner references'));
  }
  return errs;
}

/** ValidateObjectMetaAccessor: expects name generation to have happened already. */
export function validateObjectMeta(meta: ObjectMeta, opts: ObjectMetaValidationOptions): FieldError[] {
  if (!opts.typesChecked) {
    const typeErrors = metadataTypeErrors(meta);
    if (typeErrors.length > 0) return typeErrors;
  }
  const errs: FieldError[] = [];
  if (opts.isCreate && meta.generateName) {
    for (const msg of validateName(opts.nameValidation, meta.generateName, true)) {
      errs.push(fieldErrors.invalid('metadata.generateName', meta.generateName, msg));
    }
  }
  if (!meta.name) {
    errs.push(fieldErrors.required('metadata.name', 'name or generateName is required'));
  } else {
    for (const msg of validateName(opts.nameValidation, meta.name, false)) {
      errs.push(fieldErrors.invalid('metadata.name', meta.name, msg));
    }
  }
  if (opts.namespaced) {
    if (!meta.namespace) errs.push(fieldErrors.required('metadata.namespace'));
    else {
      for (const msg of validateName('label', meta.namespace, false)) {
        errs.push(fieldErrors.invalid('metadata.namespace', meta.namespace, msg));
      }
    }
  } else if (meta.namespace) {
    errs.push(fieldErrors.forbidden('metadata.namespace', 'not allowed on this type'));
  }
  if (typeof meta.generation === 'number' && meta.generation < 0) {
    errs.push(fieldErrors.invalid('metadata.generation', meta.generation, 'must be greater than or equal to 0'));
  }
  errs.push(...validateLabels(meta.labels, 'metadata.labels'));
  errs.push(...validateAnnotations(meta.annotations, 'metadata.annotations'));
  errs.push(...validateOwnerReferences(meta.ownerReferences, 'metadata.ownerReferences'));
  errs.push(...validateFinalizers(meta.finalizers, 'metadata.finalizers'));
  return errs;
}

const IMMUTABLE = 'field is immutable';

/**
 * The update-only checks of ValidateObjectMetaAccessorUpdate: immutable identity fields and generation. The
 * resourceVersion requirement is left to the store (it depends on the strategy's allowUnconditionalUpdate).
 */
export function validateObjectMetaUpdate(meta: ObjectMeta, old: ObjectMeta): FieldError[] {
  const errs: FieldError[] = [];
  if ((meta.generation ?? 0) < (old.generation ?? 0)) {
    errs.push(fieldErrors.invalid('metadata.generation', meta.generation ?? 0, 'must not be decremented'));
  }
  for (const key of ['name', 'namespace', 'uid', 'creationTimestamp', 'deletionTimestamp'] as const) {
    const now = meta[key] ?? '';
    if (now !== (old[key] ?? '')) errs.push(fieldErrors.invalid(`metadata.${key}`, now, IMMUTABLE));
  }
  if (meta.deletionGracePeriodSeconds !== old.deletionGracePeriodSeconds) {
    errs.push(
      fieldErrors.invalid('metadata.deletionGracePeriodSeconds', meta.deletionGracePeriodSeconds ?? null, IMMUTABLE),
    );
  }
  return errs;
}
