/**
 * Core group (`v1`) kinds kcpt serves: namespaces, config maps, secrets, service accounts, events, limit ranges
 * and resource quotas. Patch and list markers follow kube 1.32 so kubectl's strategic-merge patches come out the
 * same as against a real apiserver (ServiceAccount.secrets by name, Namespace conditions by type).
 */
import {
  ATOMIC_LIST,
  MICRO_TIME,
  TIME,
  addLists,
  bool,
  field,
  int32,
  kindSchema,
  listOf,
  mergeByKey,
  quantityMap,
  str,
  stringList,
  stringMap,
  struct,
  withRequired,
  type Schema,
} from '../../machinery/openapi-schemas/helpers.js';

const CORE = 'io.k8s.api.core.v1';
const gvk = (kind: string) => ({ group: '', version: 'v1', kind });

const byteMap = (description: string): Schema => ({
  description,
  type: 'object',
  additionalProperties: { type: 'string', format: 'byte' },
});

export const coreSchemas: Record<string, Schema> = {
  [`${CORE}.Namespace`]: kindSchema({
    description: 'A Namespace is a scope for names: most objects live in exactly one.',
    gvk: gvk('Namespace'),
    properties: {
      spec: field(`${CORE}.NamespaceSpec`, 'Desired behaviour of the namespace.', { withDefault: true }),
      status: field(`${CORE}.NamespaceStatus`, 'Observed state of the namespace. Read-only.', { withDefault: true }),
    },
  }),
  [`${CORE}.NamespaceSpec`]: struct('Attributes of a namespace.', {
    finalizers: stringList(
      'Opaque values that must all be removed before the namespace is deleted from storage.',
    ),
  }),
  [`${CORE}.NamespaceStatus`]: struct('Observed state of a namespace.', {
    conditions: listOf(
      `${CORE}.NamespaceCondition`,
      "Latest observations of the namespace's state.",
      mergeByKey('type'),
    ),
    phase: str('Lifecycle phase: Active or Terminating.'),
  }),
  [`${CORE}.NamespaceCondition`]: withRequired(
    struct('One condition of a namespace, mostly reported while it is being deleted.', {
      lastTransitionTime: field(TIME, 'When the status last changed.', { withDefault: true }),
      message: str('Human-readable details.'),
      reason: str('Machine-readable reason for the last transition.'),
      status: str('True, False or Unknown.', { default: '' }),
      type: str('Condition type, such as NamespaceDeletionContentFailure.', { default: '' }),
    }),
    ['type', 'status'],
  ),
  [`${CORE}.ConfigMap`]: kindSchema({
    description: 'A ConfigMap holds non-secret configuration data as key/value pairs for other objects to use.',
    gvk: gvk('ConfigMap'),
    properties: {
      binaryData: byteMap(
        'Binary values, base64-encoded in JSON. Keys must be valid file names and may not repeat keys of data.',
      ),
      data: stringMap(
        'UTF-8 configuration values. Keys must consist of alphanumerics, "-", "_" or "." and may not repeat ' +
          'keys of binaryData.',
      ),
      immutable: bool('If true, data and binaryData can no longer be changed; only metadata can.'),
    },
  }),
  [`${CORE}.Secret`]: kindSchema({
    description: 'A Secret holds a small amount of sensitive data such as a password, token or key.',
    gvk: gvk('Secret'),
    properties: {
      data: byteMap('Secret values, base64-encoded in JSON. Keys must be alphanumerics, "-", "_" or ".".'),
      immutable: bool('If true, data can no longer be changed; only metadata can.'),
      stringData: stringMap(
        'Write-only convenience: plain-text values merged into data on write (winning over data). Never returned.',
      ),
      type: str('Used to check and handle the data programmatically, e.g. kubernetes.io/tls. Default Opaque.'),
    },
  }),
  [`${CORE}.ServiceAccount`]: kindSchema({
    description: 'A ServiceAccount is an identity for processes that talk to the API, with the secrets they may use.',
    gvk: gvk('ServiceAccount'),
    properties: {
      automountServiceAccountToken: bool('Whether pods using this account get an API token mounted by default.'),
      imagePullSecrets: listOf(
        `${CORE}.LocalObjectReference`,
        'Secrets in this namespace used to pull images for pods that use this account.',
        ATOMIC_LIST,
      ),
      secrets: listOf(
        `${CORE}.ObjectReference`,
        'Secrets in this namespace that pods running as this account may use.',
        mergeByKey('name'),
      ),
    },
  }),
  [`${CORE}.Event`]: kindSchema({
    description: 'An Event reports something that happened to an object, for people and tools to see.',
    gvk: gvk('Event'),
    properties: {
      action: str('What action was taken or failed regarding the object.'),
      count: int32('How many times this event has occurred.'),
      eventTime: field(MICRO_TIME, 'When the event was first observed, with microseconds.', { withDefault: true }),
      firstTimestamp: field(TIME, 'When the event was first recorded.', { withDefault: true }),
      involvedObject: field(`${CORE}.ObjectReference`, 'The object this event is about.', { withDefault: true }),
      lastTimestamp: field(TIME, 'When the most recent occurrence was recorded.', { withDefault: true }),
      message: str('Human-readable description of what happened.'),
      reason: str('Short machine-readable CamelCase reason.'),
      related: field(`${CORE}.ObjectReference`, 'A second object involved in the event, if any.'),
      reportingComponent: str('Controller that emitted the event, e.g. kubernetes.io/kubelet.', { default: '' }),
      reportingInstance: str('ID of the controller instance, e.g. kubelet-xyzf.', { default: '' }),
      series: field(`${CORE}.EventSeries`, 'Data about the series this event belongs to, if it repeats.'),
      source: field(`${CORE}.EventSource`, 'The component reporting the event.', { withDefault: true }),
      type: str('Normal or Warning; new types may be added.'),
    },
    required: ['metadata', 'involvedObject'],
  }),
  [`${CORE}.EventSource`]: struct('The component that produced an event.', {
    component: str('Component name.'),
    host: str('Node name the event came from.'),
  }),
  [`${CORE}.EventSeries`]: struct('A series of recurring events.', {
    count: int32('Occurrences in this series up to lastObservedTime.'),
    lastObservedTime: field(MICRO_TIME, 'When the last occurrence was observed.', { withDefault: true }),
  }),
  [`${CORE}.ObjectReference`]: struct(
    'Enough information to find and inspect another object.',
    {
      apiVersion: str('API version of the referent.'),
      fieldPath: str('Path to a part of the object, such as spec.containers{name}, when not the whole object.'),
      kind: str('Kind of the referent.'),
      name: str('Name of the referent.'),
      namespace: str('Namespace of the referent.'),
      resourceVersion: str('The resourceVersion this reference was made at, if it matters.'),
      uid: str('UID of the referent.'),
    },
    { 'x-kubernetes-map-type': 'atomic' },
  ),
  [`${CORE}.LocalObjectReference`]: struct(
    'Names an object in the same namespace.',
    { name: str('Name of the referent.', { default: '' }) },
    { 'x-kubernetes-map-type': 'atomic' },
  ),
  [`${CORE}.LimitRange`]: kindSchema({
    description: 'A LimitRange sets per-object resource limits and defaults within a namespace.',
    gvk: gvk('LimitRange'),
    properties: {
      spec: field(`${CORE}.LimitRangeSpec`, 'The limits enforced.', { withDefault: true }),
    },
  }),
  [`${CORE}.LimitRangeSpec`]: withRequired(
    struct('The limits of a LimitRange.', {
      limits: listOf(`${CORE}.LimitRangeItem`, 'One entry per kind of object limited.', ATOMIC_LIST),
    }),
    ['limits'],
  ),
  [`${CORE}.LimitRangeItem`]: withRequired(
    struct('Resource limits for one kind of object (Pod, Container or PersistentVolumeClaim).', {
      default: quantityMap('Limits applied when a resource does not set its own.'),
      defaultRequest: quantityMap('Requests applied when a resource does not set its own.'),
      max: quantityMap('Largest allowed amount per resource name.'),
      maxLimitRequestRatio: quantityMap('Largest allowed limit-to-request ratio per resource name.'),
      min: quantityMap('Smallest allowed amount per resource name.'),
      type: str('Kind of object the limits apply to.', { default: '' }),
    }),
    ['type'],
  ),
  [`${CORE}.ResourceQuota`]: kindSchema({
    description: 'A ResourceQuota caps the total resources that objects in a namespace may consume.',
    gvk: gvk('ResourceQuota'),
    properties: {
      spec: field(`${CORE}.ResourceQuotaSpec`, 'The desired quota.', { withDefault: true }),
      status: field(`${CORE}.ResourceQuotaStatus`, 'Enforced limits and current usage.', { withDefault: true }),
    },
  }),
  [`${CORE}.ResourceQuotaSpec`]: struct('Desired hard limits of a quota.', {
    hard: quantityMap('Hard limit per named resource.'),
    scopeSelector: field(
      `${CORE}.ScopeSelector`,
      'Selects which objects are tracked by scope expressions; ANDed with scopes.',
    ),
    scopes: stringList('Scopes every tracked object must match; an empty list tracks everything.'),
  }),
  [`${CORE}.ResourceQuotaStatus`]: struct('Enforced limits and observed usage of a quota.', {
    hard: quantityMap('Hard limits currently enforced.'),
    used: quantityMap('Current usage per named resource.'),
  }),
  [`${CORE}.ScopeSelector`]: struct(
    'Scope expressions that must all match.',
    {
      matchExpressions: listOf(
        `${CORE}.ScopedResourceSelectorRequirement`,
        'Scope requirements, ANDed.',
        ATOMIC_LIST,
      ),
    },
    { 'x-kubernetes-map-type': 'atomic' },
  ),
  [`${CORE}.ScopedResourceSelectorRequirement`]: withRequired(
    struct('A scope name, an operator and values.', {
      operator: str('One of In, NotIn, Exists, DoesNotExist.', { default: '' }),
      scopeName: str('The quota scope, e.g. Terminating or PriorityClass.', { default: '' }),
      values: stringList('Values for In/NotIn; empty for Exists/DoesNotExist.'),
    }),
    ['scopeName', 'operator'],
  ),
};

addLists(coreSchemas, CORE, '', 'v1', [
  'Namespace',
  'ConfigMap',
  'Secret',
  'ServiceAccount',
  'Event',
  'LimitRange',
  'ResourceQuota',
]);
