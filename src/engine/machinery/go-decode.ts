/**
 * What kube's JSON decoding into Go structs (sigs.k8s.io/json, a fork of encoding/json) makes of a value, read off
 * the kind's OpenAPI schema: the Go type a schema node stands for, whether a JSON value fits it, and the exact
 * error text. The walk itself is unknown-fields.ts's (one pass finds unknown fields and type errors).
 *
 * Go's rules reproduced: null decodes as a no-op everywhere; a type mismatch is an UnmarshalTypeError that decoding
 * remembers (the first in document order wins) and carries on past; a custom unmarshaler's error (metav1.Time,
 * MicroTime, resource.Quantity, intstr.IntOrString) stops decoding at once and wins over a remembered one.
 */
import { ownValue } from './own-properties.js';
import { quantityFormatError, quantityValue } from './quantity.js';

type SchemaNode = Record<string, unknown>;
type SchemaMap = Record<string, SchemaNode>;

const refPrefix = '#/components/schemas/';
const TIME = 'io.k8s.apimachinery.pkg.apis.meta.v1.Time';
const MICRO_TIME = 'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime';
const QUANTITY = 'io.k8s.apimachinery.pkg.api.resource.Quantity';

/** The Go shape a schema node decodes into. `raw` takes any JSON (RawExtension, FieldsV1, open objects). */
export type GoShape =
  | { kind: 'struct'; name: string }
  | { kind: 'map' | 'slice'; elem: SchemaNode | undefined }
  | { kind: 'string' | 'bytes' | 'bool' | 'float' | 'quantity' | 'intOrString' | 'raw' }
  | { kind: 'int'; bits: 32 | 64 }
  | { kind: 'time'; layout: string };

/** Go's time layouts metav1.Time and metav1.MicroTime parse with. */
const RFC3339 = '2006-01-02T15:04:05Z07:00';
const RFC3339_MICRO = '2006-01-02T15:04:05.000000Z07:00';

/**
 * Go type names the schemas cannot tell (named string types, `types.UID`), by `<Go struct>.<json field>`: what
 * kube's message prints as the field's type. Elements of a listed slice or map take the element part.
 */
const namedFieldTypes: Record<string, string> = {
  'ObjectMeta.uid': 'types.UID',
  'OwnerReference.uid': 'types.UID',
  'ObjectReference.uid': 'types.UID',
  'ManagedFieldsEntry.operation': 'v1.ManagedFieldsOperationType',
  'Condition.status': 'v1.ConditionStatus',
  'LabelSelectorRequirement.operator': 'v1.LabelSelectorOperator',
  'NamespaceSpec.finalizers': '[]v1.FinalizerName',
  'NamespaceStatus.phase': 'v1.NamespacePhase',
  'NamespaceCondition.type': 'v1.NamespaceConditionType',
  'NamespaceCondition.status': 'v1.ConditionStatus',
  'Secret.type': 'v1.SecretType',
  'SubjectAccessReviewSpec.extra': 'map[string]v1.ExtraValue',
  'UserInfo.extra': 'map[string]v1.ExtraValue',
  'CustomResourceDefinitionSpec.scope': 'v1.ResourceScope',
  'CustomResourceConversion.strategy': 'v1.ConversionStrategyType',
  'CustomResourceDefinitionCondition.type': 'v1.CustomResourceDefinitionConditionType',
  'CustomResourceDefinitionCondition.status': 'v1.ConditionStatus',
};

const shapes = new WeakMap<SchemaNode, GoShape>();

/** The component a field's schema refers to (`$ref`, or kube-openapi's one-element allOf). */
export function refOf(node: SchemaNode): string | undefined {
  const ref = (node.$ref ?? (node.allOf as SchemaNode[] | undefined)?.[0]?.$ref) as string | undefined;
  return ref?.startsWith(refPrefix) ? ref.slice(refPrefix.length) : undefined;
}

/** The Go shape of a (not yet resolved) schema node; cached per node, the schemas being fixed per kind. */
export function goShape(node: SchemaNode, schemas: SchemaMap): GoShape {
  let shape = shapes.get(node);
  if (!shape) shapes.set(node, (shape = shapeOf(node, schemas, 0)));
  return shape;
}

function shapeOf(node: SchemaNode, schemas: SchemaMap, depth: number): GoShape {
  if (node['x-kubernetes-int-or-string'] === true) return { kind: 'intOrString' };
  const ref = refOf(node);
  if (ref !== undefined) {
    if (ref === TIME) return { kind: 'time', layout: RFC3339 };
    if (ref === MICRO_TIME) return { kind: 'time', layout: RFC3339_MICRO };
    if (ref === QUANTITY) return { kind: 'quantity' };
    const target = ownValue(schemas, ref);
    if (!target || depth > 16) return { kind: 'raw' };
    const inner = shapeOf(target, schemas, depth + 1);
    return inner.kind === 'struct' ? { kind: 'struct', name: ref.slice(ref.lastIndexOf('.') + 1) } : inner;
  }
  switch (node.type) {
    case 'string':
      return { kind: node.format === 'byte' ? 'bytes' : 'string' };
    case 'boolean':
      return { kind: 'bool' };
    case 'integer':
      return { kind: 'int', bits: node.format === 'int32' ? 32 : 64 };
    case 'number':
      return { kind: 'float' };
    case 'array':
      return { kind: 'slice', elem: node.items as SchemaNode | undefined };
    case 'object':
      if (node.properties) return { kind: 'struct', name: '' };
      if (node.additionalProperties && typeof node.additionalProperties === 'object') {
        return { kind: 'map', elem: node.additionalProperties as SchemaNode };
      }
      return { kind: 'raw' };
    default:
      return { kind: 'raw' };
  }
}

/** Go's spelling of a node's type, as reflect.Type.String() prints it. */
export function goTypeName(node: SchemaNode | undefined, schemas: SchemaMap): string {
  if (!node) return 'interface {}';
  const ref = refOf(node);
  const shape = goShape(node, schemas);
  switch (shape.kind) {
    case 'struct':
      return ref ? goQualified(ref) : 'struct';
    case 'slice':
      return `[]${goTypeName(shape.elem, schemas)}`;
    case 'map':
      return `map[string]${goTypeName(shape.elem, schemas)}`;
    case 'string':
      return 'string';
    case 'bytes':
      return '[]uint8';
    case 'bool':
      return 'bool';
    case 'int':
      return `int${shape.bits}`;
    case 'float':
      return 'float64';
    case 'time':
      return ref ? goQualified(ref) : 'v1.Time';
    case 'quantity':
      return 'resource.Quantity';
    case 'intOrString':
      return 'intstr.IntOrString';
    case 'raw':
      return ref ? goQualified(ref) : 'interface {}';
  }
}

/** `io.k8s.api.rbac.v1.PolicyRule` → `v1.PolicyRule`: Go prints a named type as package.Name. */
function goQualified(ref: string): string {
  const dot = ref.lastIndexOf('.');
  return `${ref.slice(ref.lastIndexOf('.', dot - 1) + 1, dot)}${ref.slice(dot)}`;
}

/**
 * The field's Go type when a name table entry knows better than the schema; `elem` levels of slice/map unwrapped.
 */
export function namedFieldType(struct: string, field: string, elem: number): string | undefined {
  let type = namedFieldTypes[`${struct}.${field.slice(field.lastIndexOf('.') + 1)}`];
  for (let i = 0; type !== undefined && i < elem; i++) {
    if (type.startsWith('[]')) type = type.slice(2);
    else if (type.startsWith('map[string]')) type = type.slice('map[string]'.length);
    else return undefined;
  }
  return type;
}

/**
 * encoding/json's name for a JSON value in "cannot unmarshal <value>": `number 1.5` only for a bad int, with the
 * body's own text of the number when JSON.parse altered it (`1.0`).
 */
export function jsonValueName(value: unknown, intTarget = false, literal?: string): string {
  if (typeof value === 'number') return intTarget ? `number ${literal ?? goNumberText(value)}` : 'number';
  if (typeof value === 'boolean') return 'bool';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value === 'object' ? 'object' : 'string';
}

/** A number as its JSON literal would most likely read (JSON.parse keeps no text: 1e21 prints as JS does). */
function goNumberText(n: number): string {
  return String(n);
}

/** encoding/json's UnmarshalTypeError text; without a struct and field, the value itself was of the wrong type. */
export function unmarshalTypeError(value: string, struct: string, field: string, type: string): string {
  if (!struct && !field) return `json: cannot unmarshal ${value} into Go value of type ${type}`;
  return `json: cannot unmarshal ${value} into Go struct field ${struct}.${field} of type ${type}`;
}

/**
 * Whether Go's strconv.ParseInt takes the number for an int of `bits`: by its text when JSON.parse altered it
 * (`1.0`, `1e3` are no ints in Go; digits past 2^53 are exact there).
 */
export function fitsInt(value: number, bits: 32 | 64, literal?: string): boolean {
  if (literal !== undefined) {
    if (!/^-?(0|[1-9][0-9]*)$/.test(literal)) return false;
    const n = BigInt(literal);
    return bits === 32 ? n >= -(2n ** 31n) && n < 2n ** 31n : n >= -(2n ** 63n) && n < 2n ** 63n;
  }
  if (!Number.isInteger(value)) return false;
  return bits === 32 ? value >= -2147483648 && value <= 2147483647 : value >= -(2 ** 63) && value < 2 ** 63;
}

/** How a scalar-or-container value fares against a shape: ok, a remembered type error, or a fatal error. */
export type Verdict = undefined | { error: string; fatal: boolean };

/**
 * What a JSON null becomes as an element of a Go slice or map of this shape once decoded and encoded again: the
 * element is the type's zero value (encoding/json leaves a fresh element untouched), so `"a": null` in a
 * map[string]string is `"a": ""`. Undefined for shapes whose zero value encodes as null or depends on the struct.
 */
export function nullElementValue(shape: GoShape): unknown {
  switch (shape.kind) {
    case 'string':
      return '';
    case 'bool':
      return false;
    case 'int':
    case 'float':
      return 0;
    default:
      return undefined;
  }
}

/**
 * Struct fields of slice or map type declared without omitempty, by `<Go struct>.<json field>`: a null there
 * decodes to nil and encodes back as `null`, where an omitempty one disappears. The schemas cannot tell them apart
 * (neither kind gets a `default`); this list is every such field of the built-ins served, found by Go's own round
 * trip of each field of each kind (go-decode-nulls.test.ts holds its answers).
 */
const nullKeptFields = new Set([
  'Role.rules',
  'ClusterRole.rules',
  'PolicyRule.verbs',
  'LimitRangeSpec.limits',
  'CustomResourceDefinitionSpec.versions',
  'CustomResourceDefinitionStatus.conditions',
  'CustomResourceDefinitionStatus.storedVersions',
  'WebhookConversion.conversionReviewVersions',
]);

/**
 * Fields with omitempty that kube's OpenAPI still gives a `default` (an explicit `+default` tag): their zero value
 * disappears on encoding.
 */
const omittedDefaultFields = new Set(['LocalObjectReference.name']);

/** How a null struct field comes back from kube's decode and encode: a value, or `omitted` when it disappears. */
export type NullField = { omitted: true } | { omitted: false; value: unknown };

/**
 * What a JSON null given for the field `field` of the Go struct `struct` becomes once kube has decoded the body into
 * its Go type and encoded it again (what it stores and answers). Null leaves the Go field at its zero value (nil for
 * a pointer, map or slice). kube's OpenAPI gives `default` (the zero) exactly to the fields whose zero value is
 * encoded: non-pointer structs (`default: {}`) and scalars without omitempty (`default: ""`, `0`, `false`);
 * every other field is a pointer or has omitempty, so it is omitted, except the slices and maps in nullKeptFields.
 * `metadata: {labels: null}` loses its labels, `data: null` its data, `roleRef: null` is a RoleRef of empty strings.
 */
export function nullFieldValue(node: SchemaNode, schemas: SchemaMap, struct: string, field: string, depth = 0): NullField {
  if (nullKeptFields.has(`${struct}.${field}`)) return { omitted: false, value: null };
  if (node.default === undefined || omittedDefaultFields.has(`${struct}.${field}`)) return { omitted: true };
  return { omitted: false, value: goZeroValue(node, schemas, depth) };
}

/** The JSON Go encodes for the zero value of a non-pointer field (or a slice or map element) of this schema. */
export function goZeroValue(node: SchemaNode, schemas: SchemaMap, depth = 0): unknown {
  const shape = goShape(node, schemas);
  switch (shape.kind) {
    case 'struct': {
      const ref = refOf(node);
      const target = ref === undefined ? node : ownValue(schemas, ref);
      const properties = target?.properties as Record<string, SchemaNode> | undefined;
      const zero: Record<string, unknown> = {};
      if (!properties || depth > 16) return zero;
      for (const [key, prop] of Object.entries(properties)) {
        const value = nullFieldValue(prop, schemas, shape.name, key, depth + 1);
        if (!value.omitted) zero[key] = value.value;
      }
      return zero;
    }
    case 'quantity':
      return '0';
    case 'intOrString':
      return 0;
    default:
      // metav1.Time and MicroTime encode their zero as null, as do nil maps, slices and []byte.
      return nullElementValue(shape) ?? null;
  }
}

/**
 * Checks one non-null value against its shape. `struct`/`field` are Go's error context (the innermost struct whose
 * field is being decoded, and the dotted JSON path of fields from the root); `typeName` gives the Go type lazily.
 */
export function checkValue(value: unknown, shape: GoShape, struct: string, field: string, typeName: () => string, literal?: string): Verdict {
  const mismatch = (intTarget = false): Verdict => ({
    error: unmarshalTypeError(jsonValueName(value, intTarget, literal), struct, field, typeName()),
    fatal: false,
  });
  switch (shape.kind) {
    case 'struct':
    case 'map':
      return typeof value === 'object' && !Array.isArray(value) ? undefined : mismatch();
    case 'slice':
      return Array.isArray(value) ? undefined : mismatch();
    case 'string':
      return typeof value === 'string' ? undefined : mismatch();
    case 'bool':
      return typeof value === 'boolean' ? undefined : mismatch();
    case 'int':
      if (typeof value === 'number') return fitsInt(value, shape.bits, literal) ? undefined : mismatch(true);
      return mismatch();
    case 'float':
      return typeof value === 'number' ? undefined : mismatch();
    case 'bytes': {
      // []byte takes a base64 string (a bad one is a plain error, no field context) or an array of bytes.
      if (Array.isArray(value)) return undefined;
      if (typeof value !== 'string') return mismatch();
      const decoded = decodedBase64Length(value);
      return 'illegalAt' in decoded ? { error: `illegal base64 data at input byte ${decoded.illegalAt}`, fatal: false } : undefined;
    }
    case 'time':
      // metav1.Time.UnmarshalJSON: json.Unmarshal into a string (its type error gets the field context), then
      // time.Parse; either error ends decoding.
      if (typeof value !== 'string') return { error: unmarshalTypeError(jsonValueName(value), struct, field, 'string'), fatal: true };
      {
        const problem = goTimeParseError(value, shape.layout);
        return problem ? { error: problem, fatal: true } : undefined;
      }
    case 'quantity':
      // resource.Quantity.UnmarshalJSON parses the raw JSON text, quotes stripped: numbers pass, anything else fails.
      if (typeof value === 'string' || typeof value === 'number') {
        return quantityValue(value) === undefined ? { error: quantityFormatError, fatal: true } : undefined;
      }
      return { error: quantityFormatError, fatal: true };
    case 'intOrString':
      // intstr.IntOrString.UnmarshalJSON: a string, else json.Unmarshal into int32.
      if (typeof value === 'string') return undefined;
      if (typeof value === 'number' && fitsInt(value, 32, literal)) return undefined;
      return { error: unmarshalTypeError(jsonValueName(value, true, literal), struct, field, 'int32'), fatal: true };
    case 'raw':
      return undefined;
  }
}

/**
 * Go's time.Parse(layout, value) error for the two layouts metav1 uses, or undefined when it parses. Follows the
 * layout parser element by element (the RFC 3339 fast path only ever accepts more quickly).
 */
export function goTimeParseError(value: string, layout: string): string | undefined {
  const fail = (valueElem: string, layoutElem: string) =>
    `parsing time ${goQuote(value)} as ${goQuote(layout)}: cannot parse ${goQuote(valueElem)} as ${goQuote(layoutElem)}`;
  const outOfRange = (what: string) => `parsing time ${goQuote(value)}: ${what} out of range`;
  const micro = layout === RFC3339_MICRO;
  let rest = value;
  // Literal separators: a mismatch reports the rest of the value at that point.
  const skip = (lit: string): boolean => {
    if (rest[0] !== lit) return false;
    rest = rest.slice(1);
    return true;
  };
  // getnum: one or two digits; `fixed` demands two.
  const num = (fixed: boolean): number | undefined => {
    if (!isDigit(rest, 0)) return undefined;
    if (!isDigit(rest, 1)) {
      if (fixed) return undefined;
      const n = Number(rest[0]);
      rest = rest.slice(1);
      return n;
    }
    const n = Number(rest.slice(0, 2));
    rest = rest.slice(2);
    return n;
  };
  if (rest.length < 4 || !isDigit(rest, 0)) return fail(rest, '2006');
  const year = goAtoi(rest.slice(0, 4));
  if (year === undefined) return fail(rest, '2006');
  rest = rest.slice(4);
  if (!skip('-')) return fail(rest, '-');
  let hold = rest;
  const month = num(true);
  if (month === undefined) return fail(hold, '01');
  if (month < 1 || month > 12) return outOfRange('month');
  if (!skip('-')) return fail(rest, '-');
  hold = rest;
  const day = num(true);
  if (day === undefined) return fail(hold, '02');
  if (!skip('T')) return fail(rest, 'T');
  hold = rest;
  const hour = num(false);
  if (hour === undefined) return fail(hold, '15');
  if (hour >= 24) return outOfRange('hour');
  if (!skip(':')) return fail(rest, ':');
  hold = rest;
  const minute = num(true);
  if (minute === undefined) return fail(hold, '04');
  if (minute >= 60) return outOfRange('minute');
  if (!skip(':')) return fail(rest, ':');
  hold = rest;
  const second = num(true);
  if (second === undefined) return fail(hold, '05');
  if (second >= 60) return outOfRange('second');
  if (micro) {
    hold = rest;
    if (rest.length < 7 || (rest[0] !== '.' && rest[0] !== ',')) return fail(hold, '.000000');
    const frac = goAtoi(rest.slice(1, 7));
    if (frac === undefined) return fail(hold, '.000000');
    if (frac < 0) return outOfRange('fractional second');
    rest = rest.slice(7);
  } else if (rest.length >= 2 && (rest[0] === '.' || rest[0] === ',') && isDigit(rest, 1)) {
    // A fraction the layout does not name is accepted after the seconds.
    let n = 2;
    while (n < rest.length && isDigit(rest, n)) n++;
    rest = rest.slice(n);
  }
  hold = rest;
  if (rest[0] === 'Z') {
    rest = rest.slice(1);
  } else {
    if (rest.length < 6 || rest[3] !== ':') return fail(hold, 'Z07:00');
    // Go reads both numbers, then reports a range error before a bad sign or digit.
    const hh = twoDigits(rest.slice(1, 3));
    const mm = hh === undefined ? undefined : twoDigits(rest.slice(4, 6));
    if (mm !== undefined && mm > 60) return outOfRange('time zone offset minute');
    if (hh !== undefined && hh > 24) return outOfRange('time zone offset hour');
    if (hh === undefined || mm === undefined || (rest[0] !== '+' && rest[0] !== '-')) return fail(hold, 'Z07:00');
    rest = rest.slice(6);
  }
  if (rest.length > 0) return `parsing time ${goQuote(value)}: extra text: ${goQuote(rest)}`;
  if (day < 1 || day > daysIn(month, year)) return outOfRange('day');
  return undefined;
}

function isDigit(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  return c >= 48 && c <= 57;
}

function twoDigits(s: string): number | undefined {
  return isDigit(s, 0) && isDigit(s, 1) ? Number(s) : undefined;
}

/** time's atoi: an optional sign, then digits only. */
function goAtoi(s: string): number | undefined {
  const m = /^([+-]?)([0-9]+)$/.exec(s);
  if (!m) return undefined;
  return m[1] === '-' ? -Number(m[2]) : Number(m[2]);
}

function daysIn(month: number, year: number): number {
  if (month === 2) return (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** time's own quote(): ASCII kept (with " and \ escaped), every byte of anything else as \xNN. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const code = ch.codePointAt(0)!;
    if (code >= 0x80 || code < 0x20) {
      for (const byte of Buffer.from(ch, 'utf8')) out += `\\x${byte.toString(16).padStart(2, '0')}`;
    } else {
      out += ch === '"' || ch === '\\' ? `\\${ch}` : ch;
    }
  }
  return `${out}"`;
}

/**
 * Length of the bytes a standard (padded) base64 string decodes to, or the offset Go's decoder would report as
 * "illegal base64 data at input byte N". Go skips \r and \n.
 */
export function decodedBase64Length(value: string): { bytes: number } | { illegalAt: number } {
  let chars = 0;
  let padding = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    if (c === '\r' || c === '\n') continue;
    if (c === '=') {
      padding++;
      chars++;
      continue;
    }
    if (padding > 0 || !/[A-Za-z0-9+/]/.test(c)) return { illegalAt: i };
    chars++;
  }
  if (chars % 4 !== 0 || padding > 2) return { illegalAt: value.length };
  return { bytes: (chars / 4) * 3 - padding };
}
