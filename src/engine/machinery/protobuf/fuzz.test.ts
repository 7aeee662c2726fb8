/**
 * Hostile input: random, truncated and mutated bodies must either decode to plain JSON or throw
 * ProtobufDecodeError — never another error type, never hang, never blow up memory.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kubeProtobuf } from '../../builtin/protobuf.js';
import { ProtobufDecodeError } from './index.js';
import { envelope, MAGIC } from '../../builtin/protobuf-test-support.js';
import { rng } from '../../../../test/helpers/seeded-random.js';

const dir = join(import.meta.dirname, 'testdata');
const fixtures = readdirSync(dir)
  .filter((f) => f.endsWith('.pb'))
  .sort()
  .map((f) => readFileSync(join(dir, f)));

/** Runs one body; returns 'ok' or the error reason, and fails the test on any foreign error. */
function attempt(body: Buffer): string {
  try {
    const { object } = kubeProtobuf.decode(body);
    // The result must be plain JSON: no Long, Buffer or undefined leaking out.
    expect(JSON.parse(JSON.stringify(object))).toStrictEqual(object);
    return 'ok';
  } catch (e) {
    if (!(e instanceof ProtobufDecodeError)) throw new Error(`foreign error for ${body.toString('hex').slice(0, 200)}: ${String(e)}`);
    return e.reason;
  }
}

/** The inner object bytes of a fixture, so mutations can target the object decoder behind a valid envelope. */
function rawOf(body: Buffer): { apiVersion: string; kind: string; raw: Buffer } {
  // Envelope layout from kubectl: 0a <len> typeMeta, 12 <len> raw, … — parse just enough by hand.
  let pos = 4;
  const varint = (): number => {
    let v = 0;
    for (let shift = 0; ; shift += 7) {
      const b = body[pos++] ?? 0;
      v += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return v;
    }
  };
  let tm: Buffer = Buffer.alloc(0);
  let raw: Buffer = Buffer.alloc(0);
  while (pos < body.length) {
    const tag = varint();
    const len = varint();
    const val = body.subarray(pos, pos + len);
    pos += len;
    if (tag === 0x0a) tm = val;
    if (tag === 0x12) raw = val;
  }
  const strs: string[] = [];
  for (let p = 0; p < tm.length; ) {
    const len = tm[p + 1] ?? 0;
    strs.push(tm.subarray(p + 2, p + 2 + len).toString());
    p += 2 + len;
  }
  return { apiVersion: strs[0] ?? '', kind: strs[1] ?? '', raw };
}

describe('fuzz', () => {
  it('2,000+ random, truncated and mutated bodies only ever throw ProtobufDecodeError', () => {
    const rand = rng(0xc0ffee);
    const int = (n: number) => Math.floor(rand() * n);
    const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)] as T;
    const counts: Record<string, number> = {};
    let total = 0;
    const run = (b: Buffer) => {
      const r = attempt(b);
      counts[r] = (counts[r] ?? 0) + 1;
      total++;
    };
    // Every truncation of every fixture.
    for (const f of fixtures) for (let n = 0; n < f.length; n++) run(f.subarray(0, n));
    // Pure noise, with and without the magic.
    for (let i = 0; i < 300; i++) {
      const noise = Buffer.from(Array.from({ length: int(300) }, () => int(256)));
      run(i % 2 ? Buffer.concat([MAGIC, noise]) : noise);
    }
    // Byte flips, inserts and deletes anywhere in a fixture.
    for (let i = 0; i < 800; i++) {
      const b = Buffer.from(pick(fixtures));
      for (let k = 1 + int(4); k > 0; k--) b[int(b.length)] = int(256);
      if (i % 3 === 0) run(Buffer.concat([b.subarray(0, int(b.length)), Buffer.from([int(256)]), b.subarray(int(b.length))]));
      else run(b);
    }
    // Mutations of the object bytes behind an intact envelope, to reach the object decoder and converter.
    for (let i = 0; i < 800; i++) {
      const { apiVersion, kind, raw } = rawOf(pick(fixtures));
      const m = Buffer.from(raw);
      for (let k = 1 + int(3); k > 0; k--) if (m.length) m[int(m.length)] = int(256);
      run(envelope(apiVersion, kind, i % 4 === 0 ? m.subarray(0, int(m.length + 1)) : m));
    }

    expect(total).toBeGreaterThanOrEqual(2000);
    expect(counts.InvalidEnvelope).toBeGreaterThan(0);
    expect(counts.InvalidObject).toBeGreaterThan(0);
    expect(counts.ok).toBeGreaterThan(0);
  });

  // A decoder that recursed without bound or did quadratic work on these shapes would overflow its stack (not an
  // InvalidObject) or run past the test's timeout: the cases need no clock of their own.
  it('survives adversarial shapes: huge length prefixes, deep nesting, 300,000 repeated fields', () => {
    const cm = (raw: Buffer) => attempt(envelope('v1', 'ConfigMap', raw));
    // A length prefix claiming 2^35 bytes.
    expect(cm(Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x7f]))).toBe('InvalidObject');
    // An unterminated varint.
    expect(cm(Buffer.alloc(64, 0xff))).toBe('InvalidObject');
    // 200,000 nested group starts under an unknown field number: unbounded recursion in a naive skipper.
    expect(cm(Buffer.alloc(200_000, 0x7b))).toBe('InvalidObject');
    // The reserved wire types 6 and 7. (Field number 0 is skipped like any unknown field; Go would reject it.)
    for (const b of [[0x0e], [0x0f]]) expect(cm(Buffer.from(b))).toBe('InvalidObject');
    expect(['ok', 'InvalidObject']).toContain(cm(Buffer.from([0x00, 0x00])));
    // 300,000 empty finalizers inside metadata: large but linear in the input.
    const fin = Buffer.alloc(600_000);
    for (let i = 0; i < fin.length; i += 2) fin[i] = 0x72; // field 14, length-delimited, length 0
    const meta = Buffer.concat([Buffer.from([0x0a, 0xc0, 0xcf, 0x24]), fin]); // field 1, length 600000
    const r = kubeProtobuf.decode(envelope('v1', 'ConfigMap', meta)).object as { metadata: { finalizers: string[] } };
    expect(r.metadata.finalizers).toHaveLength(300_000);
    // An envelope whose typeMeta is garbage.
    expect(attempt(Buffer.concat([MAGIC, Buffer.from([0x0a, 0x03, 0xff, 0xff, 0xff])]))).toBe('InvalidEnvelope');
  });
});
