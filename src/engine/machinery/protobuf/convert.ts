/**
 * Turns a protobufjs-decoded Kubernetes message into the JSON object kube's Go types would marshal to.
 *
 * gogo proto2 writes every non-nullable field, even empty ones, so "present on the wire" says nothing for them:
 * their zero values ("", 0, false, empty map/list, empty struct, zero Time) are dropped, which is what
 * `omitempty` does and what a JSON client would have sent. Go pointers (`?` in the defs) are written only when
 * non-nil, so their presence is kept even when the value is zero (`automountServiceAccountToken: false`).
 */
import { setOwnValue } from '../own-properties.js';
import protobufjs from 'protobufjs';
import type { FieldMetaIndex } from './schema.js';

/** Raised for a well-formed protobuf whose contents cannot become JSON; decode.ts wraps it. */
export class ConversionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConversionError';
  }
}

type Message = Record<string, unknown>;
/** `whole()` is the message converted field by field (for unions that marshal as one of their members). */
type Special = (msg: Message, path: string, whole: () => Message) => unknown;

// Go's time package represents years 1..9999 in RFC 3339; anything else is hostile input, not a timestamp.
const MIN_SECONDS = -62135596800; // 0001-01-01T00:00:00Z
const MAX_SECONDS = 253402300799; // 9999-12-31T23:59:59Z

const own = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

/** int64 arrives as a number or as a Long (when protobufjs found the `long` package). */
export function int64ToNumber(v: unknown, path: string): number {
  let n: number;
  if (typeof v === 'number') n = v;
  else if (v !== null && typeof v === 'object' && 'low' in v && 'high' in v) {
    const l = v as { low: number; high: number; unsigned?: boolean };
    n = (l.unsigned ? l.high >>> 0 : l.high | 0) * 4294967296 + (l.low >>> 0);
  } else throw new ConversionError(`${path}: expected an int64, got ${typeof v}`);
  if (!Number.isSafeInteger(n)) throw new ConversionError(`${path}: int64 value ${n} cannot be represented in JSON`);
  return n;
}

function formatTime(msg: Message, path: string, micro: boolean): string | undefined {
  // A zero Go time marshals to an empty message; `seconds: 0` on the wire is the Unix epoch, not zero.
  if (!own(msg, 'seconds') && !own(msg, 'nanos')) return undefined;
  let sec = int64ToNumber(msg.seconds ?? 0, `${path}.seconds`);
  // metav1.Time discards nanos when unmarshalling; MicroTime keeps them and truncates to microseconds.
  let nanos = micro ? Number(msg.nanos ?? 0) : 0;
  if (nanos < 0 || nanos >= 1e9) {
    // time.Unix normalises an out-of-range nsec into seconds.
    const carry = Math.floor(nanos / 1e9);
    sec += carry;
    nanos -= carry * 1e9;
  }
  if (sec < MIN_SECONDS || sec > MAX_SECONDS) throw new ConversionError(`${path}: timestamp ${sec}s is out of range`);
  const base = new Date(sec * 1000).toISOString().slice(0, 19);
  return micro ? `${base}.${String(Math.floor(nanos / 1000)).padStart(6, '0')}Z` : `${base}Z`;
}

const SPECIAL: Record<string, Special> = {
  'meta.v1.Time': (m, p) => formatTime(m, p, false),
  'meta.v1.MicroTime': (m, p) => formatTime(m, p, true),
  'resource.Quantity': (m) => (typeof m.string === 'string' ? m.string : ''),
  // type 1 is String; anything else reads intVal, as intstr.IntOrString.MarshalJSON does.
  'intstr.IntOrString': (m, p) =>
    int64ToNumber(m.type ?? 0, `${p}.type`) === 1 ? String(m.strVal ?? '') : Number(m.intVal ?? 0),
  'runtime.RawExtension': (m, p) => rawJson(m, p),
  // managedFields' fieldsV1: the field set as raw JSON bytes.
  'meta.v1.FieldsV1': (m, p) => rawJson(m, p),
  // apiextensions' JSON holds raw JSON bytes (a default, an enum value, an example).
  'apiextensions.v1.JSON': (m, p) => rawJson(m, p),
  // The unions marshal as one member, as their Go MarshalJSON methods do.
  'apiextensions.v1.JSONSchemaPropsOrArray': (_m, _p, whole) => {
    const w = whole();
    return Array.isArray(w.jSONSchemas) ? w.jSONSchemas : (w.schema ?? null);
  },
  'apiextensions.v1.JSONSchemaPropsOrBool': (_m, _p, whole) => {
    const w = whole();
    return w.schema ?? w.allows === true;
  },
  'apiextensions.v1.JSONSchemaPropsOrStringArray': (_m, _p, whole) => {
    const w = whole();
    return Array.isArray(w.property) ? w.property : (w.schema ?? null);
  },
  // ExtraValue is `type ExtraValue []string` in Go: a bare array in JSON.
  'authorization.v1.ExtraValue': (m) => stringList(m.items),
  'authentication.v1.ExtraValue': (m) => stringList(m.items),
  'authentication.v1.AttestationValue': (m) => stringList(m.items),
};

function rawJson(m: Message, path: string): unknown {
  const raw = m.raw as Uint8Array | undefined;
  if (!raw || raw.length === 0) return undefined;
  try {
    return JSON.parse(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('utf8')) as unknown;
  } catch {
    throw new ConversionError(`${path}: embedded value is not JSON`);
  }
}

function stringList(v: unknown): string[] {
  return Array.isArray(v) ? v.map(String) : [];
}

function isZero(v: unknown): boolean {
  if (v === undefined || v === null || v === '' || v === 0 || v === false) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v === 'object') return Object.keys(v).length === 0;
  return false;
}

function fullName(t: protobufjs.Type): string {
  return t.fullName.startsWith('.') ? t.fullName.slice(1) : t.fullName;
}

function convertValue(field: protobufjs.Field, v: unknown, meta: FieldMetaIndex, path: string): unknown {
  const rt = field.resolvedType;
  if (rt instanceof protobufjs.Type) {
    if (v === null || typeof v !== 'object') throw new ConversionError(`${path}: expected a message`);
    const special = SPECIAL[fullName(rt)];
    return special
      ? special(v as Message, path, () => messageToJson(rt, v as Message, meta, path))
      : messageToJson(rt, v as Message, meta, path);
  }
  switch (field.type) {
    case 'bytes': {
      // A map entry without its value is Go's nil []byte (JSON null); protobufjs fills in a default that is no bytes.
      if (!(v instanceof Uint8Array)) return undefined;
      const b = v as Uint8Array;
      // Go marshals []byte as standard base64 with padding.
      return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('base64');
    }
    case 'int64':
      return int64ToNumber(v, path);
    case 'double':
      // Go's encoding/json refuses NaN and ±Inf.
      if (typeof v !== 'number' || !Number.isFinite(v)) throw new ConversionError(`${path}: ${String(v)} is not a JSON number`);
      // -0 has no JSON spelling of its own in JavaScript; as a bound it means 0.
      return v === 0 ? 0 : v;
    default:
      return v;
  }
}

/** Convert one decoded message; `path` names it in error messages (`metadata.creationTimestamp`). */
export function messageToJson(type: protobufjs.Type, msg: Message, meta: FieldMetaIndex, path: string): Message {
  const out: Message = {};
  const typeName = fullName(type);
  for (const field of type.fieldsArray) {
    const name = field.name;
    const fm = meta.get(`${typeName}.${name}`);
    if (!fm) throw new ConversionError(`${path ? `${path}.${name}` : name}: no field metadata (schema bug)`);
    const key = fm.jsonName;
    const fpath = path ? `${path}.${key}` : key;
    const v = msg[name];
    if (fm.shape === 'map') {
      if (v === null || typeof v !== 'object') continue;
      // Go's encoding/json sorts map keys; match it so output is deterministic.
      const keys = Object.keys(v).sort();
      if (keys.length === 0) continue;
      const m: Message = {};
      for (const k of keys) {
        const cv = convertValue(field, (v as Message)[k], meta, `${fpath}[${JSON.stringify(k)}]`);
        setOwnValue(m, k, cv === undefined ? null : cv);
      }
      out[key] = m;
    } else if (fm.shape === 'repeated') {
      if (!Array.isArray(v) || v.length === 0) continue;
      // List elements are never dropped: `apiGroups: [""]` means the core group.
      out[key] = v.map((e, i) => {
        const cv = convertValue(field, e, meta, `${fpath}[${i}]`);
        return cv === undefined ? null : cv;
      });
    } else {
      if (!own(msg, name)) continue;
      const cv = convertValue(field, v, meta, fpath);
      if (cv === undefined) continue;
      if (!fm.pointer && isZero(cv)) continue;
      out[key] = cv;
    }
  }
  return out;
}
