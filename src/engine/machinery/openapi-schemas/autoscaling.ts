/**
 * autoscaling/v1 Scale: the body of every `…/scale` subresource, including custom resources that declare one, so it
 * is shared by every group rather than owned by one.
 */
import { field, int32, kindSchema, str, struct, withRequired, type Schema } from './helpers.js';

const AS = 'io.k8s.api.autoscaling.v1';

export const autoscalingSchemas: Record<string, Schema> = {
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
