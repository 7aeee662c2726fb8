/**
 * How kube-apiserver prints decoded custom-resource JSON with Go's fmt package. Custom resources are
 * `map[string]interface{}` in kube, so printer-column cells, selectable-field values and the scale
 * subresource's accessor errors show Go's `%v` / `%T` renderings of those values; users see exactly these strings.
 *
 * Go decodes a JSON number to int64 when its text is an integer that fits and to float64 otherwise. JSON.parse
 * loses that distinction (`3.0` and `3` are the same number), so an integral number counts as int64 here.
 */

const INT64_LIMIT = 2 ** 63;

/** A JSON number that kube's unstructured decoder would have turned into an int64. */
export function isGoInt(n: number): boolean {
  return Number.isInteger(n) && Math.abs(n) < INT64_LIMIT;
}

/**
 * A float literal from a JSONPath template (`[?(@.x==1.0)]`). Go keeps it float64 even when integral, and
 * text/template's comparisons refuse int64 == float64, so the distinction must survive evaluation.
 */
export class GoFloat {
  constructor(readonly value: number) {}
}

/**
 * strconv.FormatFloat(f, 'g', -1, 64), which fmt's %v uses: shortest digits, exponent form when the decimal
 * exponent is < -4 or >= 6 (so 1234567.5 prints `1.2345675e+06`, unlike JavaScript).
 */
export function goFloat(f: number): string {
  if (Number.isNaN(f)) return 'NaN';
  if (!Number.isFinite(f)) return f > 0 ? '+Inf' : '-Inf';
  const [mantissa = '0', expText = '0'] = f.toExponential().split('e');
  const exp = Number(expText);
  if (exp < -4 || exp >= 6) {
    const abs = Math.abs(exp);
    return `${mantissa}e${exp < 0 ? '-' : '+'}${abs < 10 ? `0${abs}` : abs}`;
  }
  // In this range JavaScript's shortest decimal rendering is the same as Go's %f with shortest digits.
  return String(f);
}

/** fmt.Sprint / fmt.Fprint of a decoded JSON value (`%v`): maps as `map[k:v ...]` with sorted keys, slices as `[a b]`. */
export function goSprint(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (v instanceof GoFloat) return goFloat(v.value);
  switch (typeof v) {
    case 'string':
      return v;
    case 'boolean':
      return v ? 'true' : 'false';
    case 'number':
      return isGoInt(v) ? String(v) : goFloat(v);
  }
  if (Array.isArray(v)) return `[${v.map(goSprint).join(' ')}]`;
  if (typeof v === 'object') {
    const obj = v as Record<string, unknown>;
    // fmt sorts map keys (Go ≥ 1.12); Go compares strings bytewise, which for keys kube sees matches code-unit order.
    const keys = Object.keys(obj).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return `map[${keys.map((k) => `${k}:${goSprint(obj[k])}`).join(' ')}]`;
  }
  return String(v);
}

/** fmt's %T of a decoded JSON value, as in unstructured's `accessor error: … is of the type %T` messages. */
export function goTypeName(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (v instanceof GoFloat) return 'float64';
  switch (typeof v) {
    case 'string':
      return 'string';
    case 'boolean':
      return 'bool';
    case 'number':
      return isGoInt(v) ? 'int64' : 'float64';
  }
  if (Array.isArray(v)) return '[]interface {}';
  return 'map[string]interface {}';
}
