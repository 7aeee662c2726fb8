/**
 * The string formats kube checks in custom resources (kube-openapi's strfmt.Default registry, as the CRD schema
 * validator uses it): a string under `format: date-time` that does not parse is refused with
 * `<path> in body must be of type date-time: "<value>"`, so that an operator's informer never meets a timestamp
 * it cannot decode. Names are matched with their dashes removed, as strfmt's registry does.
 *
 * These are the formats apiextensions-apiserver keeps in a CRD's schema at kube 1.32 (formats.go's set introduced at
 * 1.0); it strips every other format before validating, so `k8s-short-name` and `k8s-long-name` (kept from 1.34 on)
 * are accepted here as kube 1.32 accepts them.
 */
import { isIPv6 } from 'node:net';
import { parseGoDuration } from '../machinery/go-duration.js';
import { isGoMailAddress } from '../machinery/go-mail-address.js';
import { isGoMAC, isGoRequestURI, isSloppyCIDR, isSloppyIPv4 } from '../machinery/go-net-parse.js';

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

/** strfmt.HostnamePattern (RFC 1034 labels, letters and symbols of any script), then at most 255 bytes and 63 a label. */
const HOSTNAME =
  /^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9\-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$/u;

function isHostname(s: string): boolean {
  // The length first (Go tests the pattern first; the answer is the same), so the pattern never runs on a long string.
  if (Buffer.byteLength(s) > 255) return false;
  return HOSTNAME.test(s) && s.split('.').every((label) => Buffer.byteLength(label) <= 63);
}

/** govalidator.IsISBN: ten digits (the last may be X) or thirteen, spaces and dashes ignored, with the check digit. */
function isISBN(s: string, version: 10 | 13 | 0): boolean {
  if (version === 0) return isISBN(s, 10) || isISBN(s, 13);
  const digits = s.replace(/[\t\n\f\r -]+/g, ''); // Go's \s is ASCII whitespace only
  const value = (i: number): number => digits.charCodeAt(i) - 48;
  if (version === 10) {
    if (!/^(?:[0-9]{9}X|[0-9]{10})$/.test(digits)) return false;
    let sum = 0;
    for (let i = 0; i < 9; i++) sum += (i + 1) * value(i);
    sum += 10 * (digits[9] === 'X' ? 10 : value(9));
    return sum % 11 === 0;
  }
  if (!/^[0-9]{13}$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += (i % 2 === 0 ? 1 : 3) * value(i);
  return value(12) === (10 - (sum % 10)) % 10;
}

const CREDIT_CARD = /^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11})$/;

/** govalidator.IsCreditCard: the digits (anything else dropped) match a card pattern and pass Luhn's check. */
function isCreditCard(s: string): boolean {
  const digits = s.replace(/[^0-9]+/g, '');
  if (!CREDIT_CARD.test(digits)) return false;
  let sum = 0;
  for (let i = digits.length - 1, double = false; i >= 0; i--, double = !double) {
    const d = (digits.charCodeAt(i) - 48) * (double ? 2 : 1);
    sum += d >= 10 ? (d % 10) + 1 : d;
  }
  return sum % 10 === 0;
}

const BYTE_0_255 = '[\\t\\n\\f\\r ]*(0|[1-9]\\d?|1\\d\\d?|2[0-4]\\d|25[0-5])[\\t\\n\\f\\r ]*';
const RGB_COLOR = new RegExp(`^rgb\\(${BYTE_0_255},${BYTE_0_255},${BYTE_0_255}\\)$`);

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
  cidr: isSloppyCIDR,
  mac: isGoMAC,
  uri: isGoRequestURI,
  email: isGoMailAddress,
  hostname: isHostname,
  isbn: (s) => isISBN(s, 0),
  isbn10: (s) => isISBN(s, 10),
  isbn13: (s) => isISBN(s, 13),
  creditcard: isCreditCard,
  // govalidator's SSN: exactly eleven characters, so only the dashed or spaced form.
  ssn: (s) => s.length === 11 && /^\d{3}[- ]?\d{2}[- ]?\d{4}$/.test(s),
  hexcolor: (s) => /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/.test(s),
  rgbcolor: (s) => RGB_COLOR.test(s),
  // bson.ObjectIDFromHex: 24 hex digits.
  bsonobjectid: (s) => /^[0-9a-fA-F]{24}$/.test(s),
  password: () => true,
};

/** The check for a schema's `format`, when kube checks that format on strings; undefined otherwise. */
export function stringFormatCheck(format: string): ((s: string) => boolean) | undefined {
  return VALIDATORS[format.replaceAll('-', '')];
}
