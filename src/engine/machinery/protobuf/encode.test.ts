/**
 * encode → decode gives back the object, for one object of every kind kcpt answers in protobuf, shaped as kcpt stores
 * and serves them (server-set metadata, managedFields, status); plus the envelope, lists, Status and watch framing.
 * Byte-for-byte agreement with Go is encode-golden.test.ts's job.
 */
import protobufjs from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { messageToJson } from './convert.js';
import { kubeProtobuf } from '../../builtin/protobuf.js';
import { protobufWatchFrame } from './encode.js';

const meta = (name: string, namespace?: string) => ({
  name,
  ...(namespace ? { namespace } : {}),
  uid: '6a1f3c2e-0b7d-4c1e-9f00-3d2b1a0c9e8f',
  resourceVersion: '1234',
  generation: 2,
  creationTimestamp: '2025-03-04T05:06:07Z',
  labels: { app: 'demo', 'example.com/tier': 'back' },
  annotations: { 'kcp.io/cluster': '2x8hf0nq1k', note: '' },
  ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: 'u-1', controller: true, blockOwnerDeletion: false }],
  finalizers: ['example.com/keep'],
  managedFields: [
    {
      manager: 'kubectl-client-side-apply',
      operation: 'Update',
      apiVersion: 'v1',
      time: '2025-03-04T05:06:07Z',
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } } },
    },
  ],
});

const objects: Record<string, unknown>[] = [
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta('cm', 'default'), data: { a: 'b', empty: '' }, binaryData: { bin: 'AP/+' }, immutable: false },
  { apiVersion: 'v1', kind: 'Secret', metadata: meta('s', 'default'), type: 'Opaque', data: { pw: 'aHVudGVyMg==', none: '' } },
  { apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta('sa', 'default'), secrets: [{ name: 'sa-token' }], imagePullSecrets: [{ name: 'reg' }], automountServiceAccountToken: false },
  {
    apiVersion: 'v1', kind: 'Namespace', metadata: meta('ns'),
    spec: { finalizers: ['kubernetes'] },
    status: { phase: 'Terminating', conditions: [{ type: 'NamespaceDeletionContentFailure', status: 'False', lastTransitionTime: '2025-03-04T05:06:08Z', reason: 'ContentDeleted', message: 'done' }] },
  },
  {
    apiVersion: 'v1', kind: 'ResourceQuota', metadata: meta('q', 'default'),
    spec: { hard: { pods: '10', 'requests.cpu': '500m' }, scopes: ['NotTerminating'], scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }] } },
    status: { hard: { pods: '10' }, used: { pods: '0' } },
  },
  {
    apiVersion: 'v1', kind: 'LimitRange', metadata: meta('lr', 'default'),
    spec: { limits: [{ type: 'Container', max: { cpu: '2' }, min: { cpu: '100m' }, default: { memory: '1Gi' }, defaultRequest: { memory: '512Mi' }, maxLimitRequestRatio: { cpu: '4' } }] },
  },
  {
    apiVersion: 'v1', kind: 'Event', metadata: meta('ev.1', 'default'),
    involvedObject: { kind: 'ConfigMap', namespace: 'default', name: 'cm', uid: 'u-1', apiVersion: 'v1', resourceVersion: '12', fieldPath: 'data' },
    reason: 'Synced', message: 'all good', source: { component: 'ctrl', host: 'h' },
    firstTimestamp: '2025-03-04T05:06:07Z', lastTimestamp: '2025-03-04T05:07:07Z', count: 3, type: 'Normal',
    eventTime: '2025-03-04T05:06:07.123456Z', series: { count: 2, lastObservedTime: '2025-03-04T05:07:07.654321Z' },
    action: 'Sync', related: { kind: 'Secret', name: 's' }, reportingComponent: 'ctrl', reportingInstance: 'ctrl-1',
  },
  {
    apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: meta('ev.2', 'default'),
    eventTime: '2025-03-04T05:06:07.000001Z', series: { count: 5, lastObservedTime: '2025-03-04T05:06:09.000000Z' },
    reportingController: 'example.com/ctrl', reportingInstance: 'ctrl-1', action: 'Reconcile', reason: 'Done',
    regarding: { kind: 'ConfigMap', name: 'cm', namespace: 'default' }, note: 'reconciled', type: 'Normal',
    deprecatedSource: { component: 'ctrl' }, deprecatedFirstTimestamp: '2025-03-04T05:06:07Z', deprecatedCount: 1,
  },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: meta('r', 'default'), rules: [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['cm'] }] },
  {
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: meta('cr'),
    rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }],
    aggregationRule: { clusterRoleSelectors: [{ matchLabels: { agg: 'true' }, matchExpressions: [{ key: 'tier', operator: 'Exists' }] }] },
  },
  {
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: meta('rb', 'default'),
    subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' }, { kind: 'ServiceAccount', name: 'sa', namespace: 'default' }],
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' },
  },
  {
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: meta('crb'),
    subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'devs' }],
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cr' },
  },
  {
    apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: meta('lock', 'default'),
    spec: { holderIdentity: 'me', leaseDurationSeconds: 15, acquireTime: '2025-03-04T05:06:07.100000Z', renewTime: '2025-03-04T05:06:17.200000Z', leaseTransitions: 0 },
  },
  {
    apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', metadata: { creationTimestamp: null },
    spec: { resourceAttributes: { namespace: 'default', verb: 'get', resource: 'configmaps' } },
    status: { allowed: true, reason: 'RBAC: allowed by RoleBinding' },
  },
  {
    apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', metadata: {},
    spec: { namespace: 'default' },
    status: { resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/api'] }], incomplete: true },
  },
  {
    apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', metadata: {},
    spec: { nonResourceAttributes: { path: '/logs', verb: 'get' }, user: 'bob', groups: ['g'], extra: { scopes: ['a', 'b'] }, uid: '7' },
    status: { denied: true, reason: 'no', evaluationError: 'x' },
  },
  {
    apiVersion: 'authorization.k8s.io/v1', kind: 'LocalSubjectAccessReview', metadata: { namespace: 'default' },
    spec: { resourceAttributes: { namespace: 'default', verb: 'list', group: 'apps', resource: 'deployments', fieldSelector: { rawSelector: 'a=b' } }, user: 'bob' },
    status: { allowed: true },
  },
  { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview', metadata: {}, status: { userInfo: { username: 'kcp-admin', groups: ['system:masters'], extra: { x: ['y'] } } } },
  {
    apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', metadata: {},
    spec: { token: 'abc', audiences: ['kcp'] },
    status: { authenticated: true, user: { username: 'system:serviceaccount:default:sa', uid: 'u' }, audiences: ['kcp'] },
  },
  {
    apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', metadata: meta('sa', 'default'),
    spec: { audiences: ['https://kcp'], expirationSeconds: 3600, boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 's', uid: 'u' } },
    status: { token: 'eyJ…', expirationTimestamp: '2025-03-04T06:06:07Z' },
  },
  {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: meta('widgets.example.com'),
    spec: {
      group: 'example.com',
      names: { plural: 'widgets', singular: 'widget', shortNames: ['wd'], kind: 'Widget', listKind: 'WidgetList', categories: ['all'] },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1', served: true, storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  required: ['size'],
                  properties: {
                    size: { type: 'integer', minimum: 1, maximum: 10, default: 3 },
                    mode: { type: 'string', enum: ['a', 'b'], pattern: '^[ab]$' },
                    tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
                    extra: { type: 'object', additionalProperties: { type: 'string' } },
                    open: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                    port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
                  },
                  'x-kubernetes-validations': [{ rule: 'self.size > 0', message: 'positive' }],
                },
              },
            },
          },
          subresources: { status: {}, scale: { specReplicasPath: '.spec.size', statusReplicasPath: '.status.size' } },
          additionalPrinterColumns: [{ name: 'Size', type: 'integer', jsonPath: '.spec.size', priority: 1 }],
          selectableFields: [{ jsonPath: '.spec.mode' }],
        },
      ],
      conversion: { strategy: 'None' },
    },
    status: {
      conditions: [{ type: 'Established', status: 'True', lastTransitionTime: '2025-03-04T05:06:07Z', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' }],
      acceptedNames: { plural: 'widgets', singular: 'widget', shortNames: ['wd'], kind: 'Widget', listKind: 'WidgetList', categories: ['all'] },
      storedVersions: ['v1'],
    },
  },
  { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: meta('w', 'default'), spec: { replicas: 3 }, status: { replicas: 2, selector: 'app=demo' } },
  { apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadata', metadata: meta('cm', 'default') },
  {
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'configmaps "x" not found', reason: 'NotFound',
    details: { name: 'x', kind: 'configmaps', causes: [{ reason: 'FieldValueInvalid', message: 'bad', field: 'data' }], retryAfterSeconds: 1 }, code: 404,
  },
];

/** What the decoder gives back: the JSON form without Go's zero values (a `creationTimestamp: null` is absent). */
function expected(obj: Record<string, unknown>): Record<string, unknown> {
  const copy = structuredClone(obj);
  const m = copy.metadata as Record<string, unknown>;
  if (m.creationTimestamp === null) delete m.creationTimestamp;
  return copy;
}

describe('encode → decode', () => {
  it.each(objects.map((o) => [`${String(o.apiVersion)} ${String(o.kind)}`, o] as const))('%s', (_name, obj) => {
    expect(kubeProtobuf.hasForm(String(obj.apiVersion), String(obj.kind))).toBe(true);
    expect(decodeAnswer(kubeProtobuf.encode(obj))).toStrictEqual(expected(obj));
  });

  it('covers every kind kcpt answers in protobuf', () => {
    const kinds = new Set(objects.map((o) => `${String(o.apiVersion)}|${String(o.kind)}`));
    for (const k of ['v1|ConfigMap', 'v1|Secret', 'v1|ServiceAccount', 'v1|Namespace', 'v1|ResourceQuota', 'v1|LimitRange', 'v1|Event',
      'events.k8s.io/v1|Event', 'rbac.authorization.k8s.io/v1|Role', 'rbac.authorization.k8s.io/v1|ClusterRole',
      'rbac.authorization.k8s.io/v1|RoleBinding', 'rbac.authorization.k8s.io/v1|ClusterRoleBinding', 'coordination.k8s.io/v1|Lease',
      'apiextensions.k8s.io/v1|CustomResourceDefinition', 'autoscaling/v1|Scale', 'v1|Status']) {
      expect(kinds).toContain(k);
    }
  });
});

describe('the wire', () => {
  const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', resourceVersion: '3' }, data: { k: 'v' } };

  it('wraps an object in the magic and a runtime.Unknown naming its kind', () => {
    const bytes = kubeProtobuf.encode(cm);
    expect(bytes.subarray(0, 4).toString('latin1')).toBe('k8s\0');
    const unknown = decodeUnknown(bytes);
    expect(unknown.typeMeta).toEqual({ apiVersion: 'v1', kind: 'ConfigMap' });
    expect(unknown.contentEncoding).toBe('');
    expect(unknown.contentType).toBe('');
  });

  it('writes lists with their ListMeta and items without TypeMeta', () => {
    const list = kubeProtobuf.encodeList('v1', 'ConfigMapList', 'ConfigMap', { resourceVersion: '9', continue: 'tok', remainingItemCount: 0 }, [cm, cm]);
    const unknown = decodeUnknown(list);
    expect(unknown.typeMeta).toEqual({ apiVersion: 'v1', kind: 'ConfigMapList' });
    const reader = protobufjs.Reader.create(unknown.raw as Uint8Array);
    const fields: number[] = [];
    while (reader.pos < reader.len) {
      const t = reader.uint32();
      fields.push(t >>> 3);
      reader.skipType(t & 7);
    }
    expect(fields).toEqual([1, 2, 2]);
  });

  it('refuses kinds without a protobuf form (custom resources)', () => {
    expect(kubeProtobuf.hasForm('example.com/v1', 'Widget')).toBe(false);
    expect(kubeProtobuf.hasForm('tenancy.kcp.io/v1alpha1', 'Workspace')).toBe(false);
    expect(() => kubeProtobuf.encode({ apiVersion: 'example.com/v1', kind: 'Widget' })).toThrow(/has no protobuf form/);
  });

  it('frames a watch event: length, then WatchEvent{type, object.raw}', () => {
    const object = kubeProtobuf.encode(cm);
    const frame = protobufWatchFrame('ADDED', object);
    expect(frame.readUInt32BE(0)).toBe(frame.length - 4);
    const reader = protobufjs.Reader.create(frame.subarray(4));
    expect(reader.uint32()).toBe((1 << 3) | 2);
    expect(reader.string()).toBe('ADDED');
    expect(reader.uint32()).toBe((2 << 3) | 2);
    const raw = protobufjs.Reader.create(reader.bytes());
    expect(raw.uint32()).toBe((1 << 3) | 2);
    expect(Buffer.from(raw.bytes()).equals(object)).toBe(true);
  });
});

/** The decoder's conversion, for answers as well as request kinds (Status, PartialObjectMetadata). */
function decodeAnswer(bytes: Buffer): Record<string, unknown> {
  const unknown = decodeUnknown(bytes);
  const { apiVersion, kind } = unknown.typeMeta as { apiVersion: string; kind: string };
  const schema = kubeProtobuf.schema();
  const type = schema.root.lookupType(`.${kubeProtobuf.messageOf(apiVersion, kind)!}`);
  const object = messageToJson(type, type.decode(unknown.raw as Uint8Array) as unknown as Record<string, unknown>, schema.fieldMeta, '');
  return { apiVersion, kind, metadata: object.metadata ?? {}, ...object };
}

function decodeUnknown(bytes: Buffer): Record<string, unknown> {
  const reader = protobufjs.Reader.create(bytes.subarray(4));
  const out: Record<string, unknown> = {};
  while (reader.pos < reader.len) {
    const t = reader.uint32();
    const field = t >>> 3;
    if (field === 1) {
      const tm = protobufjs.Reader.create(reader.bytes());
      const typeMeta: Record<string, string> = {};
      while (tm.pos < tm.len) {
        const tt = tm.uint32();
        typeMeta[tt >>> 3 === 1 ? 'apiVersion' : 'kind'] = tm.string();
      }
      out.typeMeta = typeMeta;
    } else if (field === 2) out.raw = reader.bytes();
    else if (field === 3) out.contentEncoding = reader.string();
    else out.contentType = reader.string();
  }
  return out;
}
