/**
 * Server-side printing for custom resources: kube's CRD table convertor
 * (apiextensions-apiserver pkg/registry/customresource/tableconvertor) and the CRD-side rules for
 * `additionalPrinterColumns` (ValidateCustomResourceColumnDefinition in pkg/apis/apiextensions/validation).
 * `kubectl get` renders the Table we return verbatim, so cell values and their JSON types are what users see.
 */
import type { KubeObject, TableColumn, TablePrinter } from '../registry/types.js';
import { fieldErrors, type FieldError } from '../machinery/status.js';
import { CREATION_TIMESTAMP_DESCRIPTION, NAME_DESCRIPTION, humanDuration } from '../machinery/table.js';
import { goSprint, isGoInt } from './go-format.js';
import { compileJSONPath, plainValue, type CompiledJSONPath } from './kube-jsonpath.js';
import { child, isPlainObject } from './types.js';

/** apiextensions.k8s.io/v1 CustomResourceColumnDefinition. */
export interface AdditionalPrinterColumn {
  name: string;
  type: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath: string;
}

/** kube's serveDefaultColumnsIfEmpty: a CRD version without columns is printed as Name + Age. */
export const DEFAULT_CRD_COLUMNS: readonly AdditionalPrinterColumn[] = [
  { name: 'Age', type: 'date', description: CREATION_TIMESTAMP_DESCRIPTION, jsonPath: '.metadata.creationTimestamp' },
];

/**
 * kube's getScaleColumnsForVersion: the columns of a custom resource's Scale (`kubectl get --subresource=scale`),
 * read from the Scale itself. Both replica paths are required of a scale subresource, so both columns are always there.
 */
export const SCALE_COLUMNS: readonly AdditionalPrinterColumn[] = [
  { name: 'Desired', type: 'integer', description: 'Number of desired replicas', jsonPath: '.spec.replicas' },
  { name: 'Available', type: 'integer', description: 'Number of actual replicas', jsonPath: '.status.replicas' },
  ...DEFAULT_CRD_COLUMNS,
];

const NAME_COLUMN: TableColumn = { name: 'Name', type: 'string', format: 'name', description: NAME_DESCRIPTION, priority: 0 };

interface CompiledColumn {
  column: TableColumn;
  path: CompiledJSONPath;
}

/**
 * The Table printer for one CRD version. Columns are Name then each column in order; priority>0 columns stay in
 * columnDefinitions (kubectl shows them only with -o wide). Like kube, a column whose jsonPath does not parse ends
 * the list: it and every later column are dropped (kube logs and keeps the convertor built so far).
 */
export function printerForColumns(columns: readonly AdditionalPrinterColumn[] | undefined): TablePrinter {
  const defs = columns && columns.length > 0 ? columns : DEFAULT_CRD_COLUMNS;
  const compiled: CompiledColumn[] = [];
  for (const col of defs) {
    let path: CompiledJSONPath;
    try {
      path = compileJSONPath(`{${col.jsonPath}}`);
    } catch {
      break;
    }
    compiled.push({
      path,
      column: {
        name: col.name,
        type: col.type as TableColumn['type'],
        format: col.format ?? '',
        description: col.description || `Custom resource definition column (in JSONPath format): ${col.jsonPath}`,
        priority: col.priority ?? 0,
      },
    });
  }
  return {
    columns: [NAME_COLUMN, ...compiled.map((c) => c.column)],
    cells: (obj, now) => [obj.metadata?.name ?? '', ...compiled.map((c) => columnCell(c, obj, now))],
  };
}

function columnCell({ column, path }: CompiledColumn, obj: KubeObject, now: number): unknown {
  let results: unknown[][];
  try {
    results = path.findResults(obj);
  } catch {
    return null;
  }
  const first = results[0];
  // Only the first value counts, even when the path selects several (`.spec.items[*].name`).
  if (!first || first.length === 0) return null;
  const value = plainValue(first[0]);
  if (column.type === 'string') {
    // jsonpath's PrintResults: Go's fmt rendering; a JSON null is an invalid reflect.Value, printed "<no value>".
    return value === null ? '<no value>' : goSprint(value);
  }
  return cellForJSONValue(column.type, value, now);
}

/** tableconvertor.cellForJSONValue: typed cells keep their JSON type; anything that does not fit is null. */
function cellForJSONValue(type: string, value: unknown, now: number): unknown {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'integer':
      // int64 stays; a float64 is converted with Go's int64() truncation.
      return typeof value === 'number' ? (isGoInt(value) ? value : Math.trunc(value)) : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'date':
      return typeof value === 'string' ? dateCell(value, now) : null;
    default:
      return null;
  }
}

/**
 * metav1.Time.UnmarshalQueryParameter + metatable.ConvertToHumanReadableDateType: "" and "null" are the zero
 * time (`<unknown>`), a non-RFC 3339 string is `<invalid>`, anything else is the age.
 */
function dateCell(text: string, now: number): string {
  if (text === '' || text === 'null') return '<unknown>';
  const t = parseRFC3339(text);
  if (t === undefined) return '<invalid>';
  if (t.zero) return '<unknown>';
  return humanDuration(now - t.ms);
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:[.,](\d+))?(Z|([+-])(\d{2}):(\d{2}))$/;

/** Days since 1970-01-01 for a proleptic Gregorian date (JavaScript's Date mangles years below 100). */
function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

const ZERO_TIME_DAYS = daysFromCivil(1, 1, 1);

/** Go's time.Parse(time.RFC3339, s): strict layout and field ranges. */
export function parseRFC3339(text: string): { ms: number; zero: boolean } | undefined {
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const num = (i: number) => Number(m[i]);
  const [year, month, day, hour, min, sec] = [num(1), num(2), num(3), num(4), num(5), num(6)];
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const monthDays = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  if (month < 1 || month > 12 || day < 1 || day > (monthDays[month - 1] ?? 0)) return undefined;
  if (hour > 23 || min > 59 || sec > 59) return undefined;
  let offsetMin = 0;
  if (m[8] !== 'Z') {
    const oh = num(10);
    const om = num(11);
    if (oh > 23 || om > 59) return undefined;
    offsetMin = (m[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const fraction = m[7] ? Number(`0.${m[7]}`) : 0;
  const days = daysFromCivil(year, month, day);
  const seconds = days * 86400 + hour * 3600 + min * 60 + sec - offsetMin * 60;
  const zero = seconds === ZERO_TIME_DAYS * 86400 && fraction === 0;
  return { ms: seconds * 1000 + fraction * 1000, zero };
}

// ---------------------------------------------------------------------------------------------------------------
// CRD side

const COLUMN_TYPES = ['boolean', 'date', 'integer', 'number', 'string'];
const COLUMN_FORMATS = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];

/**
 * ValidateCustomResourceColumnDefinition for each column under `fieldPath` (e.g.
 * `spec.versions[0].additionalPrinterColumns`). kube reports a bad jsonPath at `…JSONPath`, the Go field name,
 * not `jsonPath`; kept for identical messages. Only the leading dot is checked: a path that kube's JSONPath parser
 * rejects is accepted here too and simply not printed.
 */
export function validatePrinterColumns(columns: unknown, fieldPath: string): FieldError[] {
  if (!Array.isArray(columns)) return [];
  const errs: FieldError[] = [];
  columns.forEach((raw, i) => {
    const col = isPlainObject(raw) ? raw : {};
    const p = `${fieldPath}[${i}]`;
    const name = typeof col.name === 'string' ? col.name : '';
    const type = typeof col.type === 'string' ? col.type : '';
    const format = typeof col.format === 'string' ? col.format : '';
    const jsonPath = typeof col.jsonPath === 'string' ? col.jsonPath : '';
    if (!name) errs.push(fieldErrors.required(child(p, 'name')));
    const typesMsg = `must be one of ${COLUMN_TYPES.join(',')}`;
    if (!type) errs.push(fieldErrors.required(child(p, 'type'), typesMsg));
    else if (!COLUMN_TYPES.includes(type)) errs.push(fieldErrors.invalid(child(p, 'type'), type, typesMsg));
    if (format && !COLUMN_FORMATS.includes(format)) {
      errs.push(fieldErrors.invalid(child(p, 'format'), format, `must be one of ${COLUMN_FORMATS.join(',')}`));
    }
    if (!jsonPath) errs.push(fieldErrors.required(child(p, 'JSONPath')));
    else errs.push(...validateSimpleJSONPath(jsonPath, child(p, 'JSONPath')));
  });
  return errs;
}

/** validateSimpleJSONPath: shared by printer columns and the scale subresource paths. */
export function validateSimpleJSONPath(path: string, fieldPath: string): FieldError[] {
  if (path.length === 0) return [fieldErrors.invalid(fieldPath, path, 'must not be empty')];
  if (path[0] !== '.') return [fieldErrors.invalid(fieldPath, path, 'must be a simple json path starting with .')];
  return [];
}
