/**
 * Event policy shared by core/v1 and events.k8s.io/v1 (one storage, two shapes): validation as
 * pkg/apis/core/validation/events.go does it on the core shape, the printer, and field selectors. The printer and
 * selectors read either shape, because they may run on stored (core) objects or on served ones.
 */
import { fieldErrors, type FieldError } from '../../machinery/status.js';
import type { KubeObject, TablePrinter } from '../../registry/types.js';
import { ageCell, column, nameDescription, nameOf } from '../printing.js';
import { record, str } from '../../machinery/field-values.js';
import { isDNS1123Subdomain, isQualifiedName } from '../value-rules.js';

/** The fields both shapes share, read from whichever shape `obj` has. */
export function eventView(obj: KubeObject) {
  const involved = record(obj.involvedObject ?? obj.regarding);
  const source = record(obj.source ?? obj.deprecatedSource);
  return {
    involved,
    source,
    message: str(obj.message ?? obj.note),
    firstTimestamp: obj.firstTimestamp ?? obj.deprecatedFirstTimestamp,
    lastTimestamp: obj.lastTimestamp ?? obj.deprecatedLastTimestamp,
    count: Number(obj.count ?? obj.deprecatedCount ?? 0) || 0,
    reportingController: str(obj.reportingComponent ?? obj.reportingController),
    reportingInstance: str(obj.reportingInstance),
    eventTime: obj.eventTime,
    series: obj.series === undefined || obj.series === null ? undefined : record(obj.series),
  };
}

function isZeroTime(t: unknown): boolean {
  return t === undefined || t === null || t === '';
}

/**
 * legacyValidateEvent: what every Event write must satisfy, whichever API it came through. The reporting
 * controller is reported under the request's field name: core/v1 calls it `reportingComponent`.
 */
export function validateEventLegacy(obj: KubeObject, reportingControllerField: 'reportingController' | 'reportingComponent'): FieldError[] {
  const errs: FieldError[] = [];
  const namespace = obj.metadata?.namespace ?? '';
  const involvedNamespace = str(record(obj.involvedObject).namespace);
  const mismatch = () =>
    fieldErrors.invalid('involvedObject.namespace', involvedNamespace, 'does not match event.namespace');
  if (isZeroTime(obj.eventTime)) {
    // Old-style events: the namespace must agree with the involved object's ("default" tolerated for old clients).
    if (involvedNamespace === '') {
      if (namespace !== '' && namespace !== 'default') errs.push(mismatch());
    } else if (namespace !== involvedNamespace) {
      errs.push(mismatch());
    }
  } else {
    if (involvedNamespace === '' && namespace !== 'default' && namespace !== 'kube-system') errs.push(mismatch());
    const controller = str(obj.reportingComponent);
    if (controller === '') errs.push(fieldErrors.required(reportingControllerField));
    for (const msg of isQualifiedName(controller)) errs.push(fieldErrors.invalid(reportingControllerField, controller, msg));
    const instance = str(obj.reportingInstance);
    if (instance === '') errs.push(fieldErrors.required('reportingInstance'));
    if (instance.length > 128) errs.push(fieldErrors.invalid('reportingInstance', '', 'can have at most 128 characters'));
    const action = str(obj.action);
    if (action === '') errs.push(fieldErrors.required('action'));
    if (action.length > 128) errs.push(fieldErrors.invalid('action', '', 'can have at most 128 characters'));
    const reason = str(obj.reason);
    if (reason === '') errs.push(fieldErrors.required('reason'));
    if (reason.length > 128) errs.push(fieldErrors.invalid('reason', '', 'can have at most 128 characters'));
    if (str(obj.message).length > 1024) errs.push(fieldErrors.invalid('message', '', 'can have at most 1024 characters'));
  }
  for (const msg of isDNS1123Subdomain(namespace)) errs.push(fieldErrors.invalid('namespace', namespace, msg));
  return errs;
}

function validateSeries(obj: KubeObject): FieldError[] {
  if (obj.series === undefined || obj.series === null) return [];
  const series = record(obj.series);
  const errs: FieldError[] = [];
  if (!(Number(series.count) >= 2)) errs.push(fieldErrors.invalid('series.count', '', 'should be at least 2'));
  if (isZeroTime(series.lastObservedTime)) errs.push(fieldErrors.required('series.lastObservedTime'));
  return errs;
}

/** The stricter rules events.k8s.io/v1 adds on create, checked on the core shape (paths use core names). */
export function validateEventStrictCreate(core: KubeObject): FieldError[] {
  const errs = validateSeries(core);
  if (isZeroTime(core.eventTime)) errs.push(fieldErrors.required('eventTime'));
  const type = str(core.type);
  if (type !== 'Normal' && type !== 'Warning') errs.push(fieldErrors.invalid('type', '', `has invalid value: ${type}`));
  if (!isZeroTime(core.firstTimestamp)) errs.push(fieldErrors.invalid('firstTimestamp', '', 'needs to be unset'));
  if (!isZeroTime(core.lastTimestamp)) errs.push(fieldErrors.invalid('lastTimestamp', '', 'needs to be unset'));
  if (Number(core.count ?? 0) !== 0) errs.push(fieldErrors.invalid('count', '', 'needs to be unset'));
  const source = record(core.source);
  if (str(source.component) !== '' || str(source.host) !== '') {
    errs.push(fieldErrors.invalid('source', '', 'needs to be unset'));
  }
  return errs;
}

/** Core field → the path kube reports it under (the internal type's name). */
const immutableOnStrictUpdate: Array<[string, string]> = [
  ['involvedObject', 'involvedObject'],
  ['reason', 'reason'],
  ['message', 'message'],
  ['source', 'source'],
  ['firstTimestamp', 'firstTimestamp'],
  ['lastTimestamp', 'lastTimestamp'],
  ['count', 'count'],
  ['type', 'type'],
  ['eventTime', 'eventTime'],
  ['action', 'action'],
  ['related', 'related'],
  ['reportingComponent', 'reportingController'],
  ['reportingInstance', 'reportingInstance'],
];

/** events.k8s.io/v1 updates may only touch the series (and metadata). */
export function validateEventStrictUpdate(core: KubeObject, oldCore: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  if (JSON.stringify(core.series) !== JSON.stringify(oldCore.series)) errs.push(...validateSeries(core));
  for (const [field, path] of immutableOnStrictUpdate) {
    if (!sameValue(core[field], oldCore[field])) errs.push(fieldErrors.invalid(path, core[field] ?? '', 'field is immutable'));
  }
  return errs;
}

/** Go compares zero values: absent, null, "" and {} are all the zero value of their field. */
function sameValue(a: unknown, b: unknown): boolean {
  const zero = (v: unknown) =>
    v === undefined || v === null || v === '' || v === 0 || (typeof v === 'object' && Object.keys(v as object).length === 0);
  if (zero(a) && zero(b)) return true;
  return JSON.stringify(a) === JSON.stringify(b);
}

function formatSource(source: Record<string, unknown>, controller: string, instance: string): string {
  const component = str(source.component) || controller;
  const host = str(source.host) || instance;
  return host ? `${component}, ${host}` : component;
}

export const eventPrinter: TablePrinter = {
  columns: [
    column('Last Seen', 'The time at which the most recent occurrence of this event was recorded.'),
    column('Type', 'Type of this event (Normal, Warning), new types could be added in the future'),
    column('Reason', "This should be a short, machine understandable string that gives the reason for the transition into the object's current status."),
    column('Object', 'The object that this event is about.'),
    column('Subobject', 'If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2].', 1),
    column('Source', 'The component reporting this event. Should be a short machine understandable string.', 1),
    column('Message', 'A human-readable description of the status of this operation.'),
    column('First Seen', 'The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)', 1),
    column('Count', 'The number of times this event has occurred.', 1),
    { name: 'Name', type: 'string', format: 'name', description: nameDescription, priority: 1 },
  ],
  cells(obj, now) {
    const e = eventView(obj);
    // New-style events only carry eventTime (and a series when repeated); old ones the first/last timestamps.
    const firstSeen = isZeroTime(e.firstTimestamp) ? ageCell(e.eventTime, now) : ageCell(e.firstTimestamp, now);
    let lastSeen = isZeroTime(e.lastTimestamp) ? firstSeen : ageCell(e.lastTimestamp, now);
    let count = e.count;
    if (e.series) {
      lastSeen = ageCell(e.series.lastObservedTime, now);
      count = Number(e.series.count) || 0;
    } else if (count === 0) {
      count = 1;
    }
    const kind = str(e.involved.kind).toLowerCase();
    const name = str(e.involved.name);
    return [
      lastSeen,
      str(obj.type),
      str(obj.reason),
      name ? `${kind}/${name}` : kind,
      str(e.involved.fieldPath),
      formatSource(e.source, e.reportingController, e.reportingInstance),
      e.message.trim(),
      firstSeen,
      count,
      nameOf(obj),
    ];
  },
};

const involvedFields = ['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath'];

function involvedSelectors(prefix: string): Record<string, (obj: KubeObject) => string> {
  return Object.fromEntries(
    involvedFields.map((f) => [`${prefix}.${f}`, (obj: KubeObject) => str(eventView(obj).involved[f])]),
  );
}

/** core/v1 field selectors (pkg/registry/core/event ToSelectableFields). */
export const coreEventFieldSelectors: Record<string, (obj: KubeObject) => string> = {
  ...involvedSelectors('involvedObject'),
  reason: (obj) => str(obj.reason),
  reportingComponent: (obj) => eventView(obj).reportingController,
  // Old events name their source component; new ones only their reporting controller.
  source: (obj) => str(eventView(obj).source.component) || eventView(obj).reportingController,
  type: (obj) => str(obj.type),
};

/** events.k8s.io/v1 field selectors: its own field names mapped onto the same values. */
export const eventsV1FieldSelectors: Record<string, (obj: KubeObject) => string> = {
  ...involvedSelectors('regarding'),
  reason: (obj) => str(obj.reason),
  reportingController: (obj) => eventView(obj).reportingController,
  type: (obj) => str(obj.type),
};
