/**
 * Kinds kubectl has no command for (Event, Lease, LimitRange, DeleteOptions, SubjectAccessReview, …) and fields the
 * captured fixtures leave empty. Objects are encoded gogo-style (every non-nullable field written, zeros included)
 * with our schema, whose field numbers upstream-descriptors.test.ts checks against kubectl's own descriptors.
 */
import { describe, expect, it } from 'vitest';
import { kubeProtobuf } from '../../builtin/protobuf.js';
import { encodeKube, gogoMeta, secs } from '../../builtin/protobuf-test-support.js';

const T1 = secs('2024-05-06T07:08:09Z');
const decode = (apiVersion: string, kind: string, typeName: string, obj: Record<string, unknown>) =>
  kubeProtobuf.decode(encodeKube(apiVersion, kind, typeName, obj)).object;
const objRef = (f: Record<string, unknown>) => ({
  kind: '', namespace: '', name: '', uid: '', apiVersion: '', resourceVersion: '', fieldPath: '', ...f,
});

describe('ObjectMeta', () => {
  it('decodes every field we model and drops gogo zero values', () => {
    const got = decode('v1', 'ConfigMap', 'core.v1.ConfigMap', {
      metadata: gogoMeta({
        name: 'c', generateName: 'c-', namespace: 'ns', uid: 'u-1', resourceVersion: '42', generation: 3,
        creationTimestamp: { seconds: T1, nanos: 0 },
        deletionTimestamp: { seconds: T1 + 60, nanos: 999 },
        deletionGracePeriodSeconds: 0,
        labels: { b: '2', a: '' },
        annotations: { 'x/y': 'z' },
        ownerReferences: [
          { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u-0', controller: true, blockOwnerDeletion: false },
          { apiVersion: 'v1', kind: 'Pod', name: 'p', uid: 'u-2' },
        ],
        finalizers: ['example.com/f', ''],
      }),
      data: {},
      binaryData: {},
    });
    expect(got).toStrictEqual({
      apiVersion: 'v1', kind: 'ConfigMap',
      metadata: {
        name: 'c', generateName: 'c-', namespace: 'ns', uid: 'u-1', resourceVersion: '42', generation: 3,
        creationTimestamp: '2024-05-06T07:08:09Z',
        deletionTimestamp: '2024-05-06T07:09:09Z',
        deletionGracePeriodSeconds: 0, // *int64: present means set, even to 0
        labels: { a: '', b: '2' },
        annotations: { 'x/y': 'z' },
        ownerReferences: [
          { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u-0', controller: true, blockOwnerDeletion: false },
          { apiVersion: 'v1', kind: 'Pod', name: 'p', uid: 'u-2' },
        ],
        finalizers: ['example.com/f', ''],
      },
    });
  });

  it('tells the Unix epoch apart from a zero Time', () => {
    const got = decode('v1', 'Namespace', 'core.v1.Namespace', { metadata: gogoMeta({ creationTimestamp: { seconds: 0 } }) });
    expect(got.metadata).toStrictEqual({ creationTimestamp: '1970-01-01T00:00:00Z' });
  });

  it('rejects times Go cannot print and int64s JSON cannot carry', () => {
    expect(() => decode('v1', 'Namespace', 'core.v1.Namespace', { metadata: gogoMeta({ creationTimestamp: { seconds: 1e12 } }) }))
      .toThrow(/metadata\.creationTimestamp: timestamp .* out of range/);
    expect(() => decode('v1', 'Namespace', 'core.v1.Namespace', { metadata: gogoMeta({ generation: { low: 0, high: 0x40000000 } }) }))
      .toThrow(/metadata\.generation: int64 value .* cannot be represented/);
  });
});

describe('core/v1', () => {
  it('Namespace spec and status', () => {
    expect(decode('v1', 'Namespace', 'core.v1.Namespace', {
      metadata: gogoMeta({ name: 'n' }),
      spec: { finalizers: ['kubernetes'] },
      status: {
        phase: 'Terminating',
        conditions: [{ type: 'NamespaceDeletionContentFailure', status: 'False', lastTransitionTime: { seconds: T1 }, reason: '', message: '' }],
      },
    })).toStrictEqual({
      apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n' },
      spec: { finalizers: ['kubernetes'] },
      status: { phase: 'Terminating', conditions: [{ type: 'NamespaceDeletionContentFailure', status: 'False', lastTransitionTime: '2024-05-06T07:08:09Z' }] },
    });
  });

  it('ConfigMap and Secret keep immutable (a pointer) and stringData', () => {
    expect(decode('v1', 'ConfigMap', 'core.v1.ConfigMap', { metadata: gogoMeta(), immutable: true, data: { k: 'v' } }))
      .toStrictEqual({ apiVersion: 'v1', kind: 'ConfigMap', metadata: {}, immutable: true, data: { k: 'v' } });
    expect(decode('v1', 'Secret', 'core.v1.Secret', {
      metadata: gogoMeta(), immutable: false, data: { k: Buffer.from([0, 1, 2, 255]) }, stringData: { s: 'plain' }, type: 'Opaque',
    })).toStrictEqual({
      apiVersion: 'v1', kind: 'Secret', metadata: {}, immutable: false, data: { k: 'AAEC/w==' }, stringData: { s: 'plain' }, type: 'Opaque',
    });
  });

  it('ServiceAccount', () => {
    expect(decode('v1', 'ServiceAccount', 'core.v1.ServiceAccount', {
      metadata: gogoMeta({ name: 'sa' }),
      secrets: [objRef({ name: 's1' })],
      imagePullSecrets: [{ name: 'reg' }],
      automountServiceAccountToken: false,
    })).toStrictEqual({
      apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa' },
      secrets: [{ name: 's1' }], imagePullSecrets: [{ name: 'reg' }], automountServiceAccountToken: false,
    });
  });

  it('ResourceQuota with Quantity maps and a scope selector', () => {
    expect(decode('v1', 'ResourceQuota', 'core.v1.ResourceQuota', {
      metadata: gogoMeta({ name: 'q' }),
      spec: {
        hard: { pods: { string: '10' }, 'requests.memory': { string: '1Gi' } },
        scopes: [],
        scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }] },
      },
      status: { hard: { pods: { string: '10' } }, used: { pods: { string: '0' } } },
    })).toStrictEqual({
      apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q' },
      spec: {
        hard: { pods: '10', 'requests.memory': '1Gi' },
        scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }] },
      },
      status: { hard: { pods: '10' }, used: { pods: '0' } },
    });
  });

  it('LimitRange', () => {
    const q = (s: string) => ({ string: s });
    expect(decode('v1', 'LimitRange', 'core.v1.LimitRange', {
      metadata: gogoMeta({ name: 'lr' }),
      spec: { limits: [{ type: 'Container', max: { cpu: q('2') }, min: {}, default: { memory: q('512Mi') }, defaultRequest: { cpu: q('100m') }, maxLimitRequestRatio: {} }] },
    })).toStrictEqual({
      apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'lr' },
      spec: { limits: [{ type: 'Container', max: { cpu: '2' }, default: { memory: '512Mi' }, defaultRequest: { cpu: '100m' } }] },
    });
  });

  it('Event with Time, MicroTime, series and related', () => {
    expect(decode('v1', 'Event', 'core.v1.Event', {
      metadata: gogoMeta({ name: 'p.1', namespace: 'default' }),
      involvedObject: objRef({ kind: 'Pod', namespace: 'default', name: 'p', uid: 'u', apiVersion: 'v1', fieldPath: 'spec.containers{c}' }),
      reason: 'Started', message: 'Started container c',
      source: { component: 'kubelet', host: 'node-1' },
      firstTimestamp: { seconds: T1, nanos: 500000000 }, // metav1.Time drops nanos
      lastTimestamp: {},
      count: 2, type: 'Normal',
      eventTime: { seconds: T1, nanos: 123456789 },
      series: { count: 2, lastObservedTime: { seconds: T1 + 1, nanos: 1000 } },
      action: 'Start',
      related: objRef({ kind: 'Node', name: 'node-1' }),
      reportingComponent: 'kubelet', reportingInstance: 'node-1',
    })).toStrictEqual({
      apiVersion: 'v1', kind: 'Event', metadata: { name: 'p.1', namespace: 'default' },
      involvedObject: { kind: 'Pod', namespace: 'default', name: 'p', uid: 'u', apiVersion: 'v1', fieldPath: 'spec.containers{c}' },
      reason: 'Started', message: 'Started container c',
      source: { component: 'kubelet', host: 'node-1' },
      firstTimestamp: '2024-05-06T07:08:09Z',
      count: 2, type: 'Normal',
      eventTime: '2024-05-06T07:08:09.123456Z',
      series: { count: 2, lastObservedTime: '2024-05-06T07:08:10.000001Z' },
      action: 'Start',
      related: { kind: 'Node', name: 'node-1' },
      reportingComponent: 'kubelet', reportingInstance: 'node-1',
    });
  });

  it('Service with every spec field and a load-balancer status', () => {
    const got = decode('v1', 'Service', 'core.v1.Service', {
      metadata: gogoMeta({ name: 's' }),
      spec: {
        ports: [
          { name: 'http', protocol: 'TCP', appProtocol: 'http', port: 80, targetPort: { type: 1, intVal: 0, strVal: 'web' }, nodePort: 0 },
          { name: '', protocol: 'UDP', port: 53, targetPort: { type: 0, intVal: 0, strVal: '' }, nodePort: 30053 },
        ],
        selector: { app: 's' }, clusterIP: '10.0.0.1', clusterIPs: ['10.0.0.1'], type: 'LoadBalancer', externalIPs: [],
        sessionAffinity: 'ClientIP', loadBalancerIP: '', loadBalancerSourceRanges: ['10.0.0.0/8'], externalName: '',
        externalTrafficPolicy: 'Local', healthCheckNodePort: 31000, publishNotReadyAddresses: true,
        sessionAffinityConfig: { clientIP: { timeoutSeconds: 600 } },
        ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack', allocateLoadBalancerNodePorts: false,
        loadBalancerClass: 'x/lb', internalTrafficPolicy: 'Cluster', trafficDistribution: 'PreferClose',
      },
      status: {
        loadBalancer: { ingress: [{ ip: '1.2.3.4', hostname: '', ipMode: 'VIP', ports: [{ port: 80, protocol: 'TCP', error: 'x' }] }] },
        conditions: [{ type: 'Ready', status: 'True', observedGeneration: 1, lastTransitionTime: { seconds: T1 }, reason: 'Ok', message: '' }],
      },
    });
    expect(got).toStrictEqual({
      apiVersion: 'v1', kind: 'Service', metadata: { name: 's' },
      spec: {
        ports: [
          { name: 'http', protocol: 'TCP', appProtocol: 'http', port: 80, targetPort: 'web' },
          { protocol: 'UDP', port: 53, nodePort: 30053 }, // targetPort 0: unset, as kube's defaulting sees it
        ],
        selector: { app: 's' }, clusterIP: '10.0.0.1', clusterIPs: ['10.0.0.1'], type: 'LoadBalancer',
        sessionAffinity: 'ClientIP', loadBalancerSourceRanges: ['10.0.0.0/8'],
        externalTrafficPolicy: 'Local', healthCheckNodePort: 31000, publishNotReadyAddresses: true,
        sessionAffinityConfig: { clientIP: { timeoutSeconds: 600 } },
        ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack', allocateLoadBalancerNodePorts: false,
        loadBalancerClass: 'x/lb', internalTrafficPolicy: 'Cluster', trafficDistribution: 'PreferClose',
      },
      status: {
        loadBalancer: { ingress: [{ ip: '1.2.3.4', ipMode: 'VIP', ports: [{ port: 80, protocol: 'TCP', error: 'x' }] }] },
        conditions: [{ type: 'Ready', status: 'True', observedGeneration: 1, lastTransitionTime: '2024-05-06T07:08:09Z', reason: 'Ok' }],
      },
    });
  });
});
