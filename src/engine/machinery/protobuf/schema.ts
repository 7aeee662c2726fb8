/**
 * A compact way to write down the few Kubernetes protobuf messages we decode, and the builder that turns it into a
 * protobufjs reflection Root.
 *
 * Why not the upstream generated.proto files: they are large (core/v1 alone is ~240 KB), carry thousands of
 * messages we never see in a request body, and vendoring them ties us to their licence headers and churn. The
 * wire format only needs field numbers and types, so each API group module lists exactly the fields we decode,
 * keyed by their JSON name (or a protobuf-safe name mapped to it in `jsonNames`), with the field numbers of k8s.io/api v0.32 generated.proto.
 *
 * Field spec grammar: `"<number> <modifier?><type>"`
 *   modifier  `[]` repeated, `{}` map<string, type>, `?` Go pointer (field kept when present, even if zero)
 *   type      `string` `bool` `int32` `int64` `double` `bytes`, a message of the same package (`ObjectReference`),
 *             or a message of another package by its package-qualified name (`meta.v1.ObjectMeta`).
 * Non-pointer fields are always on the wire (gogo proto2 writes every non-nullable field), so the converter drops
 * their zero values to recover the omitempty JSON form; `?` marks the Go pointers, whose presence carries meaning.
 */
import protobufjs from 'protobufjs';

export type FieldSpec = string;

export interface PackageDefs {
  /** protobufjs package path, e.g. `core.v1`; other packages refer to messages as `core.v1.Name`. */
  pkg: string;
  /** The apiVersion whose kinds live here (omit for helper packages such as meta.v1 or intstr). */
  apiVersion?: string;
  /** Messages that are top-level kinds (decodable from a runtime.Unknown envelope). */
  kinds?: string[];
  messages: Record<string, Record<string, FieldSpec>>;
  /** JSON names that are not protobuf identifiers (`$ref`, `x-kubernetes-list-type`): message → field → JSON name. */
  jsonNames?: Record<string, Record<string, string>>;
}

export type FieldShape = 'scalar' | 'repeated' | 'map';

/** What the converter needs to know about a field beyond what protobufjs reflects. */
export interface FieldMeta {
  shape: FieldShape;
  /** Go pointer: keep the JSON field whenever it was on the wire. */
  pointer: boolean;
  /** The field's JSON name (the key in the defs unless `jsonNames` says otherwise). */
  jsonName: string;
}

const SCALARS = new Set(['string', 'bool', 'int32', 'int64', 'double', 'bytes']);
const SPEC_RE = /^(\d+) (\[\]|\{\}|\?)?([A-Za-z][A-Za-z0-9.]*)$/;

interface JsonField {
  id: number;
  type: string;
  rule?: 'repeated';
  keyType?: 'string';
}

/** Field metadata by `<full message name>.<json name>`; full names have no leading dot (`core.v1.Secret`). */
export type FieldMetaIndex = Map<string, FieldMeta>;

export interface BuiltSchema {
  root: protobufjs.Root;
  fieldMeta: FieldMetaIndex;
  /** `<apiVersion>|<Kind>` → full message name. */
  kinds: Map<string, string>;
}

/** Build one protobufjs Root from all package definitions. Throws on a malformed spec (a programming error). */
export function buildSchema(packages: readonly PackageDefs[]): BuiltSchema {
  const nested: Record<string, unknown> = {};
  const fieldMeta: FieldMetaIndex = new Map();
  const kinds = new Map<string, string>();

  for (const p of packages) {
    const messages: Record<string, { fields: Record<string, JsonField> }> = {};
    for (const [msgName, fields] of Object.entries(p.messages)) {
      const jsonFields: Record<string, JsonField> = {};
      for (const [fieldName, spec] of Object.entries(fields)) {
        const m = SPEC_RE.exec(spec);
        if (!m) throw new Error(`bad field spec ${p.pkg}.${msgName}.${fieldName}: ${JSON.stringify(spec)}`);
        const [, num, mod, typeName] = m as unknown as [string, string, string | undefined, string];
        // Absolute references (leading dot) so protobufjs never resolves `v1.X` against the wrong package.
        const type = SCALARS.has(typeName) ? typeName : typeName.includes('.') ? `.${typeName}` : `.${p.pkg}.${typeName}`;
        const f: JsonField = { id: Number(num), type };
        if (mod === '[]') f.rule = 'repeated';
        if (mod === '{}') f.keyType = 'string';
        jsonFields[fieldName] = f;
        fieldMeta.set(`${p.pkg}.${msgName}.${fieldName}`, {
          shape: mod === '[]' ? 'repeated' : mod === '{}' ? 'map' : 'scalar',
          pointer: mod === '?',
          jsonName: p.jsonNames?.[msgName]?.[fieldName] ?? fieldName,
        });
      }
      messages[msgName] = { fields: jsonFields };
    }
    insertPackage(nested, p.pkg.split('.'), messages);
    for (const kind of p.kinds ?? []) {
      if (!p.apiVersion) throw new Error(`package ${p.pkg} lists kinds but no apiVersion`);
      if (!p.messages[kind]) throw new Error(`kind ${kind} has no message in ${p.pkg}`);
      kinds.set(`${p.apiVersion}|${kind}`, `${p.pkg}.${kind}`);
    }
  }

  const root = protobufjs.Root.fromJSON({ nested } as protobufjs.INamespace);
  // Resolve every type reference now, so a typo fails at module load and not on the first request.
  root.resolveAll();
  return { root, fieldMeta, kinds };
}

function insertPackage(nested: Record<string, unknown>, path: string[], messages: Record<string, unknown>): void {
  let cur = nested;
  for (const part of path) {
    const next = (cur[part] ??= { nested: {} }) as { nested: Record<string, unknown> };
    cur = next.nested;
  }
  Object.assign(cur, messages);
}
