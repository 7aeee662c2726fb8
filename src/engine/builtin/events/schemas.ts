/** events.k8s.io/v1 Event: the newer form of core v1 Event (both read and write the same objects). */
import { coreSchemas } from '../core/schemas.js';
import {
  MICRO_TIME,
  TIME,
  addLists,
  field,
  int32,
  kindSchema,
  str,
  struct,
  withRequired,
  type Schema,
} from '../../machinery/openapi-schemas/helpers.js';

const EV = 'io.k8s.api.events.v1';
const CORE = 'io.k8s.api.core.v1';

const own: Record<string, Schema> = {
  [`${EV}.Event`]: kindSchema({
    description:
      'An Event reports something that happened to an object. This is the newer form of core v1 Event; both ' +
      'APIs read and write the same objects.',
    gvk: { group: 'events.k8s.io', version: 'v1', kind: 'Event' },
    properties: {
      action: str('What the reporting controller did or failed to do.'),
      deprecatedCount: int32('Occurrence count in the old core v1 form.'),
      deprecatedFirstTimestamp: field(TIME, 'First occurrence in the old core v1 form.', { withDefault: true }),
      deprecatedLastTimestamp: field(TIME, 'Latest occurrence in the old core v1 form.', { withDefault: true }),
      deprecatedSource: field(`${CORE}.EventSource`, 'Reporting component in the old core v1 form.', {
        withDefault: true,
      }),
      eventTime: field(MICRO_TIME, 'When the event was first observed.', { withDefault: true }),
      note: str('Human-readable description of what happened, at most 1 kB.'),
      reason: str('Short machine-readable CamelCase reason.'),
      regarding: field(`${CORE}.ObjectReference`, 'The object this event is about.', { withDefault: true }),
      related: field(`${CORE}.ObjectReference`, 'A second object involved in the event, if any.'),
      reportingController: str('Controller that emitted the event, e.g. kubernetes.io/kubelet.'),
      reportingInstance: str('ID of the controller instance, e.g. kubelet-xyzf.'),
      series: field(`${EV}.EventSeries`, 'Data about the series this event belongs to, if it repeats.'),
      type: str('Normal or Warning; new types may be added.'),
    },
    required: ['eventTime'],
  }),
  [`${EV}.EventSeries`]: withRequired(
    struct('A series of recurring events, updated in place instead of creating new events.', {
      count: { ...int32('Occurrences in this series up to lastObservedTime.'), default: 0 },
      lastObservedTime: field(MICRO_TIME, 'When the last occurrence was observed.', { withDefault: true }),
    }),
    ['count', 'lastObservedTime'],
  ),
};

addLists(own, EV, 'events.k8s.io', 'v1', ['Event']);

/** With the core/v1 kinds its Event refers to (ObjectReference, EventSource). */
export const eventsSchemas: Record<string, Schema> = { ...coreSchemas, ...own };
