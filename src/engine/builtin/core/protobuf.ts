/**
 * core/v1 (apiVersion `v1`): the kinds kubectl's typed `create` commands send, plus Event and LimitRange.
 * Field numbers: k8s.io/api v0.32 core/v1/generated.proto. `?` marks Go pointers (see ../schema.ts).
 */
import type { PackageDefs } from '../../machinery/protobuf/schema.js';

const objectMeta = '1 meta.v1.ObjectMeta';

export const coreV1: PackageDefs = {
  pkg: 'core.v1',
  apiVersion: 'v1',
  kinds: ['Namespace', 'ConfigMap', 'Secret', 'ServiceAccount', 'ResourceQuota', 'LimitRange', 'Event', 'Service'],
  messages: {
    Namespace: { metadata: objectMeta, spec: '2 NamespaceSpec', status: '3 NamespaceStatus' },
    NamespaceSpec: { finalizers: '1 []string' },
    NamespaceStatus: { phase: '1 string', conditions: '2 []NamespaceCondition' },
    NamespaceCondition: {
      type: '1 string',
      status: '2 string',
      lastTransitionTime: '4 meta.v1.Time',
      reason: '5 string',
      message: '6 string',
    },

    ConfigMap: { metadata: objectMeta, immutable: '4 ?bool', data: '2 {}string', binaryData: '3 {}bytes' },
    Secret: { metadata: objectMeta, immutable: '5 ?bool', data: '2 {}bytes', stringData: '4 {}string', type: '3 string' },

    ServiceAccount: {
      metadata: objectMeta,
      secrets: '2 []ObjectReference',
      imagePullSecrets: '3 []LocalObjectReference',
      automountServiceAccountToken: '4 ?bool',
    },
    ObjectReference: {
      kind: '1 string',
      namespace: '2 string',
      name: '3 string',
      uid: '4 string',
      apiVersion: '5 string',
      resourceVersion: '6 string',
      fieldPath: '7 string',
    },
    LocalObjectReference: { name: '1 string' },

    ResourceQuota: { metadata: objectMeta, spec: '2 ResourceQuotaSpec', status: '3 ResourceQuotaStatus' },
    ResourceQuotaSpec: { hard: '1 {}resource.Quantity', scopes: '2 []string', scopeSelector: '3 ?ScopeSelector' },
    ResourceQuotaStatus: { hard: '1 {}resource.Quantity', used: '2 {}resource.Quantity' },
    ScopeSelector: { matchExpressions: '1 []ScopedResourceSelectorRequirement' },
    ScopedResourceSelectorRequirement: { scopeName: '1 string', operator: '2 string', values: '3 []string' },

    LimitRange: { metadata: objectMeta, spec: '2 LimitRangeSpec' },
    LimitRangeSpec: { limits: '1 []LimitRangeItem' },
    LimitRangeItem: {
      type: '1 string',
      max: '2 {}resource.Quantity',
      min: '3 {}resource.Quantity',
      default: '4 {}resource.Quantity',
      defaultRequest: '5 {}resource.Quantity',
      maxLimitRequestRatio: '6 {}resource.Quantity',
    },

    Event: {
      metadata: objectMeta,
      involvedObject: '2 ObjectReference',
      reason: '3 string',
      message: '4 string',
      source: '5 EventSource',
      firstTimestamp: '6 meta.v1.Time',
      lastTimestamp: '7 meta.v1.Time',
      count: '8 int32',
      type: '9 string',
      eventTime: '10 meta.v1.MicroTime',
      series: '11 ?EventSeries',
      action: '12 string',
      related: '13 ?ObjectReference',
      reportingComponent: '14 string',
      reportingInstance: '15 string',
    },
    EventSource: { component: '1 string', host: '2 string' },
    EventSeries: { count: '1 int32', lastObservedTime: '2 meta.v1.MicroTime' },

    Service: { metadata: objectMeta, spec: '2 ServiceSpec', status: '3 ServiceStatus' },
    ServiceSpec: {
      ports: '1 []ServicePort',
      selector: '2 {}string',
      clusterIP: '3 string',
      clusterIPs: '18 []string',
      type: '4 string',
      externalIPs: '5 []string',
      sessionAffinity: '7 string',
      loadBalancerIP: '8 string',
      loadBalancerSourceRanges: '9 []string',
      externalName: '10 string',
      externalTrafficPolicy: '11 string',
      healthCheckNodePort: '12 int32',
      publishNotReadyAddresses: '13 bool',
      sessionAffinityConfig: '14 ?SessionAffinityConfig',
      ipFamilies: '19 []string',
      ipFamilyPolicy: '17 ?string',
      allocateLoadBalancerNodePorts: '20 ?bool',
      loadBalancerClass: '21 ?string',
      internalTrafficPolicy: '22 ?string',
      trafficDistribution: '23 ?string',
    },
    ServicePort: {
      name: '1 string',
      protocol: '2 string',
      appProtocol: '6 ?string',
      port: '3 int32',
      targetPort: '4 intstr.IntOrString',
      nodePort: '5 int32',
    },
    SessionAffinityConfig: { clientIP: '1 ?ClientIPConfig' },
    ClientIPConfig: { timeoutSeconds: '1 ?int32' },
    ServiceStatus: { loadBalancer: '1 LoadBalancerStatus', conditions: '2 []meta.v1.Condition' },
    LoadBalancerStatus: { ingress: '1 []LoadBalancerIngress' },
    LoadBalancerIngress: { ip: '1 string', hostname: '2 string', ipMode: '3 ?string', ports: '4 []PortStatus' },
    PortStatus: { port: '1 int32', protocol: '2 string', error: '3 ?string' },
  },
};
