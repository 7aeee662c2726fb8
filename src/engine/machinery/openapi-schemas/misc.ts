/**
 * Smaller built-in groups: events.k8s.io/v1, coordination.k8s.io/v1, and autoscaling/v1 Scale (the body of every
 * `…/scale` subresource, including custom resources that declare one).
 */
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
} from './helpers.js';

const EV = 'io.k8s.api.events.v1';
const CO = 'io.k8s.api.coordination.v1';
const AS = 'io.k8s.api.autoscaling.v1';
const CORE = 'io.k8s.api.core.v1';

export const miscSchemas: Record<string, Schema> = {
  [`${EV}.Event`]: kindSchema({
    description:
      'An Event reports something that happened to an object. This is the newer form of core v1 Event; both ' +
      'APIs read and write the same objects.',
    gvk: { group: 'events.k8s.io', version: 'v1', kind: 'Event' },
    properties: {
      action: str('What the reporting controller did or failed to do.'),
      deprecatedCount: int32('Occurrence count in the old core v1 form.'),
      deprecatedFirstTimestamp: field(TIME, 'First occurrence in the old core v1 form.'),
      deprecatedLastTimestamp: field(TIME, 'Latest occurrence in the old core v1 form.'),
      deprecatedSource: field(`${CORE}.EventSource`, 'Reporting component in the old core v1 form.', {
        withDefault: true,
      }),
      eventTime: field(MICRO_TIME, 'When the event was first observed.'),
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
      count: int32('Occurrences in this series up to lastObservedTime.'),
      lastObservedTime: field(MICRO_TIME, 'When the last occurrence was observed.'),
    }),
    ['count', 'lastObservedTime'],
  ),
  [`${CO}.Lease`]: kindSchema({
    description: 'A Lease is a lock with a holder and an expiry, used for leader election and heartbeats.',
    gvk: { group: 'coordination.k8s.io', version: 'v1', kind: 'Lease' },
    properties: {
      spec: field(`${CO}.LeaseSpec`, 'The current holder and timing of the lease.', { withDefault: true }),
    },
  }),
  [`${CO}.LeaseSpec`]: struct('Holder and timing of a lease.', {
    acquireTime: field(MICRO_TIME, 'When the current holder acquired the lease.'),
    holderIdentity: str('Identity of the current holder.'),
    leaseDurationSeconds: int32('How long a candidate waits after the last renewal before taking over.'),
    leaseTransitions: int32('How many times the lease has changed holders.'),
    preferredHolder: str('Holder that should take over next, when a strategy supports it.'),
    renewTime: field(MICRO_TIME, 'When the holder last renewed the lease.'),
    strategy: str('Strategy for choosing the next holder in coordinated leader election.'),
  }),
  [`${AS}.Scale`]: kindSchema({
    description: 'The desired and observed replica count of a scalable resource (the scale subresource).',
    gvk: { group: 'autoscaling', version: 'v1', kind: 'Scale' },
    properties: {
      spec: field(`${AS}.ScaleSpec`, 'Desired replicas.', { withDefault: true }),
      status: field(`${AS}.ScaleStatus`, 'Observed replicas. Read-only.', { withDefault: true }),
    },
  }),
  [`${AS}.ScaleSpec`]: struct('Desired state of a scale subresource.', {
    replicas: int32('Desired number of instances.'),
  }),
  [`${AS}.ScaleStatus`]: withRequired(
    struct('Observed state of a scale subresource.', {
      replicas: { ...int32('Observed number of instances.'), default: 0 },
      selector: str('Label selector (string form) of the pods counted in replicas.'),
    }),
    ['replicas'],
  ),
};

addLists(miscSchemas, EV, 'events.k8s.io', 'v1', ['Event']);
addLists(miscSchemas, CO, 'coordination.k8s.io', 'v1', ['Lease']);
