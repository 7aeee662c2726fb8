/**
 * Encoder for Kubernetes protobuf answers (`application/vnd.kubernetes.protobuf`): kube JSON in, the bytes
 * kube-apiserver would write out. An object is the 4 magic bytes `k8s\0` and a runtime.Unknown whose typeMeta names
 * its apiVersion and kind and whose `raw` holds the object's own message; a watch event is a length-prefixed
 * meta.v1.WatchEvent whose object is such an envelope.
 *
 * The bytes are gogo proto2's, as Go's generated Marshal methods write them: fields in number order, every
 * non-pointer field written even when zero (an empty string, `false`, 0, an empty message), Go pointers (`?` in the
 * defs) only when the JSON has them, map entries sorted by key bytes. So a Go client decodes exactly the object a JSON
 * client would have been given.
 *
 * Each message gets a compiled writer (one closure per field, built once from the defs), so encoding walks the object,
 * not the schema. The few kinds with a JSON form of their own (Time, Quantity, IntOrString, raw JSON, the
 * JSONSchemaProps unions) have writers of their own, the inverses of convert.ts.
 */
import protobufjs from 'protobufjs';
import type { BuiltSchema } from './schema.js';

const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]); // "k8s\0"

type Json = Record<string, unknown>;
type Writer = protobufjs.Writer;
/** Writes a message's fields (not its tag or length) for a JSON value. */
type ContentWriter = (w: Writer, value: unknown) => void;

const LEN = 2;
const VARINT = 0;
const FIXED64 = 1;
const tag = (id: number, wireType: number) => ((id << 3) | wireType) >>> 0;

const own = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

function num(v: unknown): number {
  if (typeof v === 'number') return Number.isFinite(v) ? v : 0;
  if (typeof v === 'boolean') return v ? 1 : 0;
  const n = Number(v);
  return Number.isFinite(n) ? n : 0;
}

function str(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === undefined || v === null) return '';
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

/** Go's sort.Strings: byte order of the UTF-8 encodings (JavaScript's `<` compares UTF-16 code units). */
function byteOrder(a: string, b: string): number {
  if (a === b) return 0;
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7f]*$/.test(a) && /^[\x00-\x7f]*$/.test(b)) return a < b ? -1 : 1;
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

// RFC 3339 as kube writes it: seconds, an optional fraction (MicroTime), Z or an offset.
const RFC3339 = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/i;

/** seconds and nanos of a timestamp string; undefined for a zero or unreadable time (Go marshals those as empty). */
function timestamp(v: unknown, micro: boolean): { seconds: number; nanos: number } | undefined {
  if (typeof v !== 'string' || v === '') return undefined;
  const m = RFC3339.exec(v);
  const ms = Date.parse(m ? `${m[1]}${m[3]}` : v);
  if (Number.isNaN(ms)) return undefined;
  const seconds = Math.floor(ms / 1000);
  // metav1.Time is whole seconds on the wire; MicroTime keeps microseconds.
  const nanos = micro && m?.[2] ? Number(m[2].padEnd(9, '0').slice(0, 6)) * 1000 : 0;
  return { seconds, nanos };
}

function writeTime(micro: boolean): ContentWriter {
  return (w, v) => {
    const t = timestamp(v, micro);
    if (!t) return;
    w.uint32(tag(1, VARINT)).int64(t.seconds);
    w.uint32(tag(2, VARINT)).int32(t.nanos);
  };
}

/** Raw JSON bytes (runtime.RawExtension, apiextensions JSON, FieldsV1): absent or null is Go's nil. */
const writeRawJson: ContentWriter = (w, v) => {
  if (v === undefined || v === null) return;
  w.uint32(tag(1, LEN)).bytes(Buffer.from(JSON.stringify(v), 'utf8'));
};

function writeStrings(w: Writer, id: number, v: unknown): void {
  if (!Array.isArray(v)) return;
  for (const s of v) w.uint32(tag(id, LEN)).string(str(s));
}

const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Writers for the messages whose JSON form is not an object of their fields. */
function specialWriters(message: (name: string) => ContentWriter): Record<string, ContentWriter> {
  const schema = () => message('apiextensions.v1.JSONSchemaProps');
  const nested = (w: Writer, id: number, v: unknown) => {
    w.uint32(tag(id, LEN)).fork();
    schema()(w, v);
    w.ldelim();
  };
  return {
    'meta.v1.Time': writeTime(false),
    'meta.v1.MicroTime': writeTime(true),
    'meta.v1.FieldsV1': writeRawJson,
    'runtime.RawExtension': writeRawJson,
    'apiextensions.v1.JSON': writeRawJson,
    'resource.Quantity': (w, v) => {
      w.uint32(tag(1, LEN)).string(v === undefined || v === null ? '0' : str(v));
    },
    'intstr.IntOrString': (w, v) => {
      const isString = typeof v === 'string';
      w.uint32(tag(1, VARINT)).int64(isString ? 1 : 0);
      w.uint32(tag(2, VARINT)).int32(isString ? 0 : num(v));
      w.uint32(tag(3, LEN)).string(isString ? v : '');
    },
    // `type ExtraValue []string` in Go.
    'authorization.v1.ExtraValue': (w, v) => writeStrings(w, 1, v),
    'authentication.v1.ExtraValue': (w, v) => writeStrings(w, 1, v),
    'authentication.v1.AttestationValue': (w, v) => writeStrings(w, 1, v),
    // The unions: JSON holds one member; Go's UnmarshalJSON picks the field by the value's shape.
    'apiextensions.v1.JSONSchemaPropsOrArray': (w, v) => {
      if (isObject(v)) nested(w, 1, v);
      else if (Array.isArray(v)) for (const s of v) nested(w, 2, s);
    },
    'apiextensions.v1.JSONSchemaPropsOrBool': (w, v) => {
      w.uint32(tag(1, VARINT)).bool(isObject(v) || v === true);
      if (isObject(v)) nested(w, 2, v);
    },
    'apiextensions.v1.JSONSchemaPropsOrStringArray': (w, v) => {
      if (isObject(v)) nested(w, 1, v);
      else writeStrings(w, 2, v);
    },
  };
}

function fullName(t: protobufjs.ReflectionObject): string {
  return t.fullName.startsWith('.') ? t.fullName.slice(1) : t.fullName;
}

/** The compiled writers of a schema's messages, each built on first use. */
export class Encoders {
  private readonly writers = new Map<string, ContentWriter>();
  private readonly special: Record<string, ContentWriter>;

  constructor(private readonly schema: BuiltSchema) {
    this.special = specialWriters((name) => this.message(name));
  }

  message(name: string): ContentWriter {
    const found = this.writers.get(name);
    if (found) return found;
    const special = this.special[name];
    if (special) {
      this.writers.set(name, special);
      return special;
    }
    // Registered before compiling, so recursive messages (JSONSchemaProps) find themselves.
    let compiled: ContentWriter | undefined;
    const writer: ContentWriter = (w, v) => compiled!(w, v);
    this.writers.set(name, writer);
    compiled = this.compile(this.schema.root.lookupType(`.${name}`));
    return writer;
  }

  private compile(type: protobufjs.Type): ContentWriter {
    const typeName = fullName(type);
    const fields = [...type.fieldsArray].sort((a, b) => a.id - b.id).map((f) => this.field(typeName, f));
    return (w, v) => {
      const obj = isObject(v) ? v : {};
      for (const write of fields) write(w, obj);
    };
  }

  /** One field's writer: reads the field's JSON key from the object and writes tag(s) and value(s). */
  private field(typeName: string, f: protobufjs.Field): (w: Writer, obj: Json) => void {
    const meta = this.schema.fieldMeta.get(`${typeName}.${f.name}`);
    if (!meta) throw new Error(`no field metadata for ${typeName}.${f.name} (schema bug)`);
    const key = meta.jsonName;
    const id = f.id;
    const value = this.valueWriter(f);
    if (meta.shape === 'map') {
      const keyTag = tag(1, LEN);
      return (w, obj) => {
        const m = own(obj, key) ? obj[key] : undefined;
        if (!isObject(m)) return;
        for (const k of Object.keys(m).sort(byteOrder)) {
          const entry = m[k];
          // Go's nil []byte in a map is written without its value.
          if (f.type === 'bytes' && (entry === null || entry === undefined)) {
            w.uint32(tag(id, LEN)).fork().uint32(keyTag).string(k).ldelim();
            continue;
          }
          w.uint32(tag(id, LEN)).fork().uint32(keyTag).string(k);
          value(w, 2, entry);
          w.ldelim();
        }
      };
    }
    if (meta.shape === 'repeated') {
      return (w, obj) => {
        const list = own(obj, key) ? obj[key] : undefined;
        if (!Array.isArray(list)) return;
        for (const e of list) value(w, id, e);
      };
    }
    const pointer = meta.pointer;
    // A nil []byte is never written, pointer or not.
    const optional = pointer || f.type === 'bytes';
    return (w, obj) => {
      const v = own(obj, key) ? obj[key] : undefined;
      if (optional && (v === undefined || v === null)) return;
      value(w, id, v);
    };
  }

  private valueWriter(f: protobufjs.Field): (w: Writer, id: number, v: unknown) => void {
    f.resolve();
    if (f.resolvedType instanceof protobufjs.Type) {
      const name = fullName(f.resolvedType);
      return (w, id, v) => {
        w.uint32(tag(id, LEN)).fork();
        this.message(name)(w, v);
        w.ldelim();
      };
    }
    switch (f.type) {
      case 'string':
        return (w, id, v) => void w.uint32(tag(id, LEN)).string(str(v));
      case 'bool':
        return (w, id, v) => void w.uint32(tag(id, VARINT)).bool(v === true);
      case 'int32':
        return (w, id, v) => void w.uint32(tag(id, VARINT)).int32(num(v));
      case 'int64':
        return (w, id, v) => void w.uint32(tag(id, VARINT)).int64(Math.trunc(num(v)));
      case 'double':
        return (w, id, v) => void w.uint32(tag(id, FIXED64)).double(num(v));
      case 'bytes':
        // Go marshals []byte as standard base64.
        return (w, id, v) => void w.uint32(tag(id, LEN)).bytes(Buffer.from(typeof v === 'string' ? v : '', 'base64'));
      default:
        throw new Error(`unsupported protobuf field type ${f.type} (schema bug)`);
    }
  }
}

/** Thrown for a kind without a protobuf form: callers negotiate first, so this is a programming error. */
export class ProtobufEncodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProtobufEncodeError';
  }
}

/** `k8s\0` + runtime.Unknown{typeMeta, raw, contentEncoding "", contentType ""}, with `raw` written by `body`. */
function envelope(apiVersion: string, kind: string, body: (w: Writer) => void): Buffer {
  const w = protobufjs.Writer.create();
  w.uint32(tag(1, LEN)).fork().uint32(tag(1, LEN)).string(apiVersion).uint32(tag(2, LEN)).string(kind).ldelim();
  w.uint32(tag(2, LEN)).fork();
  body(w);
  w.ldelim();
  w.uint32(tag(3, LEN)).string('');
  w.uint32(tag(4, LEN)).string('');
  return Buffer.concat([MAGIC, w.finish()]);
}

/** An object as kube's protobuf serializer writes it, in the message `messageFor` names for its apiVersion and kind. */
export function encodeKubeProtobuf(enc: Encoders, messageFor: (apiVersion: string, kind: string) => string, obj: Json): Buffer {
  const apiVersion = str(obj.apiVersion);
  const kind = str(obj.kind);
  const write = enc.message(messageFor(apiVersion, kind));
  return envelope(apiVersion, kind, (w) => write(w, obj));
}

/**
 * A list (`<Kind>List`: metadata 1, items 2, as every kube list message) of objects of `itemKind`. The items' own
 * apiVersion and kind are not part of the message.
 */
export function encodeKubeProtobufList(
  enc: Encoders,
  itemMessage: string,
  apiVersion: string,
  listKind: string,
  listMeta: Json,
  items: readonly unknown[],
): Buffer {
  const item = enc.message(itemMessage);
  const meta = enc.message('meta.v1.ListMeta');
  return envelope(apiVersion, listKind, (w) => {
    w.uint32(tag(1, LEN)).fork();
    meta(w, listMeta);
    w.ldelim();
    for (const obj of items) {
      w.uint32(tag(2, LEN)).fork();
      item(w, obj);
      w.ldelim();
    }
  });
}

/**
 * One watch event in kube's protobuf stream (`application/vnd.kubernetes.protobuf;stream=watch`): a 4-byte
 * big-endian length, then a meta.v1.WatchEvent{type, object: RawExtension{raw: the object's envelope}}.
 */
export function protobufWatchFrame(type: string, object: Uint8Array): Buffer {
  const w = protobufjs.Writer.create();
  w.uint32(tag(1, LEN)).string(type);
  w.uint32(tag(2, LEN)).fork().uint32(tag(1, LEN)).bytes(object).ldelim();
  const event = w.finish();
  const frame = Buffer.allocUnsafe(4 + event.length);
  frame.writeUInt32BE(event.length, 0);
  frame.set(event, 4);
  return frame;
}
