import { describe, expect, it } from 'vitest';
import type { KubeObject } from './object-types.js';
import { StatusError } from './status.js';
import {
  ageCell,
  buildTable,
  defaultPrinter,
  humanDuration,
  nameAgePrinter,
  parseIncludeObject,
} from './table.js';

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;
const Y = 365 * D;

describe('humanDuration (duration.HumanDuration)', () => {
  it.each([
    [-3 * S, '<invalid>'],
    [-2 * S, '<invalid>'],
    [-1999, '0s'],
    [-1 * S, '0s'],
    [0, '0s'],
    [999, '0s'],
    [5 * S, '5s'],
    [119 * S, '119s'],
    [2 * M, '2m'],
    [2 * M + 5 * S, '2m5s'],
    [9 * M + 59 * S, '9m59s'],
    [10 * M + 30 * S, '10m'],
    [179 * M, '179m'],
    [3 * H, '3h'],
    [3 * H + 12 * M, '3h12m'],
    [7 * H + 59 * M, '7h59m'],
    [8 * H + 30 * M, '8h'],
    [47 * H, '47h'],
    [2 * D, '2d'],
    [2 * D + 3 * H, '2d3h'],
    [7 * D + 23 * H, '7d23h'],
    [8 * D + 5 * H, '8d'],
    [729 * D, '729d'],
    [2 * Y, '2y'],
    [3 * Y + 45 * D, '3y45d'],
    [8 * Y + 100 * D, '8y'],
  ])('%d ms → %s', (ms, text) => {
    expect(humanDuration(ms)).toBe(text);
  });
});

describe('ageCell', () => {
  const now = Date.parse('2025-01-01T01:00:00Z');
  it('formats the age from creationTimestamp', () => {
    expect(ageCell('2025-01-01T00:55:00Z', now)).toBe('5m');
    expect(ageCell('2025-01-01T01:00:01Z', now)).toBe('0s');
  });
  it('shows <unknown> without a timestamp', () => {
    expect(ageCell(undefined, now)).toBe('<unknown>');
    expect(ageCell(null, now)).toBe('<unknown>');
    expect(ageCell('garbage', now)).toBe('<unknown>');
  });
});

const cm = (name: string, data: Record<string, string>, ts = '2025-01-01T00:00:00Z'): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default', uid: `uid-${name}`, resourceVersion: '7', creationTimestamp: ts, labels: { a: 'b' } },
  data,
});

describe('buildTable', () => {
  const printer = nameAgePrinter(
    [{ column: { name: 'Data', type: 'integer' }, cell: (o) => Object.keys((o.data as object) ?? {}).length }],
    [{ column: { name: 'Extra', type: 'string' }, cell: () => 'x' }],
  );
  const now = Date.parse('2025-01-01T00:05:00Z');

  it('produces the meta.k8s.io/v1 Table shape with PartialObjectMetadata rows', () => {
    const table = buildTable({
      printer,
      objects: [cm('cm1', { k: 'v', k2: 'v' })],
      now,
      listMeta: { resourceVersion: '412', continue: 'tok', remainingItemCount: 3 },
    });
    expect(table).toEqual({
      kind: 'Table',
      apiVersion: 'meta.k8s.io/v1',
      metadata: { resourceVersion: '412', continue: 'tok', remainingItemCount: 3 },
      columnDefinitions: [
        { name: 'Name', type: 'string', format: 'name', description: expect.stringMatching(/^Name must be unique/), priority: 0 },
        { name: 'Data', type: 'integer', format: '', description: '', priority: 0 },
        { name: 'Age', type: 'string', format: '', description: expect.stringMatching(/^CreationTimestamp is/), priority: 0 },
        { name: 'Extra', type: 'string', format: '', description: '', priority: 1 },
      ],
      rows: [
        {
          cells: ['cm1', 2, '5m', 'x'],
          object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: cm('cm1', {}).metadata },
        },
      ],
    });
  });

  it('honours includeObject, version and column definitions', () => {
    const obj = cm('cm1', {});
    expect(buildTable({ printer, objects: [obj], now, includeObject: 'None' }).rows[0]).toEqual({ cells: ['cm1', 0, '5m', 'x'] });
    expect(buildTable({ printer, objects: [obj], now, includeObject: 'Object' }).rows[0]!.object).toBe(obj);
    const beta = buildTable({ printer, objects: [obj], now, tableVersion: 'v1beta1', includeColumnDefinitions: false });
    expect(beta.apiVersion).toBe('meta.k8s.io/v1beta1');
    expect(beta.rows[0]!.object!.apiVersion).toBe('meta.k8s.io/v1beta1');
    expect(beta.columnDefinitions).toEqual([]);
    expect(beta.metadata).toEqual({});
    expect(buildTable({ printer, objects: [], now }).rows).toEqual([]);
  });

  it('has a default printer with Name and Created At', () => {
    const table = buildTable({ printer: defaultPrinter(), objects: [cm('a', {}, '2025-01-01T00:00:00.123Z'), { metadata: { name: 'b' } }], now });
    expect(table.columnDefinitions.map((c) => [c.name, c.type, c.format])).toEqual([
      ['Name', 'string', 'name'],
      ['Created At', 'date', ''],
    ]);
    expect(table.rows.map((r) => r.cells)).toEqual([
      ['a', '2025-01-01T00:00:00Z'],
      ['b', '0001-01-01T00:00:00Z'],
    ]);
  });
});

describe('parseIncludeObject', () => {
  it('defaults to Metadata', () => {
    expect(parseIncludeObject(new URLSearchParams())).toBe('Metadata');
    expect(parseIncludeObject(new URLSearchParams('includeObject='))).toBe('Metadata');
    expect(parseIncludeObject({})).toBe('Metadata');
  });

  it('reads the first value', () => {
    expect(parseIncludeObject(new URLSearchParams('includeObject=Object&includeObject=Bad'))).toBe('Object');
    expect(parseIncludeObject({ includeObject: ['None', 'Bad'] })).toBe('None');
  });

  it('rejects unknown values like kube', () => {
    let err: unknown;
    try {
      parseIncludeObject(new URLSearchParams('includeObject=Everything'));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(StatusError);
    expect((err as StatusError).code).toBe(400);
    expect((err as StatusError).message).toBe(
      `Unable to convert to Table as requested: includeObject: Invalid value: "Everything": must be 'Metadata', 'Object', 'None', or empty`,
    );
  });
});
