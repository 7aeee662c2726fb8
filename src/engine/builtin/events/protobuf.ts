/**
 * events.k8s.io/v1 Event: what client-go's event recorders (tools/events, controller-runtime's GetEventRecorder)
 * create, in protobuf by default since client-go v0.35. Field numbers: k8s.io/api events/v1 generated.proto.
 */
import type { PackageDefs } from '../../machinery/protobuf/schema.js';

export const eventsV1: PackageDefs = {
  pkg: 'events.v1',
  apiVersion: 'events.k8s.io/v1',
  kinds: ['Event'],
  messages: {
    Event: {
      metadata: '1 meta.v1.ObjectMeta',
      eventTime: '2 meta.v1.MicroTime',
      series: '3 ?EventSeries',
      reportingController: '4 string',
      reportingInstance: '5 string',
      action: '6 string',
      reason: '7 string',
      regarding: '8 core.v1.ObjectReference',
      related: '9 ?core.v1.ObjectReference',
      note: '10 string',
      type: '11 string',
      deprecatedSource: '12 core.v1.EventSource',
      deprecatedFirstTimestamp: '13 meta.v1.Time',
      deprecatedLastTimestamp: '14 meta.v1.Time',
      deprecatedCount: '15 int32',
    },
    EventSeries: { count: '1 int32', lastObservedTime: '2 meta.v1.MicroTime' },
  },
};
