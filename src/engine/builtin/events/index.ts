/** events.k8s.io: the newer form of core v1 Event, in the same key space. */
import type { BuiltinGroup } from '../group.js';
import { eventsV1 } from './protobuf.js';
import { eventsGroupResourceTypes } from './resources.js';
import { eventsSchemas } from './schemas.js';

export const eventsGroup: BuiltinGroup = {
  name: 'events.k8s.io',
  resourceTypes: eventsGroupResourceTypes,
  schemas: eventsSchemas,
  protobuf: [eventsV1],
};
