/**
 * Synthetic, gogo-style bodies for the rbac, authorization, authentication and coordination kinds, DeleteOptions,
 * and RawExtension (see kinds.test.ts for why synthetic).
 */
import { describe, expect, it } from 'vitest';
import { ConversionError, messageToJson } from './convert.js';
import { metaV1, runtimePkg } from './defs/meta.js';
import { kubeProtobuf } from '../../builtin/protobuf.js';
import { ProtobufDecodeError } from './index.js';
import { buildSchema } from './schema.js';
import { encodeKube, gogoMeta, secs } from '../../builtin/protobuf-test-support.js';

const T1 = secs('2024-05-06T07:08:09Z');
const decode = (apiVersion: string, kind: string, typeName: string, obj: Record<string, unknown>) =>
  kubeProtobuf.decode(encodeKube(apiVersion, kind, typeName, obj)).object;

describe('rbac.authorization.k8s.io/v1', () => {
  it('ClusterRole with rules and an aggregation rule with match expressions', () => {
    expect(decode('rbac.authorization.k8s.io/v1', 'ClusterRole', 'rbac.v1.ClusterRole', {
      metadata: gogoMeta({ name: 'cr' }),
      rules: [{ verbs: ['get'], apiGroups: [], resources: [], resourceNames: [], nonResourceURLs: ['/healthz'] }],
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: {}, matchExpressions: [{ key: 'k', operator: 'Exists', values: [] }] }] },
    })).toStrictEqual({
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'cr' },
      rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }],
      aggregationRule: { clusterRoleSelectors: [{ matchExpressions: [{ key: 'k', operator: 'Exists' }] }] },
    });
  });
});

const sarSpec = {
  resourceAttributes: {
    namespace: 'ns', verb: 'list', group: '', version: '', resource: 'pods', subresource: '', name: '',
    fieldSelector: { rawSelector: '', requirements: [{ key: 'spec.nodeName', operator: 'In', values: ['n1'] }] },
    labelSelector: { rawSelector: 'app=x', requirements: [] },
  },
  user: 'alice', groups: ['dev', 'system:authenticated'],
  extra: { scopes: { items: ['a', 'b'] }, none: { items: [] } },
  uid: 'u-1',
};
const sarSpecJson = {
  resourceAttributes: {
    namespace: 'ns', verb: 'list', resource: 'pods',
    fieldSelector: { requirements: [{ key: 'spec.nodeName', operator: 'In', values: ['n1'] }] },
    labelSelector: { rawSelector: 'app=x' },
  },
  user: 'alice', groups: ['dev', 'system:authenticated'],
  extra: { none: [], scopes: ['a', 'b'] }, // ExtraValue is a plain []string in JSON
  uid: 'u-1',
};
const sarStatus = { allowed: false, denied: false, reason: '', evaluationError: '' };

describe('authorization.k8s.io/v1', () => {
  it('SubjectAccessReview and LocalSubjectAccessReview', () => {
    for (const kind of ['SubjectAccessReview', 'LocalSubjectAccessReview']) {
      expect(decode('authorization.k8s.io/v1', kind, `authorization.v1.${kind}`, {
        metadata: gogoMeta({ namespace: kind.startsWith('Local') ? 'ns' : '' }), spec: sarSpec, status: sarStatus,
      })).toStrictEqual({
        apiVersion: 'authorization.k8s.io/v1', kind,
        metadata: kind.startsWith('Local') ? { namespace: 'ns' } : {},
        spec: sarSpecJson,
      });
    }
  });

  it('keeps an empty but present nonResourceAttributes (a pointer)', () => {
    expect(decode('authorization.k8s.io/v1', 'SelfSubjectAccessReview', 'authorization.v1.SelfSubjectAccessReview', {
      metadata: gogoMeta(), spec: { nonResourceAttributes: { path: '', verb: '' } }, status: sarStatus,
    }).spec).toStrictEqual({ nonResourceAttributes: {} });
  });

  it('SelfSubjectRulesReview status', () => {
    expect(decode('authorization.k8s.io/v1', 'SelfSubjectRulesReview', 'authorization.v1.SelfSubjectRulesReview', {
      metadata: gogoMeta(), spec: { namespace: 'ns' },
      status: {
        resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], resourceNames: [] }],
        nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }], incomplete: true, evaluationError: '',
      },
    })).toStrictEqual({
      apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', metadata: {}, spec: { namespace: 'ns' },
      status: {
        resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
        nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }], incomplete: true,
      },
    });
  });
});

describe('authentication.k8s.io/v1', () => {
  const userInfo = { username: 'admin', uid: '', groups: ['system:masters'], extra: { k: { items: ['v'] } } };
  it('SelfSubjectReview status', () => {
    expect(decode('authentication.k8s.io/v1', 'SelfSubjectReview', 'authentication.v1.SelfSubjectReview', {
      metadata: gogoMeta(), status: { userInfo },
    }).status).toStrictEqual({ userInfo: { username: 'admin', groups: ['system:masters'], extra: { k: ['v'] } } });
  });

  it('TokenReview', () => {
    expect(decode('authentication.k8s.io/v1', 'TokenReview', 'authentication.v1.TokenReview', {
      metadata: gogoMeta(), spec: { token: 'tok', audiences: ['api'] },
      status: { authenticated: false, user: { username: '', uid: '', groups: [], extra: {} }, audiences: [], error: '' },
    })).toStrictEqual({
      apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', metadata: {}, spec: { token: 'tok', audiences: ['api'] },
    });
  });

  it('TokenRequest keeps expirationSeconds 0 (a pointer) and formats the status time', () => {
    expect(decode('authentication.k8s.io/v1', 'TokenRequest', 'authentication.v1.TokenRequest', {
      metadata: gogoMeta({ name: 'sa' }), spec: { audiences: [], expirationSeconds: 0 },
      status: { token: 't', expirationTimestamp: { seconds: T1 } },
    })).toStrictEqual({
      apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', metadata: { name: 'sa' },
      spec: { expirationSeconds: 0 }, status: { token: 't', expirationTimestamp: '2024-05-06T07:08:09Z' },
    });
  });
});

describe('coordination.k8s.io/v1 Lease', () => {
  it('keeps pointer fields set to zero values and prints MicroTime with microseconds', () => {
    expect(decode('coordination.k8s.io/v1', 'Lease', 'coordination.v1.Lease', {
      metadata: gogoMeta({ name: 'l', namespace: 'kube-node-lease' }),
      spec: {
        holderIdentity: '', leaseDurationSeconds: 40, acquireTime: { seconds: T1, nanos: 0 },
        renewTime: { seconds: T1, nanos: 7_000 }, leaseTransitions: 0,
      },
    })).toStrictEqual({
      apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'l', namespace: 'kube-node-lease' },
      spec: {
        holderIdentity: '', leaseDurationSeconds: 40, acquireTime: '2024-05-06T07:08:09.000000Z',
        renewTime: '2024-05-06T07:08:09.000007Z', leaseTransitions: 0,
      },
    });
  });
});

describe('DeleteOptions', () => {
  const opts = { gracePeriodSeconds: 0, preconditions: { uid: 'u-1' }, propagationPolicy: 'Foreground', dryRun: ['All'] };
  const json = { gracePeriodSeconds: 0, preconditions: { uid: 'u-1' }, propagationPolicy: 'Foreground', dryRun: ['All'] };
  it.each(['meta.k8s.io/v1', 'v1', 'apps/v1', 'rbac.authorization.k8s.io/v1', 'example.com/v1beta2'])('under %s', (gv) => {
    expect(decode(gv, 'DeleteOptions', 'meta.v1.DeleteOptions', opts)).toStrictEqual({ apiVersion: gv, kind: 'DeleteOptions', ...json });
  });
  it('orphanDependents false is kept; a negative grace period decodes (validation rejects it later)', () => {
    expect(decode('v1', 'DeleteOptions', 'meta.v1.DeleteOptions', { orphanDependents: false, gracePeriodSeconds: -1, dryRun: [] }))
      .toStrictEqual({ apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: -1, orphanDependents: false });
  });
  it('is not accepted under something that is not a group-version', () => {
    expect(() => decode('not a gv', 'DeleteOptions', 'meta.v1.DeleteOptions', {})).toThrow(ProtobufDecodeError);
  });
});

describe('RawExtension', () => {
  // No supported kind embeds one today; a test-only package checks the converter for the kinds that will.
  const schema = buildSchema([
    metaV1,
    runtimePkg,
    { pkg: 'test.v1', messages: { Wrapper: { object: '1 runtime.RawExtension', objects: '2 []runtime.RawExtension' } } },
  ]);
  const wrapper = schema.root.lookupType('.test.v1.Wrapper');
  const toJson = (obj: Record<string, unknown>) =>
    messageToJson(wrapper, wrapper.decode(wrapper.encode(obj).finish()) as unknown as Record<string, unknown>, schema.fieldMeta, '');

  it('embeds the JSON and omits an empty one', () => {
    const raw = Buffer.from('{"kind":"Pod","spec":{"x":[1,2]}}');
    expect(toJson({ object: { raw }, objects: [{ raw: Buffer.from('"s"') }] })).toStrictEqual({
      object: { kind: 'Pod', spec: { x: [1, 2] } },
      objects: ['s'],
    });
    expect(toJson({ object: { raw: Buffer.alloc(0) } })).toStrictEqual({});
  });

  it('rejects bytes that are not JSON', () => {
    expect(() => toJson({ object: { raw: Buffer.from([0x0a, 0x01]) } })).toThrow(ConversionError);
  });
});
