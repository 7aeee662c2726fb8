/**
 * Content negotiation as kube-apiserver does it (k8s.io/apiserver handlers/negotiation and goautoneg): which media
 * type an answer is written in, which conversion (`as=Table`, `as=PartialObjectMetadata[List]`) the client asked for,
 * whether JSON is pretty-printed, and the 406 when nothing the client accepts can be served.
 *
 * Every endpoint offers the same three media types, in this order: JSON (the default), YAML and Kubernetes protobuf.
 * What an endpoint may answer in depends on what it serves: built-in kinds all three; custom resources (and kcp's own
 * CRD-based kinds) JSON and YAML only, unless a conversion to meta.k8s.io's PartialObjectMetadata is asked for, which
 * every endpoint serves in protobuf as well; Table only in JSON and YAML; error Statuses any of the three but no
 * conversion.
 */
import { notAcceptable } from '../machinery/status.js';

export type MediaFormat = 'json' | 'yaml' | 'protobuf';

export const JSON_MEDIA_TYPE = 'application/json';
export const YAML_MEDIA_TYPE = 'application/yaml';
export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';

interface Serializer {
  format: MediaFormat;
  mediaType: string;
  type: string;
  subtype: string;
  /** Has a stream (watch) form. */
  streams: boolean;
}

/** kube's SupportedMediaTypes order: the first is what a request without Accept gets. */
const SERIALIZERS: readonly Serializer[] = [
  { format: 'json', mediaType: JSON_MEDIA_TYPE, type: 'application', subtype: 'json', streams: true },
  { format: 'yaml', mediaType: YAML_MEDIA_TYPE, type: 'application', subtype: 'yaml', streams: false },
  { format: 'protobuf', mediaType: PROTOBUF_MEDIA_TYPE, type: 'application', subtype: 'vnd.kubernetes.protobuf', streams: true },
];

export function mediaTypeOf(format: MediaFormat): string {
  return SERIALIZERS.find((s) => s.format === format)!.mediaType;
}

/** One clause of an Accept header, as goautoneg parses it (`q` taken out of the parameters). */
export interface AcceptClause {
  type: string;
  subtype: string;
  q: number;
  params: Record<string, string>;
}

/**
 * goautoneg.ParseAccept: clauses split on `,` and `;`, spaces trimmed, a clause without `/` dropped (unless `*`), a
 * parameter without `=` dropped; then sorted by Go's insertion sort with goautoneg's comparison (higher q first, then
 * a concrete type or subtype before a wildcard), which keeps the client's order among equals.
 */
export function parseAccept(header: string): AcceptClause[] {
  const clauses: AcceptClause[] = [];
  for (const rawPart of header.split(',')) {
    const part = trimSpaces(rawPart);
    const semi = part.indexOf(';');
    const range = semi === -1 ? part : part.slice(0, semi);
    const slash = range.indexOf('/');
    const type = trimSpaces(slash === -1 ? range : range.slice(0, slash));
    let subtype: string;
    if (slash === -1 || slash === range.length - 1) {
      if (type !== '*') continue;
      subtype = '*';
    } else {
      const rest = range.slice(slash + 1);
      if (rest.includes('/')) continue;
      subtype = trimSpaces(rest);
    }
    const clause: AcceptClause = { type, subtype, q: 1, params: Object.create(null) as Record<string, string> };
    if (semi !== -1) {
      for (const param of part.slice(semi + 1).split(';')) {
        const pieces = param.split('=');
        if (pieces.length !== 2) continue;
        const key = trimSpaces(pieces[0]!);
        // Go's ParseFloat: no spaces, and a value it cannot read counts as 0.
        if (key === 'q') clause.q = GO_FLOAT.test(pieces[1]!) ? Number(pieces[1]) : 0;
        else clause.params[key] = trimSpaces(pieces[1]!);
      }
    }
    clauses.push(clause);
  }
  const less = (a: AcceptClause, b: AcceptClause) =>
    a.q > b.q || (a.type !== '*' && b.type === '*') || (a.subtype !== '*' && b.subtype === '*');
  for (let i = 1; i < clauses.length; i++) {
    for (let j = i; j > 0 && less(clauses[j]!, clauses[j - 1]!); j--) {
      [clauses[j], clauses[j - 1]] = [clauses[j - 1]!, clauses[j]!];
    }
  }
  return clauses;
}

const GO_FLOAT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

function trimSpaces(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && s[start] === ' ') start++;
  while (end > start && s[end - 1] === ' ') end--;
  return s.slice(start, end);
}

export type ConversionKind = 'Table' | 'PartialObjectMetadata' | 'PartialObjectMetadataList';

/** A conversion the client asked for with `as=`/`g=`/`v=` and the endpoint serves (meta.k8s.io v1 or v1beta1). */
export interface Conversion {
  kind: ConversionKind;
  version: 'v1' | 'v1beta1';
}

export interface Negotiated {
  format: MediaFormat;
  /** The serializer's media type: the answer's Content-Type (conversions do not change it). */
  mediaType: string;
  /** JSON written indented (`;pretty=1`, `?pretty=true`, or a browser's or curl's User-Agent). */
  pretty: boolean;
  convert?: Conversion;
}

/** What an endpoint can answer in (kube's EndpointRestrictions). */
export interface Endpoint {
  /** Media types served without a conversion; absent: all three. */
  formats?: readonly MediaFormat[];
  /** `as=Table` is served (in JSON and YAML). */
  table?: boolean;
  /** `as=PartialObjectMetadata[List]` is served (in every media type). */
  partialMetadata?: boolean;
  /** The meta.k8s.io version `sv=` may name (resources: v1); absent: `sv` is refused. */
  serverVersion?: string;
}

/** Resources of built-in kinds: all three media types, Tables and PartialObjectMetadata. */
export const BUILTIN_RESOURCE: Endpoint = { table: true, partialMetadata: true, serverVersion: 'v1' };
/** Custom resources and kcp's CRD-based kinds: JSON and YAML, protobuf only for PartialObjectMetadata. */
export const CUSTOM_RESOURCE: Endpoint = { formats: ['json', 'yaml'], table: true, partialMetadata: true, serverVersion: 'v1' };
/** Errors, discovery and other plain objects (kube's DefaultEndpointRestrictions): no conversions. */
export const PLAIN: Endpoint = {};

interface Matched {
  serializer: Serializer;
  pretty: boolean;
  convert?: { kind: string; group: string; version: string };
}

function acceptable(clause: Readonly<AcceptClause>, s: Serializer, endpoint: Endpoint): Matched | undefined {
  let convert: Matched['convert'];
  let pretty = false;
  // for-in, not Object.entries: most clauses have no parameters, and this runs for each clause of every answer.
  for (const key in clause.params) {
    const value = clause.params[key]!;
    switch (key) {
      case 'as':
        (convert ??= { kind: '', group: '', version: '' }).kind = value;
        break;
      case 'g':
        (convert ??= { kind: '', group: '', version: '' }).group = value;
        break;
      case 'v':
        (convert ??= { kind: '', group: '', version: '' }).version = value;
        break;
      case 'stream':
        if (value && (!s.streams || value !== 'watch')) return undefined;
        break;
      case 'sv':
        if (value && value !== endpoint.serverVersion) return undefined;
        break;
      case 'pretty':
        pretty = value === '1';
        break;
      default:
      // kube records and ignores parameters it does not know (`charset`, `export`, `profile`, …).
    }
  }
  if (!allowsTransform(endpoint, s, convert)) return undefined;
  return { serializer: s, pretty, convert };
}

function allowsTransform(endpoint: Endpoint, s: Serializer, convert: Matched['convert']): boolean {
  if (!convert) return !endpoint.formats || endpoint.formats.includes(s.format);
  if (convert.group !== 'meta.k8s.io' || (convert.version !== 'v1' && convert.version !== 'v1beta1')) return false;
  if (convert.kind === 'Table') return !!endpoint.table && (s.format === 'json' || s.format === 'yaml');
  if (convert.kind === 'PartialObjectMetadata' || convert.kind === 'PartialObjectMetadataList') return !!endpoint.partialMetadata;
  return false;
}

/**
 * Parsed Accept headers by their text: clients send the same few on every request. Bounded in count and length (the
 * header is the client's to choose); when full, new headers are parsed each time rather than evicting.
 */
const parsedAccepts = new Map<string, readonly Readonly<AcceptClause>[]>();
const MAX_PARSED_ACCEPTS = 256;
const MAX_CACHED_ACCEPT_LENGTH = 512;

function acceptClauses(accept: string): readonly Readonly<AcceptClause>[] {
  let clauses = parsedAccepts.get(accept);
  if (clauses) return clauses;
  clauses = parseAccept(accept);
  if (accept.length <= MAX_CACHED_ACCEPT_LENGTH && parsedAccepts.size < MAX_PARSED_ACCEPTS) {
    for (const clause of clauses) Object.freeze(Object.freeze(clause).params);
    parsedAccepts.set(accept, Object.freeze(clauses));
  }
  return clauses;
}

/** NegotiateMediaTypeOptions: the first clause (in goautoneg's order) any media type satisfies, or undefined. */
function match(accept: string | undefined, endpoint: Endpoint): Matched | undefined {
  if (!accept) return { serializer: SERIALIZERS[0]!, pretty: false };
  for (const clause of acceptClauses(accept)) {
    for (const s of SERIALIZERS) {
      const fits =
        (clause.type === s.type && (clause.subtype === s.subtype || clause.subtype === '*')) ||
        (clause.type === '*' && clause.subtype === '*');
      if (!fits) continue;
      const m = acceptable(clause, s, endpoint);
      if (m) return m;
    }
  }
  return undefined;
}

/** The request facts negotiation reads. */
export interface NegotiationRequest {
  accept?: string;
  userAgent?: string;
  query?: URLSearchParams;
}

/**
 * The answer's media type, conversion and pretty-printing for a request to `endpoint`; a 406 StatusError (kube's
 * message, listing all three media types) when no clause of the Accept header can be served.
 */
export function negotiateOutput(req: NegotiationRequest, endpoint: Endpoint): Negotiated {
  const m = match(req.accept, endpoint);
  if (!m) throw notAcceptable(SERIALIZERS.map((s) => s.mediaType));
  return resultOf(m, req);
}

/**
 * Like negotiateOutput, for a watch: JSON or protobuf. A clause that picks YAML, which has no stream form, is a 406
 * listing the stream media types (kube looks no further).
 */
export function negotiateStream(req: NegotiationRequest, endpoint: Endpoint): Negotiated {
  const m = match(req.accept, endpoint);
  if (!m) throw notAcceptable(SERIALIZERS.map((s) => s.mediaType));
  if (!m.serializer.streams) throw notAcceptable(SERIALIZERS.filter((s) => s.streams).map((s) => `${s.mediaType};stream=watch`));
  return resultOf(m, req);
}

/** The negotiation of an error Status (no conversions); undefined when nothing fits (kube then writes indented JSON). */
export function negotiateError(req: NegotiationRequest): Negotiated | undefined {
  const m = match(req.accept, PLAIN);
  return m && resultOf(m, req);
}

function resultOf(m: Matched, req: NegotiationRequest): Negotiated {
  const out: Negotiated = {
    format: m.serializer.format,
    mediaType: m.serializer.mediaType,
    // Only JSON has a pretty form.
    pretty: m.serializer.format === 'json' && (m.pretty || isPrettyPrint(req)),
  };
  if (m.convert) out.convert = { kind: m.convert.kind as ConversionKind, version: m.convert.version as Conversion['version'] };
  return out;
}

/**
 * kube's isPrettyPrint: `?pretty=` decides when it has a value (Go's strconv.ParseBool; anything else is false),
 * otherwise people's tools get indented JSON: User-Agents starting with `curl`, `Wget` or `Mozilla/5.0`.
 */
export function isPrettyPrint(req: NegotiationRequest): boolean {
  const value = req.query?.get('pretty');
  if (value) return ['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value);
  const ua = req.userAgent ?? '';
  return ua.startsWith('curl') || ua.startsWith('Wget') || ua.startsWith('Mozilla/5.0');
}

