/**
 * Events, served twice over one key space as kube does (`/registry/events`): core/v1 (the stored shape) and
 * events.k8s.io/v1, whose objects are converted to and from the core shape by the ResourceType's `convert` hook.
 */
import type { KubeObject, ResourceType, Strategy } from '../../registry/types.js';
import { defineBuiltin } from '../define.js';
import {
  eventPrinter,
  eventsV1FieldSelectors,
  validateEventLegacy,
  validateEventStrictCreate,
  validateEventStrictUpdate,
} from '../core/event-rules.js';
import { eventsSchemas } from './schemas.js';

const eventsV1ApiVersion = 'events.k8s.io/v1';

/** Drops undefined entries so converted objects serialize like kube's (omitempty fields absent). */
function compact(obj: Record<string, unknown>): KubeObject {
  for (const key of Object.keys(obj)) if (obj[key] === undefined) delete obj[key];
  return obj as KubeObject;
}

function nonEmpty<T>(value: T): T | undefined {
  return value === '' || value === 0 || value === null ? undefined : value;
}

/**
 * events.k8s.io/v1 → core/v1 (kube's Convert_v1_Event_To_core_Event): regarding→involvedObject, note→message,
 * deprecatedSource→source, deprecated{First,Last}Timestamp→{first,last}Timestamp, deprecatedCount→count,
 * reportingController→reportingComponent. Fields without a counterpart pass through unchanged.
 */
export function toCoreEvent(obj: KubeObject): KubeObject {
  const {
    apiVersion: _apiVersion,
    kind: _kind,
    metadata,
    regarding,
    note,
    deprecatedSource,
    deprecatedFirstTimestamp,
    deprecatedLastTimestamp,
    deprecatedCount,
    reportingController,
    ...rest
  } = obj;
  return compact({
    apiVersion: 'v1',
    kind: 'Event',
    metadata,
    ...rest,
    involvedObject: regarding ?? {},
    message: nonEmpty(note),
    source: deprecatedSource ?? {},
    firstTimestamp: deprecatedFirstTimestamp ?? null,
    lastTimestamp: deprecatedLastTimestamp ?? null,
    count: nonEmpty(deprecatedCount),
    eventTime: rest.eventTime ?? null,
    // core/v1 always serializes these two, empty or not.
    reportingComponent: reportingController ?? '',
    reportingInstance: rest.reportingInstance ?? '',
  });
}

/** core/v1 → events.k8s.io/v1 (kube's Convert_core_Event_To_v1_Event). */
export function fromCoreEvent(obj: KubeObject): KubeObject {
  const {
    apiVersion: _apiVersion,
    kind: _kind,
    metadata,
    involvedObject,
    message,
    source,
    firstTimestamp,
    lastTimestamp,
    count,
    reportingComponent,
    ...rest
  } = obj;
  return compact({
    apiVersion: eventsV1ApiVersion,
    kind: 'Event',
    metadata,
    ...rest,
    eventTime: rest.eventTime ?? null,
    reportingController: nonEmpty(reportingComponent),
    reportingInstance: nonEmpty(rest.reportingInstance),
    regarding: involvedObject ?? {},
    note: nonEmpty(message),
    deprecatedSource: source ?? {},
    deprecatedFirstTimestamp: firstTimestamp ?? null,
    deprecatedLastTimestamp: lastTimestamp ?? null,
    deprecatedCount: nonEmpty(count),
  });
}

/** Accepts either shape, so validation holds whichever shape the store hands over. */
function asCoreEvent(obj: KubeObject): KubeObject {
  return obj.apiVersion === eventsV1ApiVersion || 'regarding' in obj || 'note' in obj ? toCoreEvent(obj) : obj;
}

/** core/v1 keeps the old, lenient rules for backward compatibility. */
export const coreEventStrategy: Strategy = {
  allowUnconditionalUpdate: true,
  // Legacy events never had their names checked beyond fitting in a URL path segment.
  nameValidation: 'path-segment',
  validate: (obj) => validateEventLegacy(obj, 'reportingComponent'),
};

/**
 * Objects this strategy is creating: the create-only rules must not run on updates, and validate() cannot tell the
 * two apart, but prepareForCreate only ever sees creates.
 */
const creating = new WeakSet<KubeObject>();

export const eventsV1Strategy: Strategy = {
  allowUnconditionalUpdate: true,
  nameValidation: 'subdomain',
  prepareForCreate(obj) {
    creating.add(obj);
  },
  validate(obj) {
    const core = asCoreEvent(obj);
    const errs = validateEventLegacy(core, 'reportingController');
    if (creating.has(obj)) errs.push(...validateEventStrictCreate(core));
    return errs;
  },
  validateUpdate: (obj, old) => validateEventStrictUpdate(asCoreEvent(obj), asCoreEvent(old)),
};

export const eventsV1Events: ResourceType = defineBuiltin({
  group: 'events.k8s.io',
  version: 'v1',
  resource: 'events',
  singular: 'event',
  kind: 'Event',
  namespaced: true,
  shortNames: ['ev'],
  strategy: eventsV1Strategy,
  printer: eventPrinter,
  fieldSelectors: eventsV1FieldSelectors,
  // One key space with core/v1 events: `kubectl get events` sees events written through either API.
  storagePrefix: 'core/events',
  storedAs: { group: '', version: 'v1', kind: 'Event' },
  openapiSchemaName: 'io.k8s.api.events.v1.Event',
  schemas: eventsSchemas,
  convert: { toStorage: toCoreEvent, fromStorage: fromCoreEvent },
});

export function eventsGroupResourceTypes(): ResourceType[] {
  return [eventsV1Events];
}
