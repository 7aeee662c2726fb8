/** kube's resource.Quantity text ("500m", "1Gi", "2e3"), read as a number: validation and quota arithmetic share it. */

const quantityRe = /^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$/;
const binarySuffixes: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
const decimalSuffixes: Record<string, number> = { n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18 };

export const quantityFormatError =
  "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

/**
 * The numeric value of a resource.Quantity ("500m", "1Gi", "2e3", or a JSON number), precise enough for the sign and
 * integer checks validation makes; undefined when it does not parse.
 */
export function quantityValue(q: unknown): number | undefined {
  if (typeof q === 'number') return Number.isFinite(q) ? q : undefined;
  if (typeof q !== 'string') return undefined;
  const m = quantityRe.exec(q.trim());
  if (!m) return undefined;
  const num = Number(m[1]);
  if (Number.isNaN(num)) return undefined;
  const suffix = m[2];
  if (suffix in binarySuffixes) return num * binarySuffixes[suffix];
  if (suffix in decimalSuffixes) return num * decimalSuffixes[suffix];
  const exp = /^[eE]([-+]?[0-9]+)$/.exec(suffix);
  if (exp) return num * 10 ** Number(exp[1]);
  return undefined;
}
