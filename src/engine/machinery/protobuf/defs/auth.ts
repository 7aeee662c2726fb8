/**
 * authorization.k8s.io/v1 (access reviews) and authentication.k8s.io/v1 (whoami, token review and request), served
 * outside builtin/. Field numbers: k8s.io/api v0.32 generated.proto of each group.
 */
import type { PackageDefs } from '../schema.js';

const objectMeta = '1 meta.v1.ObjectMeta';

export const authorizationV1: PackageDefs = {
  pkg: 'authorization.v1',
  apiVersion: 'authorization.k8s.io/v1',
  kinds: ['SelfSubjectAccessReview', 'SelfSubjectRulesReview', 'SubjectAccessReview', 'LocalSubjectAccessReview'],
  messages: {
    SelfSubjectAccessReview: {
      metadata: objectMeta,
      spec: '2 SelfSubjectAccessReviewSpec',
      status: '3 SubjectAccessReviewStatus',
    },
    SelfSubjectAccessReviewSpec: {
      resourceAttributes: '1 ?ResourceAttributes',
      nonResourceAttributes: '2 ?NonResourceAttributes',
    },
    SubjectAccessReview: { metadata: objectMeta, spec: '2 SubjectAccessReviewSpec', status: '3 SubjectAccessReviewStatus' },
    LocalSubjectAccessReview: {
      metadata: objectMeta,
      spec: '2 SubjectAccessReviewSpec',
      status: '3 SubjectAccessReviewStatus',
    },
    SubjectAccessReviewSpec: {
      resourceAttributes: '1 ?ResourceAttributes',
      nonResourceAttributes: '2 ?NonResourceAttributes',
      user: '3 string',
      groups: '4 []string',
      extra: '5 {}ExtraValue',
      uid: '6 string',
    },
    // Go's ExtraValue is a []string; the converter unwraps the message to a plain JSON array.
    ExtraValue: { items: '1 []string' },
    ResourceAttributes: {
      namespace: '1 string',
      verb: '2 string',
      group: '3 string',
      version: '4 string',
      resource: '5 string',
      subresource: '6 string',
      name: '7 string',
      fieldSelector: '8 ?FieldSelectorAttributes',
      labelSelector: '9 ?LabelSelectorAttributes',
    },
    FieldSelectorAttributes: { rawSelector: '1 string', requirements: '2 []meta.v1.FieldSelectorRequirement' },
    LabelSelectorAttributes: { rawSelector: '1 string', requirements: '2 []meta.v1.LabelSelectorRequirement' },
    NonResourceAttributes: { path: '1 string', verb: '2 string' },
    SubjectAccessReviewStatus: { allowed: '1 bool', denied: '4 bool', reason: '2 string', evaluationError: '3 string' },

    SelfSubjectRulesReview: {
      metadata: objectMeta,
      spec: '2 SelfSubjectRulesReviewSpec',
      status: '3 SubjectRulesReviewStatus',
    },
    SelfSubjectRulesReviewSpec: { namespace: '1 string' },
    SubjectRulesReviewStatus: {
      resourceRules: '1 []ResourceRule',
      nonResourceRules: '2 []NonResourceRule',
      incomplete: '3 bool',
      evaluationError: '4 string',
    },
    ResourceRule: { verbs: '1 []string', apiGroups: '2 []string', resources: '3 []string', resourceNames: '4 []string' },
    NonResourceRule: { verbs: '1 []string', nonResourceURLs: '2 []string' },
  },
};

export const authenticationV1: PackageDefs = {
  pkg: 'authentication.v1',
  apiVersion: 'authentication.k8s.io/v1',
  kinds: ['SelfSubjectReview', 'TokenReview', 'TokenRequest'],
  messages: {
    SelfSubjectReview: { metadata: objectMeta, status: '2 SelfSubjectReviewStatus' },
    SelfSubjectReviewStatus: { userInfo: '1 UserInfo' },
    UserInfo: { username: '1 string', uid: '2 string', groups: '3 []string', extra: '4 {}ExtraValue' },
    ExtraValue: { items: '1 []string' },

    TokenReview: { metadata: objectMeta, spec: '2 TokenReviewSpec', status: '3 TokenReviewStatus' },
    TokenReviewSpec: { token: '1 string', audiences: '2 []string' },
    TokenReviewStatus: { authenticated: '1 bool', user: '2 UserInfo', audiences: '4 []string', error: '3 string' },

    TokenRequest: { metadata: objectMeta, spec: '2 TokenRequestSpec', status: '3 TokenRequestStatus' },
    TokenRequestSpec: {
      audiences: '1 []string',
      expirationSeconds: '4 ?int64',
      boundObjectRef: '3 ?BoundObjectReference',
      attestations: '5 {}AttestationValue',
    },
    // `type AttestationValue []string` in Go, like ExtraValue.
    AttestationValue: { items: '1 []string' },
    // The proto field is named `uID`; the JSON name is `uid`. Only the number matters on the wire.
    BoundObjectReference: { kind: '1 string', apiVersion: '2 string', name: '3 string', uid: '4 string' },
    TokenRequestStatus: { token: '1 string', expirationTimestamp: '2 meta.v1.Time' },
  },
};
