import { describe, expect, it } from 'vitest';
import { MAX_REFERENCES, openValueCodec, ValueCodec, type ValueReference } from './value-codec.js';
import { rng } from '../../../test/helpers/seeded-random.js';

const sample = JSON.stringify({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: {
    annotations: { 'kcp.io/cluster': '0000000000000000' },
    creationTimestamp: '2000-01-01T00:00:00Z',
    labels: { 'kubernetes.io/metadata.name': 'default' },
    managedFields: [{ apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:labels': { '.': {} } } }, manager: 'kcpt', operation: 'Update', time: '2000-01-01T00:00:00Z' }],
    name: 'default',
    uid: '00000000-0000-0000-0000-000000000000',
  },
  spec: { finalizers: ['kubernetes'] },
  status: { phase: 'Active' },
});

const namespaces = '/registry/core/namespaces/';
const codec = new ValueCodec([{ id: 0, prefix: namespaces, text: sample }]);


describe('value codec', () => {
  it('stores a value like its reference in a fraction of the bytes, and gives it back exactly', () => {
    const value = sample
      .replace('0000000000000000', '2x8k1q0v9m3fgh7a')
      .replace(/2000-01-01T00:00:00Z/g, '2026-11-24T01:45:16Z')
      .replace('00000000-0000-0000-0000-000000000000', 'f34dd323-31a6-4f7d-aa0e-d63ac766cdce');
    const stored = codec.encode(`${namespaces}2x8k1q0v9m3fgh7a/default`, value);
    expect(stored.length).toBeLessThan(value.length / 3);
    expect(codec.decode(stored)).toBe(value);
  });

  it('leaves values under other prefixes, and values it cannot shrink, as they are', () => {
    expect(codec.encode('/registry/core/configmaps/c/ns/x', sample)).toBe(sample);
    expect(codec.encode(`${namespaces}c/x`, 'short')).toBe('short');
    expect(codec.decode('short')).toBe('short');
  });

  it('round-trips any string, including ones that start with or contain its marker characters', () => {
    const next = rng(42);
    const alphabet = ['\x01', '\x02', ' ', '"', 'é', '𝄞', 'a', '{', '}', ':', ','];
    for (let n = 0; n < 2000; n++) {
      let value = '';
      // Mix slices of the reference with random characters, so that copies and literals interleave.
      while (value.length < 400 * next()) {
        if (next() < 0.5) {
          const at = Math.floor(next() * sample.length);
          value += sample.slice(at, at + Math.floor(next() * 60));
        } else {
          value += alphabet[Math.floor(next() * alphabet.length)];
        }
      }
      const stored = codec.encode(`${namespaces}c/n`, value);
      expect(codec.decode(stored)).toBe(value);
    }
  });

  it('refuses a stored value that names a reference it does not know', () => {
    const stored = codec.encode(`${namespaces}c/default`, sample);
    const other = new ValueCodec([]);
    expect(() => other.decode(stored)).toThrow(/unknown value reference/);
  });

  it('records wanted references once, keeps old ones for reading, and writes only with the wanted ones', () => {
    const rows: ValueReference[] = [];
    const table = {
      all: () => rows.map((r) => ({ ...r })),
      insert: (prefix: string, text: string) => {
        rows.push({ id: rows.length, prefix, text });
        return rows.length - 1;
      },
    };
    const first = openValueCodec(table, [{ prefix: namespaces, text: sample }]);
    const oldStored = first.encode(`${namespaces}c/default`, sample);
    expect(openValueCodec(table, [{ prefix: namespaces, text: sample }]).size).toBe(1);
    const changed = sample.replace('"Active"', '"Terminating"');
    const second = openValueCodec(table, [{ prefix: namespaces, text: changed }]);
    expect(rows).toHaveLength(2);
    expect(second.decode(oldStored)).toBe(sample);
    expect(second.encode(`${namespaces}c/x`, changed)[1]).toBe(String.fromCharCode(33 + 1));
  });

  it('ignores a reference holding surrogate pairs (a copy must never split one)', () => {
    const rows: ValueReference[] = [];
    const table = { all: () => [...rows], insert: (prefix: string, text: string) => rows.push({ id: rows.length, prefix, text }) - 1 };
    openValueCodec(table, [{ prefix: namespaces, text: `${sample} 𝄞` }]);
    expect(rows).toHaveLength(0);
  });

  it('stops adding references once every id is taken', () => {
    const rows: ValueReference[] = [];
    const table = { all: () => [...rows], insert: (prefix: string, text: string) => rows.push({ id: rows.length, prefix, text }) - 1 };
    const wanted = Array.from({ length: MAX_REFERENCES + 5 }, (_, i) => ({ prefix: `/p${i}/`, text: `${sample}${i}` }));
    const codecAll = openValueCodec(table, wanted);
    expect(rows).toHaveLength(MAX_REFERENCES);
    expect(codecAll.encode(`/p${MAX_REFERENCES + 1}/x`, sample)).toBe(sample);
  });
});
