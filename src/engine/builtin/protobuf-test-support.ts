/**
 * Test helpers: encode objects the way gogo proto2 does (every non-nullable field written, zero or not), so the
 * decoder's omitempty logic is exercised the same way real kubectl bytes exercise it.
 */
import protobufjs from 'protobufjs';
import { kubeProtobuf } from './protobuf.js';

export const MAGIC = Buffer.from('k8s\0', 'latin1');

/** Encode `obj` as message `typeName` (e.g. `core.v1.Event`). protobufjs writes every own non-null property. */
export function encodeMessage(typeName: string, obj: Record<string, unknown>): Buffer {
  const type = kubeProtobuf.schema().root.lookupType(`.${typeName}`);
  return Buffer.from(type.encode(obj as unknown as protobufjs.Message).finish());
}

/** A full request body: magic + runtime.Unknown envelope around `raw`. */
export function envelope(apiVersion: string, kind: string, raw: Uint8Array, extra: Record<string, unknown> = {}): Buffer {
  const unknown = encodeMessage('runtime.Unknown', {
    typeMeta: { apiVersion, kind },
    raw,
    contentEncoding: '',
    contentType: '',
    ...extra,
  });
  return Buffer.concat([MAGIC, unknown]);
}

export function encodeKube(apiVersion: string, kind: string, typeName: string, obj: Record<string, unknown>): Buffer {
  return envelope(apiVersion, kind, encodeMessage(typeName, obj));
}

/** ObjectMeta as gogo writes it for a fresh object: all strings empty, generation 0, zero creationTimestamp. */
export function gogoMeta(fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: '',
    generateName: '',
    namespace: '',
    selfLink: '',
    uid: '',
    resourceVersion: '',
    generation: 0,
    creationTimestamp: {},
    labels: {},
    annotations: {},
    ownerReferences: [],
    finalizers: [],
    ...fields,
  };
}

/** Seconds since the epoch for an ISO timestamp. */
export function secs(iso: string): number {
  return Date.parse(iso) / 1000;
}
