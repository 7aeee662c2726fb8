import { describe, expect, it } from 'vitest';
import { CREATION_TIMESTAMP_DESCRIPTION, NAME_DESCRIPTION, buildTable } from '../machinery/table.js';
import type { KubeObject } from '../registry/types.js';
import { parseRFC3339, printerForColumns, validatePrinterColumns, type AdditionalPrinterColumn } from './printer-columns.js';

const NOW = Date.parse('2024-05-01T12:00:00Z');
const render = (errs: { field: string; detail: string }[]) => errs.map((e) => `${e.field}: ${e.detail}`);

const widget: KubeObject = {
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name: 'w1', namespace: 'default', creationTimestamp: '2024-05-01T11:55:00Z', labels: { app: 'web' } },
  spec: {
    replicas: 3,
    ratio: 0.5,
    big: 1234567.5,
    paused: true,
    items: [{ name: 'a' }, { name: 'b' }],
    tags: ['x', 'y'],
    sizes: { b: 'large', a: 1 },
    startedAt: '2024-05-01T09:00:00Z',
    nothing: null,
    fraction: 2.7,
    text: '7',
  },
  status: { conditions: [{ type: 'Ready', status: 'True' }] },
};

const col = (name: string, type: string, jsonPath: string, extra: Partial<AdditionalPrinterColumn> = {}): AdditionalPrinterColumn => ({
  name,
  type,
  jsonPath,
  ...extra,
});

/** The one custom cell a single-column printer produces. */
const cell = (type: string, jsonPath: string, obj: KubeObject = widget) => printerForColumns([col('C', type, jsonPath)]).cells(obj, NOW)[1];

describe('printerForColumns: columns (kube tableconvertor.New)', () => {
  it('without columns prints Name and Age (serveDefaultColumnsIfEmpty: Age is type date)', () => {
    for (const columns of [undefined, []]) {
      const p = printerForColumns(columns);
      expect(p.columns).toEqual([
        { name: 'Name', type: 'string', format: 'name', description: NAME_DESCRIPTION, priority: 0 },
        { name: 'Age', type: 'date', format: '', description: CREATION_TIMESTAMP_DESCRIPTION, priority: 0 },
      ]);
      expect(p.cells(widget, NOW)).toEqual(['w1', '5m']);
    }
  });

  it('with columns prints Name then the columns in order, and adds no Age', () => {
    const p = printerForColumns([
      col('Replicas', 'integer', '.spec.replicas', { description: 'Desired replicas', format: 'int32' }),
      col('Ready', 'string', '.status.conditions[?(@.type=="Ready")].status'),
      col('Paused', 'boolean', '.spec.paused', { priority: 1 }),
    ]);
    expect(p.columns.map((c) => c.name)).toEqual(['Name', 'Replicas', 'Ready', 'Paused']);
    expect(p.columns[1]).toEqual({ name: 'Replicas', type: 'integer', format: 'int32', description: 'Desired replicas', priority: 0 });
    // The default description names the path; priority>0 columns stay listed (kubectl shows them with -o wide).
    expect(p.columns[2]?.description).toBe('Custom resource definition column (in JSONPath format): .status.conditions[?(@.type=="Ready")].status');
    expect(p.columns[3]?.priority).toBe(1);
    expect(p.cells(widget, NOW)).toEqual(['w1', 3, 'True', true]);
  });

  it('drops a column whose path kube cannot parse, and every column after it', () => {
    const p = printerForColumns([
      col('A', 'integer', '.spec.replicas'),
      col('Bad', 'string', '.spec[0'),
      col('C', 'string', '.metadata.name'),
    ]);
    expect(p.columns.map((c) => c.name)).toEqual(['Name', 'A']);
    expect(p.cells(widget, NOW)).toEqual(['w1', 3]);
  });

  it('feeds buildTable: definitions with priorities and one cell per column', () => {
    const table = buildTable({
      printer: printerForColumns([col('Replicas', 'integer', '.spec.replicas'), col('Wide', 'string', '.spec.text', { priority: 1 })]),
      objects: [widget],
      now: NOW,
    });
    expect(table.columnDefinitions.map((c) => [c.name, c.type, c.priority])).toEqual([
      ['Name', 'string', 0],
      ['Replicas', 'integer', 0],
      ['Wide', 'string', 1],
    ]);
    expect(table.rows[0]?.cells).toEqual(['w1', 3, '7']);
  });
});

describe('printerForColumns: cells (kube cellForJSONValue and jsonpath PrintResults)', () => {
  it('a missing value is a null cell for every type', () => {
    for (const type of ['string', 'integer', 'number', 'boolean', 'date']) expect(cell(type, '.spec.absent')).toBeNull();
  });

  it('a path error (index out of range) is a null cell', () => {
    expect(cell('string', '.spec.items[5].name')).toBeNull();
  });

  it('string columns print any value the way Go fmt does', () => {
    expect(cell('string', '.spec.replicas')).toBe('3');
    expect(cell('string', '.spec.ratio')).toBe('0.5');
    expect(cell('string', '.spec.big')).toBe('1.2345675e+06');
    expect(cell('string', '.spec.paused')).toBe('true');
    expect(cell('string', '.spec.tags')).toBe('[x y]');
    expect(cell('string', '.spec.sizes')).toBe('map[a:1 b:large]');
    expect(cell('string', '.spec.items[0]')).toBe('map[name:a]');
  });

  it('a JSON null in a string column prints <no value>; in other columns it is null', () => {
    expect(cell('string', '.spec.nothing')).toBe('<no value>');
    expect(cell('integer', '.spec.nothing')).toBeNull();
  });

  it('only the first of several results is shown', () => {
    expect(cell('string', '.spec.items[*].name')).toBe('a');
  });

  it('integer columns keep integers and truncate floats; other JSON types are null', () => {
    expect(cell('integer', '.spec.replicas')).toBe(3);
    expect(cell('integer', '.spec.fraction')).toBe(2);
    expect(cell('integer', '.spec.text')).toBeNull();
    expect(cell('integer', '.spec.paused')).toBeNull();
  });

  it('number columns keep numbers; boolean columns keep booleans only', () => {
    expect(cell('number', '.spec.ratio')).toBe(0.5);
    expect(cell('number', '.spec.replicas')).toBe(3);
    expect(cell('number', '.spec.text')).toBeNull();
    expect(cell('boolean', '.spec.paused')).toBe(true);
    expect(cell('boolean', '.spec.text')).toBeNull();
  });

  it('date columns show the age of an RFC 3339 string', () => {
    expect(cell('date', '.spec.startedAt')).toBe('3h');
    expect(cell('date', '.metadata.creationTimestamp')).toBe('5m');
  });

  it('date columns: "" and "null" are <unknown>, the zero time is <unknown>, garbage is <invalid>, non-strings are null', () => {
    const at = (v: unknown) => cell('date', '.spec.t', { metadata: { name: 'x' }, spec: { t: v } });
    expect(at('')).toBe('<unknown>');
    expect(at('null')).toBe('<unknown>');
    expect(at('0001-01-01T00:00:00Z')).toBe('<unknown>');
    expect(at('yesterday')).toBe('<invalid>');
    expect(at('2024-05-01 09:00:00Z')).toBe('<invalid>');
    expect(at(12)).toBeNull();
  });

  it('a missing creationTimestamp makes the default Age column null', () => {
    expect(printerForColumns(undefined).cells({ metadata: { name: 'x' } }, NOW)).toEqual(['x', null]);
  });
});

describe('parseRFC3339 (Go time.RFC3339)', () => {
  it('accepts offsets and fractional seconds', () => {
    expect(parseRFC3339('2024-05-01T14:00:00+02:00')?.ms).toBe(Date.parse('2024-05-01T12:00:00Z'));
    expect(parseRFC3339('2024-05-01T12:00:00.250Z')?.ms).toBe(Date.parse('2024-05-01T12:00:00.250Z'));
  });

  it('rejects out-of-range fields and loose layouts', () => {
    for (const bad of ['2024-02-30T00:00:00Z', '2024-13-01T00:00:00Z', '2024-05-01T24:00:00Z', '2024-05-01T12:00:00', '2024-05-01t12:00:00Z']) {
      expect(parseRFC3339(bad)).toBeUndefined();
    }
    expect(parseRFC3339('2024-02-29T00:00:00Z')).toBeDefined();
  });
});

describe('validatePrinterColumns (ValidateCustomResourceColumnDefinition)', () => {
  const P = 'spec.additionalPrinterColumns';

  it('accepts valid columns', () => {
    expect(validatePrinterColumns([col('Replicas', 'integer', '.spec.replicas', { format: 'int32', priority: 1 })], P)).toEqual([]);
  });

  it("uses kube's messages, including the JSONPath field name", () => {
    expect(
      render(
        validatePrinterColumns(
          [
            { type: 'text', jsonPath: 'spec.replicas' },
            { name: 'B', format: 'uuid', jsonPath: '' },
          ],
          P,
        ),
      ),
    ).toEqual([
      `${P}[0].name: Required value`,
      `${P}[0].type: Invalid value: "text": must be one of boolean,date,integer,number,string`,
      `${P}[0].JSONPath: Invalid value: "spec.replicas": must be a simple json path starting with .`,
      `${P}[1].type: Required value: must be one of boolean,date,integer,number,string`,
      `${P}[1].format: Invalid value: "uuid": must be one of byte,date,date-time,double,float,int32,int64,password`,
      `${P}[1].JSONPath: Required value`,
    ]);
  });
});
