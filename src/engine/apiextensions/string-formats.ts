/**
 * The string formats kube checks in custom resources (kube-openapi's strfmt.Default registry, as the CRD schema
 * validator uses it): a string under `format: date-time` that does not parse is refused with
 * `<path> in body must be of type date-time: "<value>"`, so that an operator's informer never meets a timestamp
 * it cannot decode. Names are matched with their dashes removed, as strfmt's registry does.
 *
 * Checked here: date-time, date, duration, byte, uuid, uuid3, uuid4, uuid5, ipv4, ipv6, password. strfmt also
 * knows email, hostname, uri, mac, cidr, isbn(10/13), creditcard, ssn, hexcolor, rgbcolor, bsonobjectid and the
 * k8s-short-name/k8s-long-name formats; those are not checked yet (as before: accepted).
 */
import { isIPv6 } from 'node:net';
import { parseGoDuration } from '../machinery/go-duration.js';

/** kube-openapi's DateTimePattern, its `.` unescaped as there. */
const DATE_TIME_TAIL = /^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$/;
const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID3 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID4 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const UUID5 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;

/** Go's time.Parse("2006-01-02", s): four-digit year, and a day that exists in that month. */
function isDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
  return day <= days;
}

/** strfmt.IsDateTime: a date, a `t`, then the time of day (hours ≤ 23, minutes and seconds ≤ 59) and a zone. */
function isDateTime(s: string): boolean {
  if (s.length < 4) return false;
  const parts = s.toLowerCase().split('t');
  if (parts.length < 2 || !isDate(parts[0]!)) return false;
  const m = DATE_TIME_TAIL.exec(parts[1]!);
  return !!m && m[1]! <= '23' && m[2]! <= '59' && m[3]! <= '59';
}

/** strfmt's duration units: each list's first entry or an exact variant, or any unit starting with the last one. */
const DURATION_UNITS = [['ns', 'nano'], ['us', 'µs', 'micro'], ['ms', 'milli'], ['s', 'sec'], ['m', 'min'], ['h', 'hr', 'hour'], ['d', 'day'], ['w', 'wk', 'week']];

/** strfmt.ParseDuration: Go's time.ParseDuration, or any "<n> <unit>" it recognises ("5 minutes", "3 days"). */
function isDuration(s: string): boolean {
  try {
    parseGoDuration(s);
    return true;
  } catch {
    // then the scala-like form
  }
  for (const [, digits, rawUnit] of s.matchAll(/(\d+)\s*([A-Za-zµ]+)/g)) {
    // strconv.Atoi: an overflowing count is an error, not a duration.
    if (!Number.isSafeInteger(Number(digits))) return false;
    const unit = rawUnit!.trim().toLowerCase();
    if (DURATION_UNITS.some((variants) => variants.some((v, i) => v === unit || (i === variants.length - 1 && unit.startsWith(v))))) return true;
  }
  return false;
}

/** k8s.io/utils/net.ParseIPSloppy for dotted quads: four decimal parts up to 255, leading zeros allowed. */
function isSloppyIPv4(s: string): boolean {
  const parts = s.split('.');
  return parts.length === 4 && parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255);
}

const VALIDATORS: Record<string, (s: string) => boolean> = {
  datetime: isDateTime,
  date: isDate,
  duration: isDuration,
  byte: (s) => BASE64.test(s),
  uuid: (s) => UUID.test(s),
  uuid3: (s) => UUID3.test(s),
  uuid4: (s) => UUID4.test(s),
  uuid5: (s) => UUID5.test(s),
  // strfmt: an IP that parses and has a dot (ipv4) or a colon (ipv6); Go's ParseIP knows no zones.
  ipv4: (s) => s.includes('.') && (isSloppyIPv4(s) || (isIPv6(s) && !s.includes('%'))),
  ipv6: (s) => s.includes(':') && isIPv6(s) && !s.includes('%'),
  password: () => true,
};

/** The check for a schema's `format`, when kube checks that format on strings; undefined otherwise. */
export function stringFormatCheck(format: string): ((s: string) => boolean) | undefined {
  return VALIDATORS[format.replaceAll('-', '')];
}
