/**
 * Go's parsers for network strings, as kube-openapi's strfmt registry calls them to check a custom resource's
 * `format: uri | cidr | mac | ipv4` (apiextensions/string-formats.ts): each answers only whether Go accepts the string.
 * URI parsing is Go 1.23's net/url (what kube 1.32 is built with; later Go refuses a few more hosts).
 */
import { isIPv6 } from 'node:net';
import { LazyMessageError } from './lazy-error.js';
import { goQuote } from './query-params.js';

/** k8s.io/utils/net.ParseIPSloppy for dotted quads: Go's pre-1.17 parser, so leading zeros are allowed. */
export function isSloppyIPv4(s: string): boolean {
  const parts = s.split('.');
  return parts.length === 4 && parts.every((p) => /^\d+$/.test(p) && Number(p) <= 255);
}

/** net.ParseIP for the IPv6 forms (Go's parser knows no `%zone`). */
function isGoIPv6(s: string): boolean {
  return isIPv6(s) && !s.includes('%');
}

/** k8s.io/utils/net.ParseCIDRSloppy: an IP (sloppy IPv4 or IPv6), `/`, a decimal prefix length within the IP's bits. */
export function isSloppyCIDR(s: string): boolean {
  const slash = s.indexOf('/');
  if (slash < 0) return false;
  const addr = s.slice(0, slash);
  const mask = s.slice(slash + 1);
  const bits = isSloppyIPv4(addr) ? 32 : isGoIPv6(addr) ? 128 : 0;
  // Go's dtoi: digits only (leading zeros allowed), at least one, and it gives up past 0xFFFFFF.
  return bits > 0 && /^\d{1,8}$/.test(mask) && Number(mask) <= bits;
}

const HEX2 = '[0-9A-Fa-f]{2}';
const HEX4 = '[0-9A-Fa-f]{4}';
/** net.ParseMAC: 6, 8 or 20 octets as `01:23:…`/`01-23-…` (one separator throughout) or `0123.4567.…` groups. */
const MAC = new RegExp(
  `^(?:${HEX2}(?::${HEX2}){5}|${HEX2}(?::${HEX2}){7}|${HEX2}(?::${HEX2}){19}` +
    `|${HEX2}(?:-${HEX2}){5}|${HEX2}(?:-${HEX2}){7}|${HEX2}(?:-${HEX2}){19}` +
    `|${HEX4}(?:\\.${HEX4}){2}|${HEX4}(?:\\.${HEX4}){3}|${HEX4}(?:\\.${HEX4}){9})$`,
);

export function isGoMAC(s: string): boolean {
  return MAC.test(s);
}

const HEX = /^[0-9A-Fa-f]$/;
/** The ASCII bytes net/url's shouldEscape lets through unescaped in a host (encodeHost, encodeZone). */
const HOST_ASCII = /^[A-Za-z0-9!$&'()*+,;=:[\]<>"\-_.~]$/;

/**
 * net/url's unescape in its three modes here: every `%` takes two hex digits; in a host, `%XX` only for a non-ASCII
 * byte or `%25`, and no ASCII byte shouldEscape refuses; in an IPv6 zone, `%XX` only for `%25`, a space or a byte a
 * host allows.
 */
function unescapes(s: string, mode: 'path' | 'host' | 'zone'): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === '%') {
      if (i + 2 >= s.length || !HEX.test(s[i + 1]!) || !HEX.test(s[i + 2]!)) return false;
      const escape = s.slice(i, i + 3);
      if (mode === 'host' && parseInt(s[i + 1]!, 16) < 8 && escape !== '%25') return false;
      if (mode === 'zone' && escape !== '%25') {
        const byte = String.fromCharCode(parseInt(escape.slice(1), 16));
        if (byte !== ' ' && !HOST_ASCII.test(byte)) return false;
      }
      i += 2;
    } else if (mode !== 'path' && c.charCodeAt(0) < 0x80 && !HOST_ASCII.test(c)) {
      return false;
    }
  }
  return true;
}

/** `:` followed by digits, or nothing. */
function validOptionalPort(port: string): boolean {
  return port === '' || /^:\d*$/.test(port);
}

/** Go 1.23's parseHost (the zone of a bracketed IPv6 literal unescaped with its own, looser rules). */
function parsesHost(host: string): boolean {
  if (host.startsWith('[')) {
    const close = host.lastIndexOf(']');
    if (close < 0 || !validOptionalPort(host.slice(close + 1))) return false;
    const zone = host.slice(0, close).indexOf('%25');
    if (zone >= 0) return unescapes(host.slice(0, zone), 'host') && unescapes(host.slice(zone, close), 'zone') && unescapes(host.slice(close), 'host');
  } else {
    const colon = host.lastIndexOf(':');
    if (colon >= 0 && !validOptionalPort(host.slice(colon))) return false;
  }
  return unescapes(host, 'host');
}

/** RFC 3986 userinfo characters, plus `%` and `@` as Go lets through. */
const USERINFO = /^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/;

/** What net/url.ParseRequestURI keeps of a URI: the parts kube's CEL url library reads. */
export interface GoRequestURI {
  /** Lower-cased, as Go stores it; '' for an absolute path. */
  scheme: string;
  /** The authority's host and port, unescaped; '' when there is none. */
  host: string;
  /** The path as sent (still escaped); '' for an opaque URI. */
  rawPath: string;
  /** After the first `?`, without it. */
  rawQuery: string;
}

/**
 * net/url.ParseRequestURI: an absolute URI (`scheme:…`) or an absolute path; no control bytes; an authority's
 * userinfo, host and port well formed; valid percent-escapes. The fragment is not split off (the string is taken as
 * a request line's target), so `#` in a host is refused. Undefined where Go returns an error.
 */
export function parseGoRequestURI(raw: string): GoRequestURI | undefined {
  if (raw === '' || /[\x00-\x1f\x7f]/.test(raw)) return undefined;
  if (raw === '*') return { scheme: '', host: '', rawPath: '*', rawQuery: '' };
  const scheme = /^[A-Za-z][A-Za-z0-9+\-.]*:/.exec(raw);
  if (!scheme && raw.startsWith(':')) return undefined; // missing protocol scheme
  let rest = scheme ? raw.slice(scheme[0].length) : raw;
  let rawQuery = '';
  if (rest.endsWith('?') && rest.indexOf('?') === rest.length - 1) rest = rest.slice(0, -1);
  else if (rest.includes('?')) [rest, rawQuery] = [rest.slice(0, rest.indexOf('?')), rest.slice(rest.indexOf('?') + 1)];
  const url: GoRequestURI = { scheme: scheme ? scheme[0].slice(0, -1).toLowerCase() : '', host: '', rawPath: '', rawQuery };
  if (!rest.startsWith('/')) return scheme ? url : undefined; // an opaque URI, or (no scheme) not a request's URI
  if (scheme && rest.startsWith('//')) {
    const authorityEnd = rest.indexOf('/', 2);
    const authority = authorityEnd < 0 ? rest.slice(2) : rest.slice(2, authorityEnd);
    rest = authorityEnd < 0 ? '' : rest.slice(authorityEnd);
    const at = authority.lastIndexOf('@');
    const host = authority.slice(at + 1);
    if (!parsesHost(host)) return undefined;
    if (at >= 0) {
      // Go unescapes the user and the password apart; no escape can span the `:`, so one pass is the same.
      if (!USERINFO.test(authority.slice(0, at)) || !unescapes(authority.slice(0, at), 'path')) return undefined;
    }
    url.host = percentDecode(host);
  }
  if (!unescapes(rest, 'path')) return undefined;
  url.rawPath = rest;
  return url;
}

/** `%XX` escapes decoded as bytes (the string already passed Go's escape checks), read as UTF-8. */
function percentDecode(s: string): string {
  if (!s.includes('%')) return s;
  // At the byte level: a UTF-8 sequence never holds an ASCII byte, so `%XX` cannot start inside one.
  const src = Buffer.from(s, 'utf8');
  const out = Buffer.alloc(src.length);
  let n = 0;
  for (let i = 0; i < src.length; i++) {
    const hex = i + 2 < src.length ? src.toString('latin1', i + 1, i + 3) : '';
    if (src[i] === 0x25 && /^[0-9A-Fa-f]{2}$/.test(hex)) {
      out[n++] = parseInt(hex, 16);
      i += 2;
    } else out[n++] = src[i]!;
  }
  return out.toString('utf8', 0, n);
}

/** net/url.ParseRequestURI succeeds. */
export function isGoRequestURI(raw: string): boolean {
  return parseGoRequestURI(raw) !== undefined;
}

/** Go's URL.Hostname and URL.Port: the host split at a trailing `:port`, IPv6 brackets taken off. */
export function splitGoHostPort(hostPort: string): [host: string, port: string] {
  let host = hostPort;
  let port = '';
  const colon = host.lastIndexOf(':');
  if (colon >= 0 && validOptionalPort(host.slice(colon))) [host, port] = [host.slice(0, colon), host.slice(colon + 1)];
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  return [host, port];
}

/** Bytes a path keeps unescaped (net/url validEncoded with encodePath). */
const VALID_PATH = /^[A-Za-z0-9\-_.~!$&'()*+,;=:@[\]%/]*$/;
/** Bytes escape(…, encodePath) leaves as they are. */
const PATH_UNESCAPED = /[A-Za-z0-9\-_.~$&+,/:;=@]/;

/** Go's URL.EscapedPath of a parsed path: as sent when it is a valid encoding, else the decoded path escaped again. */
export function goURLEscapedPath(rawPath: string): string {
  if (VALID_PATH.test(rawPath) || rawPath === '*') return rawPath;
  let out = '';
  for (const byte of Buffer.from(percentDecode(rawPath), 'utf8')) {
    const c = String.fromCharCode(byte);
    out += byte < 0x80 && PATH_UNESCAPED.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** net/url.QueryUnescape: `+` is a space, every `%` takes two hex digits (undefined otherwise). */
function queryUnescape(s: string): string | undefined {
  if (/%(?![0-9A-Fa-f]{2})/.test(s)) return undefined;
  return percentDecode(s.replace(/\+/g, ' '));
}

/** Go's URL.Query: `&`-separated pairs, a pair holding `;` or failing to unescape skipped, values in order. */
export function goURLQuery(rawQuery: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const pair of rawQuery.split('&')) {
    if (pair === '' || pair.includes(';')) continue;
    const eq = pair.indexOf('=');
    const key = queryUnescape(eq < 0 ? pair : pair.slice(0, eq));
    const value = queryUnescape(eq < 0 ? '' : pair.slice(eq + 1));
    if (key === undefined || value === undefined) continue;
    const values = out.get(key);
    if (values) values.push(value);
    else out.set(key, [value]);
  }
  return out;
}

/** A net/netip Addr: 4 or 16 bytes, and a zone (IPv6 only). */
export interface GoAddr {
  bytes: Uint8Array;
  zone: string;
}

/** netip's parse errors: their text quotes the input (megabytes, from a tenant) and is built only if read. */
export class GoNetParseError extends LazyMessageError {}

const addrError = (input: string, msg: string, at?: string): GoNetParseError =>
  new GoNetParseError(() => `ParseAddr(${goQuote(input)}): ${msg}${at ? ` (at ${goQuote(at)})` : ''}`);

/** netip's parseIPv4Fields: exactly four decimal octets, no leading zeros. */
function parseIPv4Fields(input: string, off: number, end: number, out: Uint8Array, at: number): void {
  const s = input.slice(off, end);
  let val = 0;
  let pos = 0;
  let digits = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c >= '0' && c <= '9') {
      if (digits === 1 && val === 0) throw addrError(input, 'IPv4 field has octet with leading zero');
      val = val * 10 + (c.charCodeAt(0) - 48);
      digits++;
      if (val > 255) throw addrError(input, 'IPv4 field has value >255');
    } else if (c === '.') {
      if (i === 0 || i === s.length - 1 || s[i - 1] === '.') throw addrError(input, 'IPv4 field must have at least one digit', s.slice(i));
      if (pos === 3) throw addrError(input, 'IPv4 address too long');
      out[at + pos++] = val;
      val = 0;
      digits = 0;
    } else throw addrError(input, 'unexpected character', s.slice(i));
  }
  if (pos < 3) throw addrError(input, 'IPv4 address too short');
  out[at + 3] = val;
}

function parseIPv6(input: string): GoAddr {
  let s = input;
  let zone = '';
  const pct = s.indexOf('%');
  if (pct !== -1) {
    zone = s.slice(pct + 1);
    s = s.slice(0, pct);
    if (zone === '') throw addrError(input, 'zone must be a non-empty string');
  }
  const ip = new Uint8Array(16);
  let ellipsis = -1;
  if (s.length >= 2 && s[0] === ':' && s[1] === ':') {
    ellipsis = 0;
    s = s.slice(2);
    if (s.length === 0) return { bytes: ip, zone };
  }
  let i = 0;
  while (i < 16) {
    let off = 0;
    let acc = 0;
    for (; off < s.length; off++) {
      const h = parseInt(s[off], 16);
      if (Number.isNaN(h)) break;
      acc = acc * 16 + h;
      if (off > 3) throw addrError(input, 'each group must have 4 or less digits', s);
      if (acc > 0xffff) throw addrError(input, 'IPv6 field has value >=2^16', s);
    }
    if (off === 0) throw addrError(input, 'each colon-separated field must have at least one digit', s);
    if (off < s.length && s[off] === '.') {
      if (ellipsis < 0 && i !== 12) throw addrError(input, 'embedded IPv4 address must replace the final 2 fields of the address', s);
      if (i + 4 > 16) throw addrError(input, 'too many hex fields to fit an embedded IPv4 at the end of the address', s);
      const end = input.length - (zone.length > 0 ? zone.length + 1 : 0);
      parseIPv4Fields(input, end - s.length, end, ip, i);
      s = '';
      i += 4;
      break;
    }
    ip[i] = acc >> 8;
    ip[i + 1] = acc & 0xff;
    i += 2;
    s = s.slice(off);
    if (s.length === 0) break;
    if (s[0] !== ':') throw addrError(input, 'unexpected character, want colon', s);
    if (s.length === 1) throw addrError(input, 'colon must be followed by more characters', s);
    s = s.slice(1);
    if (s[0] === ':') {
      if (ellipsis >= 0) throw addrError(input, 'multiple :: in address', s);
      ellipsis = i;
      s = s.slice(1);
      if (s.length === 0) break;
    }
  }
  if (s.length !== 0) throw addrError(input, 'trailing garbage after address', s);
  if (i < 16) {
    if (ellipsis < 0) throw addrError(input, 'address string too short');
    const n = 16 - i;
    for (let j = i - 1; j >= ellipsis; j--) ip[j + n] = ip[j];
    ip.fill(0, ellipsis, ellipsis + n);
  } else if (ellipsis >= 0) throw addrError(input, 'the :: must expand to at least one field of zeros');
  return { bytes: ip, zone };
}

/** netip.ParseAddr, with its error texts. */
export function parseGoAddr(s: string): GoAddr {
  // The first of . : % decides, as Go's loop does (found natively: tenants send megabyte strings).
  const c = /[.:%]/.exec(s)?.[0];
  if (c === '.') {
    const bytes = new Uint8Array(4);
    parseIPv4Fields(s, 0, s.length, bytes, 0);
    return { bytes, zone: '' };
  }
  if (c === ':') return parseIPv6(s);
  if (c === '%') throw addrError(s, 'missing IPv6 address');
  throw addrError(s, 'unable to parse IP');
}

/** Addr.Is4In6: ::ffff:a.b.c.d. */
export function isGo4In6(a: GoAddr): boolean {
  return a.bytes.length === 16 && a.bytes.subarray(0, 10).every((b) => b === 0) && a.bytes[10] === 0xff && a.bytes[11] === 0xff;
}

/** Addr.String. */
export function goAddrString(a: GoAddr): string {
  const b = a.bytes;
  if (b.length === 4) return b.join('.');
  const zone = a.zone ? `%${a.zone}` : '';
  if (isGo4In6(a)) return `::ffff:${b.subarray(12).join('.')}${zone}`;
  const groups = Array.from({ length: 8 }, (_, i) => (b[2 * i] << 8) | b[2 * i + 1]);
  let zeroStart = -1;
  let zeroLen = 0;
  for (let i = 0; i < 8; i++) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i >= 2 && j - i > zeroLen) [zeroStart, zeroLen] = [i, j - i];
  }
  let out = '';
  for (let i = 0; i < 8; i++) {
    if (i === zeroStart) {
      out += '::';
      i += zeroLen - 1;
      continue;
    }
    if (i > 0 && !out.endsWith(':')) out += ':';
    out += groups[i].toString(16);
  }
  return out + zone;
}

/** The IPv4 octets of an IPv4 or IPv4-mapped address (netip's Unmap), else undefined. */
function unmapped4(a: GoAddr): Uint8Array | undefined {
  if (a.bytes.length === 4) return a.bytes;
  return isGo4In6(a) ? a.bytes.subarray(12) : undefined;
}

const isAll = (b: Uint8Array, v: number) => b.every((x) => x === v);

export function isGoAddrUnspecified(a: GoAddr): boolean {
  return a.zone === '' && isAll(a.bytes, 0);
}

export function isGoAddrLoopback(a: GoAddr): boolean {
  const v4 = unmapped4(a);
  if (v4) return v4[0] === 127;
  return isAll(a.bytes.subarray(0, 15), 0) && a.bytes[15] === 1;
}

export function isGoAddrLinkLocalMulticast(a: GoAddr): boolean {
  const v4 = unmapped4(a);
  if (v4) return v4[0] === 224 && v4[1] === 0 && v4[2] === 0;
  return a.bytes[0] === 0xff && (a.bytes[1] & 0x0f) === 0x02;
}

export function isGoAddrLinkLocalUnicast(a: GoAddr): boolean {
  const v4 = unmapped4(a);
  if (v4) return v4[0] === 169 && v4[1] === 254;
  return a.bytes[0] === 0xfe && (a.bytes[1] & 0xc0) === 0x80;
}

export function isGoAddrGlobalUnicast(a: GoAddr): boolean {
  const v4 = unmapped4(a);
  if (v4) {
    if (isAll(v4, 0) || isAll(v4, 255)) return false;
    return v4[0] !== 127 && (v4[0] & 0xf0) !== 0xe0 && !(v4[0] === 169 && v4[1] === 254);
  }
  return !isAll(a.bytes, 0) && !isGoAddrLoopback(a) && a.bytes[0] !== 0xff && !isGoAddrLinkLocalUnicast(a);
}

/** A net/netip Prefix: an address and a prefix length. */
export interface GoPrefix {
  addr: GoAddr;
  bits: number;
}

/** netip.ParsePrefix, with its error texts. */
export function parseGoPrefix(s: string): GoPrefix {
  const fail = (msg: string | (() => string)) =>
    new GoNetParseError(() => `netip.ParsePrefix(${goQuote(s)}): ${typeof msg === 'string' ? msg : msg()}`);
  const slash = s.lastIndexOf('/');
  if (slash < 0) throw fail("no '/'");
  let addr: GoAddr;
  try {
    addr = parseGoAddr(s.slice(0, slash));
  } catch (err) {
    throw fail(() => (err as Error).message);
  }
  if (addr.bytes.length === 16 && addr.zone !== '') throw fail('IPv6 zones cannot be present in a prefix');
  const bitsStr = s.slice(slash + 1);
  const badBits = () => fail(`bad bits after slash: ${goQuote(bitsStr)}`);
  if (bitsStr.length > 1 && (bitsStr[0] < '1' || bitsStr[0] > '9')) throw badBits();
  // strconv.Atoi: an optional sign, then digits.
  if (!/^[+-]?[0-9]+$/.test(bitsStr)) throw badBits();
  // Atoi's range is int64: past 19 digits (and a sign) it is out of range whatever they are.
  if (bitsStr.length > 20) throw badBits();
  const bits = BigInt(bitsStr);
  if (bits > 9223372036854775807n || bits < -9223372036854775808n) throw badBits();
  if (bits < 0n || bits > BigInt(addr.bytes.length * 8)) throw fail('prefix length out of range');
  return { addr, bits: Number(bits) };
}

function maskBytes(b: Uint8Array, bits: number): Uint8Array {
  return b.map((x, i) => {
    const keep = Math.max(0, Math.min(8, bits - 8 * i));
    return x & ((0xff << (8 - keep)) & 0xff);
  });
}

/** Prefix.Masked. */
export function goPrefixMasked(p: GoPrefix): GoPrefix {
  return { addr: { bytes: maskBytes(p.addr.bytes, p.bits), zone: '' }, bits: p.bits };
}

const sameBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i]);

export const goAddrEqual = (a: GoAddr, b: GoAddr): boolean => sameBytes(a.bytes, b.bytes) && a.zone === b.zone;
export const goPrefixEqual = (a: GoPrefix, b: GoPrefix): boolean => a.bits === b.bits && goAddrEqual(a.addr, b.addr);

/** Prefix.Contains. */
export function goPrefixContains(p: GoPrefix, a: GoAddr): boolean {
  if (a.zone !== '' || a.bytes.length !== p.addr.bytes.length) return false;
  return sameBytes(maskBytes(a.bytes, p.bits), maskBytes(p.addr.bytes, p.bits));
}

/** Prefix.Overlaps. */
export function goPrefixOverlaps(p: GoPrefix, o: GoPrefix): boolean {
  if (goPrefixEqual(p, o)) return true;
  if (p.addr.bytes.length !== o.addr.bytes.length) return false;
  const min = Math.min(p.bits, o.bits);
  return min === 0 || sameBytes(maskBytes(p.addr.bytes, min), maskBytes(o.addr.bytes, min));
}

export function goPrefixString(p: GoPrefix): string {
  return `${goAddrString(p.addr)}/${p.bits}`;
}
