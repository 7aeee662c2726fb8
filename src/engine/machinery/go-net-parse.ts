/**
 * Go's parsers for network strings, as kube-openapi's strfmt registry calls them to check a custom resource's
 * `format: uri | cidr | mac | ipv4` (apiextensions/string-formats.ts): each answers only whether Go accepts the string.
 * URI parsing is Go 1.23's net/url (what kube 1.32 is built with; later Go refuses a few more hosts).
 */
import { isIPv6 } from 'node:net';

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
