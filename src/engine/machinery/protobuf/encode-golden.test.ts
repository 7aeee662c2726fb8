/**
 * The encoder against Go itself: testdata/golden.jsonl holds random objects of every kind kcpt answers in protobuf
 * (filled by randfill in test/peers/go/cmd/protobuf-golden), each as Go's encoding/json wrote it and as
 * apimachinery's protobuf serializer wrote the same object. Encoding the JSON must give Go's bytes exactly, and
 * decoding Go's bytes must give an object that encodes to them again.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { kubeProtobuf } from '../../builtin/protobuf.js';

interface Golden {
  name: string;
  json: Record<string, unknown> & { apiVersion: string; kind: string };
  protobuf: string;
}

const golden: Golden[] = readFileSync(new URL('./testdata/golden.jsonl', import.meta.url), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((line) => JSON.parse(line) as Golden);

/** Typed lists have no message of their own here: the list encoder writes them. */
function encode(obj: Golden['json']): Buffer {
  if (obj.kind === 'ConfigMapList') {
    return kubeProtobuf.encodeList(obj.apiVersion, obj.kind, 'ConfigMap', (obj.metadata ?? {}) as Record<string, unknown>, (obj.items ?? []) as unknown[]);
  }
  return kubeProtobuf.encode(obj);
}

describe('protobuf encoding matches Go byte for byte', () => {
  it('covers every kind with several samples', () => {
    const kinds = new Set(golden.map((g) => `${g.json.apiVersion} ${g.json.kind}`));
    expect(kinds.size).toBeGreaterThanOrEqual(27);
  });

  it.each(golden.map((g) => [g.name, g] as const))('%s', (_name, g) => {
    const expected = Buffer.from(g.protobuf, 'base64');
    expect(encode(g.json).toString('hex')).toBe(expected.toString('hex'));
    if (g.json.kind.endsWith('List') || g.json.kind === 'Status' || g.json.kind.startsWith('PartialObjectMetadata')) return;
    expect(kubeProtobuf.encode(kubeProtobuf.decode(expected).object).toString('hex')).toBe(expected.toString('hex'));
  });
});
