/**
 * Rendering answers in the form negotiation chose (negotiation.ts): JSON (stored bytes spliced where possible),
 * YAML or Kubernetes protobuf, after the conversion the client asked for (`as=Table`, `as=PartialObjectMetadata`,
 * `as=PartialObjectMetadataList`), as kube-apiserver's transformResponseObject does.
 *
 * Built-in kinds are kube's typed kinds: they are answered in protobuf too, and their LIST items leave out
 * `apiVersion` and `kind` (kube's typed lists do; custom resources' items keep them).
 */
import { stringify as toYamlText } from 'yaml';
import { kubeProtobuf } from '../builtin/protobuf.js';
import { protobufWatchFrame } from '../machinery/protobuf/encode.js';
import { buildTable, defaultPrinter, parseIncludeObject, type TableVersion } from '../machinery/table.js';
import type { ListPage } from '../registry/list.js';
import { jsonListBody, withoutTypeMeta } from './list-body.js';
import { apiVersionOf, type KubeObject, type ResourceType, type TablePrinter } from '../registry/types.js';
import { StatusError } from '../machinery/status.js';
import {
  BUILTIN_RESOURCE,
  CUSTOM_RESOURCE,
  negotiateOutput,
  negotiateStream,
  type Endpoint,
  type Negotiated,
  type NegotiationRequest,
} from './negotiation.js';

/** How one request's answers are written: the negotiated form and the query (Table options). */
export interface RenderOptions {
  format: Negotiated;
  query: URLSearchParams;
}

/** A rendered answer: its text (JSON, YAML) or bytes (protobuf) and their Content-Type. */
export interface Answer {
  contentType: string;
  body: string | Buffer;
}

/** isTypedKind's answer per resource type: asked on every GET (negotiation), it built a key and looked it up twice. */
const typedKinds = new WeakMap<ResourceType, boolean>();

/** Kube's typed kinds (served in protobuf, typed lists); custom resources and kcp's CRD-based kinds are not. */
export function isTypedKind(rt: ResourceType): boolean {
  let typed = typedKinds.get(rt);
  if (typed === undefined) {
    typed = !rt.isCustomResource && kubeProtobuf.hasForm(apiVersionOf(rt), rt.kind);
    typedKinds.set(rt, typed);
  }
  return typed;
}

/** What a resource's endpoints can answer in; the computed review kinds have no table convertor in kube. */
export function endpointOf(rt: ResourceType): Endpoint {
  const base = isTypedKind(rt) ? BUILTIN_RESOURCE : CUSTOM_RESOURCE;
  return rt.virtualCreate ? { ...base, table: false } : base;
}

/** Negotiates a request to a resource of `rt` (a 406 StatusError when nothing the client accepts fits). */
export function renderOptions(rt: ResourceType, req: NegotiationRequest & { query: URLSearchParams }): RenderOptions {
  return { format: negotiateOutput(req, endpointOf(rt)), query: req.query };
}

/** As renderOptions, for a watch (JSON or protobuf stream). */
export function watchRenderOptions(rt: ResourceType, req: NegotiationRequest & { query: URLSearchParams }): RenderOptions {
  return { format: negotiateStream(req, endpointOf(rt)), query: req.query };
}

function tableOf(
  printer: TablePrinter,
  objects: KubeObject[],
  opts: RenderOptions,
  version: TableVersion,
  listMeta: Record<string, unknown>,
  withColumns: boolean,
) {
  return buildTable({
    printer,
    objects,
    now: Date.now(),
    includeObject: parseIncludeObject(opts.query),
    listMeta,
    includeColumnDefinitions: withColumns,
    tableVersion: version,
  });
}

function partialMetadata(obj: KubeObject, version: string): KubeObject {
  return { kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${version}`, metadata: obj.metadata ?? {} };
}

/** The Go type kube names in its conversion refusals: the internal type of a built-in, unstructured otherwise. */
function goTypeName(rt: ResourceType, list: boolean): string {
  if (!isTypedKind(rt)) return list ? '*unstructured.UnstructuredList' : '*unstructured.Unstructured';
  const pkg = rt.group === '' || rt.group === 'events.k8s.io' ? 'core' : rt.group.split('.')[0];
  return `*${pkg}.${list ? rt.listKind : rt.kind}`;
}

/** A value (or JSON text) in the negotiated media type. Protobuf values name their kind in apiVersion/kind. */
export function encodeAnswer(value: unknown, format: Negotiated): Answer {
  const contentType = format.mediaType;
  switch (format.format) {
    case 'protobuf':
      return { contentType, body: kubeProtobuf.encode((typeof value === 'string' ? JSON.parse(value) : value) as Record<string, unknown>) };
    case 'yaml':
      return { contentType, body: toYaml(typeof value === 'string' ? JSON.parse(value) : value) };
    default: {
      const text = typeof value === 'string' ? value : JSON.stringify(value);
      return { contentType, body: format.pretty ? JSON.stringify(JSON.parse(text), null, 2) : text };
    }
  }
}

/** JSON as YAML the way kube writes it (sigs.k8s.io/yaml): keys sorted, lists not indented under their key. */
export function toYaml(value: unknown): string {
  return toYamlText(value, { sortMapEntries: true, indentSeq: false, lineWidth: 0, minContentWidth: 0 });
}

/**
 * One object (parsed, or its JSON text) after the requested conversion. A Status is never converted (the answer of a
 * deletion that removed the object).
 */
export function renderObject(rt: ResourceType, obj: KubeObject | string, opts: RenderOptions): Answer {
  // The usual answer (no conversion asked) needs neither a table printer nor the Go type name of an error message.
  if (!opts.format.convert) return encodeAnswer(obj, opts.format);
  return renderConverted(obj, opts, rt.printer ?? defaultPrinter(), goTypeName(rt, false));
}

/**
 * A subresource's object of another kind (a custom resource's autoscaling/v1 Scale), converted as asked with that
 * kind's own printer: kube gives the scale subresource a request scope and table convertor of its own.
 */
export function renderSubresourceObject(obj: KubeObject, opts: RenderOptions, printer: TablePrinter, goType: string): Answer {
  return renderConverted(obj, opts, printer, goType);
}

function renderConverted(obj: KubeObject | string, opts: RenderOptions, printer: TablePrinter, goType: string): Answer {
  const { format } = opts;
  const convert = format.convert;
  if (!convert) return encodeAnswer(obj, format);
  const parsed = typeof obj === 'string' ? (JSON.parse(obj) as KubeObject) : obj;
  if (parsed.kind === 'Status' && parsed.apiVersion === 'v1') return encodeAnswer(parsed, format);
  switch (convert.kind) {
    case 'Table':
      return encodeAnswer(tableOf(printer, [parsed], opts, convert.version, { resourceVersion: parsed.metadata?.resourceVersion ?? '' }, true), format);
    case 'PartialObjectMetadata':
      return encodeAnswer(partialMetadata(parsed, convert.version), format);
    default:
      throw notAcceptableConversion(`you requested PartialObjectMetadataList, but the requested object is not a list (${goType})`);
  }
}

/** kube's refusal of a conversion the object cannot take: 406 with the reason as its whole message. */
function notAcceptableConversion(message: string): StatusError {
  return new StatusError(406, 'NotAcceptable', message);
}

/** The ListMeta of a page, with kube's omitempty rules. */
function listMetaOf(page: ListPage): Record<string, unknown> {
  const listMeta: Record<string, unknown> = { resourceVersion: page.resourceVersion };
  if (page.continueToken) listMeta.continue = page.continueToken;
  if (page.remainingItemCount !== undefined) listMeta.remainingItemCount = page.remainingItemCount;
  return listMeta;
}

export function renderList(rt: ResourceType, page: ListPage, opts: RenderOptions): Answer {
  if (rt.convert) {
    // Stored in another shape: these lists cannot splice stored bytes and must convert each item.
    const objects = (page.parsed ?? page.items.map((t) => JSON.parse(t) as KubeObject)).map((o) => rt.convert!.fromStorage(o));
    return renderListItems(rt, listMetaOf(page), { items: objects.map((o) => JSON.stringify(o)) }, objects, opts);
  }
  return renderListItems(rt, listMetaOf(page), page, page.parsed, opts);
}

/** A list of objects already in the served shape (what a deletecollection removed). */
export function renderObjectList(rt: ResourceType, objects: KubeObject[], resourceVersion: string, opts: RenderOptions): Answer {
  return renderListItems(rt, { resourceVersion }, { items: objects.map((o) => JSON.stringify(o)) }, objects, opts);
}

/** `list.items` are the items' JSON (`list.stored` the same as stored, when known); `objects`, when given, parsed. */
function renderListItems(
  rt: ResourceType,
  listMeta: Record<string, unknown>,
  list: Pick<ListPage, 'items' | 'stored'>,
  objects: KubeObject[] | undefined,
  opts: RenderOptions,
): Answer {
  const { format } = opts;
  const parsed = () => objects ?? list.items.map((t) => JSON.parse(t) as KubeObject);
  const convert = format.convert;
  if (convert?.kind === 'Table') return encodeAnswer(tableOf(rt.printer ?? defaultPrinter(), parsed(), opts, convert.version, listMeta, true), format);
  if (convert?.kind === 'PartialObjectMetadata') {
    throw notAcceptableConversion(`you requested PartialObjectMetadata, but the requested object is a list (${goTypeName(rt, true)})`);
  }
  if (convert?.kind === 'PartialObjectMetadataList') {
    const list = {
      kind: 'PartialObjectMetadataList',
      apiVersion: `meta.k8s.io/${convert.version}`,
      metadata: listMeta,
      items: parsed().map((o) => partialMetadata(o, convert.version)),
    };
    return encodeAnswer(list, format);
  }
  const apiVersion = apiVersionOf(rt);
  if (format.format === 'protobuf') {
    return { contentType: format.mediaType, body: kubeProtobuf.encodeList(apiVersion, rt.listKind, rt.kind, listMeta, parsed()) };
  }
  // JSON (and YAML from it): the items' texts spliced into the list without re-serializing them.
  const typed = isTypedKind(rt);
  const head = JSON.stringify({ kind: rt.listKind, apiVersion, metadata: listMeta }).slice(0, -1);
  if (list.stored && format.format === 'json' && !format.pretty) {
    return { contentType: format.mediaType, body: jsonListBody(head, list.stored, typed) };
  }
  const items = typed ? list.items.map(withoutTypeMeta) : list.items;
  return encodeAnswer(`${head},"items":[${items.join(',')}]}`, format);
}

/** The last frame encoded per frame key (WatchEventWriter): a handful of entries, one event each. */
const lastFrames = new Map<string, { type: string; json: string; frame: Buffer }>();

/**
 * A watch's events in the negotiated stream form: JSON lines, or length-prefixed protobuf WatchEvents. Objects are
 * converted as the request asked (a Table row, column definitions only on the first event; PartialObjectMetadata),
 * except ERROR Statuses, and bookmarks for Tables (their rows would print nothing).
 */
export class WatchEventWriter {
  readonly contentType: string;
  private first = true;
  /** Which shared frame cache this writer's events go through; undefined when each watcher's frame is its own (Tables). */
  private readonly frameKey: string | undefined;

  constructor(
    private readonly rt: ResourceType,
    private readonly opts: RenderOptions,
  ) {
    const f = opts.format;
    // kube: `application/json` as it is, `;stream=watch` on every other media type.
    this.contentType = f.format === 'json' ? f.mediaType : `${f.mediaType};stream=watch`;
    // A frame depends only on the event and on (wire format, conversion): a Table's first row also carries the
    // column definitions, so Tables are per watcher.
    const convert = f.convert;
    this.frameKey = convert?.kind === 'Table' ? undefined : `${f.format === 'protobuf' ? 'protobuf' : 'json'} ${convert ? `${convert.kind}/${convert.version}` : ''}`;
  }

  /**
   * One event for an object's JSON text, as bytes. Every watcher of a commit gets the same event in turn, so the
   * frame is encoded once per (event, wire format, conversion) and the same Buffer written to each stream.
   */
  event(type: string, json: string): Buffer {
    if (this.frameKey === undefined || type === 'ERROR') return this.encode(type, json);
    const last = lastFrames.get(this.frameKey);
    if (last && last.type === type && last.json === json) return last.frame;
    const frame = this.encode(type, json);
    lastFrames.set(this.frameKey, { type, json, frame });
    return frame;
  }

  private encode(type: string, json: string): Buffer {
    const object = this.object(type, json);
    if (this.opts.format.format === 'protobuf') {
      return protobufWatchFrame(type, kubeProtobuf.encode((typeof object === 'string' ? JSON.parse(object) : object) as Record<string, unknown>));
    }
    return Buffer.from(`{"type":"${type}","object":${typeof object === 'string' ? object : JSON.stringify(object)}}\n`);
  }

  private object(type: string, json: string): string | KubeObject {
    const convert = this.opts.format.convert;
    if (!convert || type === 'ERROR') return json;
    if (convert.kind === 'Table') {
      if (type === 'BOOKMARK') return json;
      const obj = JSON.parse(json) as KubeObject;
      const table = tableOf(this.rt.printer ?? defaultPrinter(), [obj], this.opts, convert.version, { resourceVersion: obj.metadata?.resourceVersion ?? '' }, this.first);
      this.first = false;
      return table as unknown as KubeObject;
    }
    // A watch asked for PartialObjectMetadataList gets PartialObjectMetadata events, as kube's watch does.
    return partialMetadata(JSON.parse(json) as KubeObject, convert.version);
  }
}
