/**
 * Kubernetes protobuf for a given set of message packages: which kinds have a protobuf form, decoding request
 * bodies and encoding answers. The server builds one from the shared packages and the built-in groups' (the
 * package list is passed in, so this layer never imports a group). The schema and writers are built on first use.
 */
import { decodeKubeProtobuf, decodeSchema, supportedProtobufKinds, type DecodedKubeObject, type DecodeSchema } from './decode.js';
import { ANSWER_KINDS, requestKindsOf } from './defs/index.js';
import { Encoders, encodeKubeProtobuf, encodeKubeProtobufList, ProtobufEncodeError } from './encode.js';
import type { PackageDefs } from './schema.js';

type Json = Record<string, unknown>;

export class KubeProtobuf {
  private readonly requestKinds: ReadonlyMap<string, string>;
  private built: DecodeSchema | undefined;
  private encoders: Encoders | undefined;

  constructor(private readonly packages: readonly PackageDefs[]) {
    this.requestKinds = requestKindsOf(packages);
  }

  /** The protobufjs Root and kind table behind the codec (tests encode fixtures with it). */
  schema(): DecodeSchema {
    return (this.built ??= decodeSchema(this.packages));
  }

  /** The message of a kind kube serves in protobuf (its built-in, typed kinds), or undefined (custom resources). */
  messageOf(apiVersion: string, kind: string): string | undefined {
    const key = `${apiVersion}|${kind}`;
    return this.requestKinds.get(key) ?? ANSWER_KINDS.get(key);
  }

  /** Whether kube serves this kind in protobuf. */
  hasForm(apiVersion: string, kind: string): boolean {
    return this.messageOf(apiVersion, kind) !== undefined;
  }

  /** A request body in kube JSON; throws ProtobufDecodeError and nothing else. */
  decode(body: Buffer | Uint8Array): DecodedKubeObject {
    return decodeKubeProtobuf(this.schema(), body);
  }

  /** The kinds decode understands, as `<apiVersion>, Kind=<Kind>` (DeleteOptions: any group-version). */
  supportedKinds(): string[] {
    return supportedProtobufKinds(this.schema());
  }

  /** An object (its `apiVersion` and `kind` name the message) as kube's protobuf serializer writes it. */
  encode(obj: Json): Buffer {
    return encodeKubeProtobuf(this.writers(), (apiVersion, kind) => this.messageFor(apiVersion, kind), obj);
  }

  /** A `<Kind>List` of objects of `itemKind`; the items' own apiVersion and kind are not part of the message. */
  encodeList(apiVersion: string, listKind: string, itemKind: string, listMeta: Json, items: readonly unknown[]): Buffer {
    return encodeKubeProtobufList(this.writers(), this.messageFor(apiVersion, itemKind), apiVersion, listKind, listMeta, items);
  }

  private writers(): Encoders {
    return (this.encoders ??= new Encoders(this.schema()));
  }

  private messageFor(apiVersion: string, kind: string): string {
    const name = this.messageOf(apiVersion, kind);
    if (!name) throw new ProtobufEncodeError(`${apiVersion}, Kind=${kind} has no protobuf form`);
    return name;
  }
}
