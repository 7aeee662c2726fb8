/**
 * autoscaling/v1 Scale: the `scale` subresource of custom resources, read and written by `kubectl scale` and
 * client-go's scale client. Field numbers: k8s.io/api autoscaling/v1 generated.proto.
 */
import type { PackageDefs } from '../schema.js';

export const autoscalingV1: PackageDefs = {
  pkg: 'autoscaling.v1',
  apiVersion: 'autoscaling/v1',
  kinds: ['Scale'],
  messages: {
    Scale: { metadata: '1 meta.v1.ObjectMeta', spec: '2 ScaleSpec', status: '3 ScaleStatus' },
    ScaleSpec: { replicas: '1 int32' },
    ScaleStatus: { replicas: '1 int32', selector: '2 string' },
  },
};
