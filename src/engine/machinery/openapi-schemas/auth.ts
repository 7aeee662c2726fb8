/**
 * authorization.k8s.io/v1 and authentication.k8s.io/v1: the create-only review kinds (`auth can-i`,
 * `auth whoami`), token reviews and token requests. They are never stored, so they have no list kinds.
 */
import {
  ATOMIC_LIST,
  META,
  TIME,
  bool,
  field,
  int64,
  kindSchema,
  listOf,
  str,
  stringList,
  struct,
  withRequired,
  type Schema,
} from './helpers.js';

const AZ = 'io.k8s.api.authorization.v1';
const AN = 'io.k8s.api.authentication.v1';
const azGVK = (kind: string) => ({ group: 'authorization.k8s.io', version: 'v1', kind });
const anGVK = (kind: string) => ({ group: 'authentication.k8s.io', version: 'v1', kind });

/** map[string][]string, as used for a user's extra attributes. */
const extraMap = (description: string): Schema => ({
  description,
  type: 'object',
  additionalProperties: { type: 'array', items: { type: 'string', default: '' } },
});

const reviewStatus = field(`${AZ}.SubjectAccessReviewStatus`, 'The decision, filled in by the server.', {
  withDefault: true,
});

export const authSchemas: Record<string, Schema> = {
  [`${AZ}.SelfSubjectAccessReview`]: kindSchema({
    description: 'Asks whether the requesting user may perform an action. This is what `kubectl auth can-i` sends.',
    gvk: azGVK('SelfSubjectAccessReview'),
    properties: {
      spec: field(`${AZ}.SelfSubjectAccessReviewSpec`, 'The action to check.', { withDefault: true }),
      status: reviewStatus,
    },
    required: ['spec'],
  }),
  [`${AZ}.SelfSubjectAccessReviewSpec`]: struct(
    'The action to check; exactly one of resourceAttributes and nonResourceAttributes is set.',
    {
      nonResourceAttributes: field(`${AZ}.NonResourceAttributes`, 'A request to a non-resource path.'),
      resourceAttributes: field(`${AZ}.ResourceAttributes`, 'A request on a resource.'),
    },
  ),
  [`${AZ}.SubjectAccessReview`]: kindSchema({
    description: 'Asks whether a given user or group may perform an action.',
    gvk: azGVK('SubjectAccessReview'),
    properties: {
      spec: field(`${AZ}.SubjectAccessReviewSpec`, 'The subject and action to check.', { withDefault: true }),
      status: reviewStatus,
    },
    required: ['spec'],
  }),
  [`${AZ}.LocalSubjectAccessReview`]: kindSchema({
    description:
      'A SubjectAccessReview limited to one namespace, so namespace admins may be allowed to create it.',
    gvk: azGVK('LocalSubjectAccessReview'),
    properties: {
      spec: field(
        `${AZ}.SubjectAccessReviewSpec`,
        'The subject and action to check; the namespace must match the request path.',
        { withDefault: true },
      ),
      status: reviewStatus,
    },
    required: ['spec'],
  }),
  [`${AZ}.SubjectAccessReviewSpec`]: struct(
    'A subject and an action; exactly one of resourceAttributes and nonResourceAttributes is set.',
    {
      extra: extraMap("The user's extra attributes, as the authenticator reported them."),
      groups: stringList('Groups of the user.'),
      nonResourceAttributes: field(`${AZ}.NonResourceAttributes`, 'A request to a non-resource path.'),
      resourceAttributes: field(`${AZ}.ResourceAttributes`, 'A request on a resource.'),
      uid: str('UID of the user.'),
      user: str('Name of the user. Either user or groups must be set.'),
    },
  ),
  [`${AZ}.ResourceAttributes`]: struct('The attributes of a resource request, as the authorizer sees them.', {
    fieldSelector: field(`${AZ}.FieldSelectorAttributes`, 'Field selector of a list or watch, if any.'),
    group: str('API group; "*" means all.'),
    labelSelector: field(`${AZ}.LabelSelectorAttributes`, 'Label selector of a list or watch, if any.'),
    name: str('Object name; empty means all names.'),
    namespace: str('Namespace; empty means all namespaces for namespaced resources.'),
    resource: str('Resource, such as pods; "*" means all.'),
    subresource: str('Subresource, such as status; empty for none.'),
    verb: str('API verb, such as get, list, create; "*" means all.'),
    version: str('API version; "*" means all.'),
  }),
  [`${AZ}.NonResourceAttributes`]: struct('The attributes of a request to a non-resource URL.', {
    path: str('URL path.'),
    verb: str('Lowercase HTTP verb.'),
  }),
  [`${AZ}.FieldSelectorAttributes`]: struct('A field selector in raw or parsed form (one of them).', {
    rawSelector: str('The selector exactly as it appeared in the query string.'),
    requirements: listOf(`${META}.FieldSelectorRequirement`, 'The parsed selector.', ATOMIC_LIST),
  }),
  [`${AZ}.LabelSelectorAttributes`]: struct('A label selector in raw or parsed form (one of them).', {
    rawSelector: str('The selector exactly as it appeared in the query string.'),
    requirements: listOf(`${META}.LabelSelectorRequirement`, 'The parsed selector.', ATOMIC_LIST),
  }),
  [`${AZ}.SubjectAccessReviewStatus`]: withRequired(
    struct('The outcome of an access review.', {
      allowed: bool('True if the action is allowed.'),
      denied: bool('True if the action is explicitly denied; allowed and denied are never both true.'),
      evaluationError: str('Set when the authorizer failed; the decision may still be usable.'),
      reason: str('Why the action was allowed or denied.'),
    }),
    ['allowed'],
  ),
  [`${AZ}.SelfSubjectRulesReview`]: kindSchema({
    description:
      'Lists what the requesting user may do in a namespace. This is what `kubectl auth can-i --list` sends. ' +
      'The list may be incomplete depending on the authorizer.',
    gvk: azGVK('SelfSubjectRulesReview'),
    properties: {
      spec: field(`${AZ}.SelfSubjectRulesReviewSpec`, 'Which namespace to list rules for.', { withDefault: true }),
      status: field(`${AZ}.SubjectRulesReviewStatus`, 'The rules, filled in by the server.', { withDefault: true }),
    },
    required: ['spec'],
  }),
  [`${AZ}.SelfSubjectRulesReviewSpec`]: struct('Input of a rules review.', {
    namespace: str('Namespace to evaluate rules in.'),
  }),
  [`${AZ}.SubjectRulesReviewStatus`]: withRequired(
    struct('What a user may do. Use access reviews for authoritative answers.', {
      evaluationError: str('Set when the authorizer could not list every rule.'),
      incomplete: bool('True if some authorizer cannot enumerate its rules.'),
      nonResourceRules: listOf(`${AZ}.NonResourceRule`, 'Allowed non-resource requests.', ATOMIC_LIST),
      resourceRules: listOf(`${AZ}.ResourceRule`, 'Allowed resource requests.', ATOMIC_LIST),
    }),
    ['resourceRules', 'nonResourceRules', 'incomplete'],
  ),
  [`${AZ}.ResourceRule`]: withRequired(
    struct('Verbs allowed on resources; "*" means all in any field.', {
      apiGroups: stringList('API groups.'),
      resourceNames: stringList('Object names; empty means all.'),
      resources: stringList('Resources, optionally "resource/subresource".'),
      verbs: stringList('Verbs.'),
    }),
    ['verbs'],
  ),
  [`${AZ}.NonResourceRule`]: withRequired(
    struct('Verbs allowed on non-resource URLs.', {
      nonResourceURLs: stringList('URL paths; "*" is allowed as the final segment.'),
      verbs: stringList('Lowercase HTTP verbs.'),
    }),
    ['verbs'],
  ),

  [`${AN}.SelfSubjectReview`]: kindSchema({
    description: 'Returns the identity of the requesting user. This is what `kubectl auth whoami` sends.',
    gvk: anGVK('SelfSubjectReview'),
    properties: {
      status: field(`${AN}.SelfSubjectReviewStatus`, 'Filled in by the server.', { withDefault: true }),
    },
  }),
  [`${AN}.SelfSubjectReviewStatus`]: struct('The identity of the requester.', {
    userInfo: field(`${AN}.UserInfo`, 'The authenticated user.', { withDefault: true }),
  }),
  [`${AN}.TokenReview`]: kindSchema({
    description: 'Checks a bearer token and reports the user it authenticates.',
    gvk: anGVK('TokenReview'),
    properties: {
      spec: field(`${AN}.TokenReviewSpec`, 'The token to check.', { withDefault: true }),
      status: field(`${AN}.TokenReviewStatus`, 'The result, filled in by the server.', { withDefault: true }),
    },
    required: ['spec'],
  }),
  [`${AN}.TokenReviewSpec`]: struct('A token to authenticate.', {
    audiences: stringList('Audiences the token must be valid for; empty means the API server itself.'),
    token: str('The opaque bearer token.'),
  }),
  [`${AN}.TokenReviewStatus`]: struct('The result of a token review.', {
    audiences: stringList('Audiences the token is valid for, among those requested.'),
    authenticated: bool('True if the token is valid.'),
    error: str('Why the token could not be checked.'),
    user: field(`${AN}.UserInfo`, 'The user the token belongs to.', { withDefault: true }),
  }),
  [`${AN}.TokenRequest`]: kindSchema({
    description: 'Requests a token for a service account (the serviceaccounts/token subresource).',
    gvk: anGVK('TokenRequest'),
    properties: {
      spec: field(`${AN}.TokenRequestSpec`, 'What the token should be valid for.', { withDefault: true }),
      status: field(`${AN}.TokenRequestStatus`, 'The issued token.', { withDefault: true }),
    },
    required: ['spec'],
  }),
  [`${AN}.TokenRequestSpec`]: withRequired(
    struct('Parameters of a requested token.', {
      audiences: stringList('Intended audiences; the token is rejected by anyone not named here.'),
      boundObjectRef: field(`${AN}.BoundObjectReference`, 'An object the token is tied to; it dies with it.'),
      expirationSeconds: int64('Requested lifetime in seconds; the server may shorten it.'),
    }),
    ['audiences'],
  ),
  [`${AN}.TokenRequestStatus`]: withRequired(
    struct('An issued token.', {
      expirationTimestamp: field(TIME, 'When the token expires.'),
      token: str('The opaque bearer token.', { default: '' }),
    }),
    ['token', 'expirationTimestamp'],
  ),
  [`${AN}.BoundObjectReference`]: struct('The object a token is bound to.', {
    apiVersion: str('API version of the referent.'),
    kind: str('Kind of the referent: Pod, Secret or Node.'),
    name: str('Name of the referent.'),
    uid: str('UID of the referent.'),
  }),
  [`${AN}.UserInfo`]: struct('What an authenticator knows about a user.', {
    extra: extraMap('Additional attributes from the authenticator.'),
    groups: stringList('Groups the user belongs to.'),
    uid: str('A unique ID for the user, stable across name changes.'),
    username: str('The name that identifies the user.'),
  }),
};
