/**
 * kubectl apply / edit scenarios for generate-fixtures.ts: a live object (with the last-applied annotation that
 * client-side apply diffs against) and the manifest the user applies next, or the edited object. The patch is
 * whatever real kubectl sends; the expected result is `kubectl patch --local` with that patch.
 */
type Obj = Record<string, any>;

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/** The live object as the server holds it after `kubectl apply` of `applied` plus server-side changes. */
export function liveAfterApply(applied: Obj, serverChanges: (o: Obj) => void = () => {}): Obj {
  const live = structuredClone(applied);
  live.metadata.annotations = { ...live.metadata.annotations, [LAST_APPLIED]: JSON.stringify(applied) + '\n' };
  live.metadata.uid = '6b1f3c4e-0000-4000-8000-000000000001';
  live.metadata.resourceVersion = '42';
  live.metadata.creationTimestamp = '2026-01-01T00:00:00Z';
  serverChanges(live);
  return live;
}

export interface ApplyScenario {
  name: string;
  live: Obj;
  /** Next manifest for `kubectl apply`, or the edited object for `kubectl edit`. */
  next: Obj;
  command: 'apply' | 'edit';
}

const meta = (name: string, extra: Obj = {}): Obj => ({ name, namespace: 'default', ...extra });
const owner = (uid: string, name = uid) => ({ apiVersion: 'v1', kind: 'ConfigMap', name, uid });

const cm1 = { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta('cm1', { labels: { app: 'a' } }), data: { a: '1', b: '2' } };
const cmFin = { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta('cm2', { finalizers: ['x.io/a', 'x.io/b'] }), data: { a: '1' } };
const cmOwn = { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta('cm3', { ownerReferences: [owner('u1'), owner('u2')] }) };
const sa = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta('sa1'), secrets: [{ name: 's1' }, { name: 's2' }], imagePullSecrets: [{ name: 'p1' }] };
const svc = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: meta('svc1'),
  spec: {
    selector: { app: 'web' },
    ports: [
      { name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' },
      { name: 'https', port: 443, targetPort: 8443, protocol: 'TCP' },
    ],
  },
};
const svcServerFields = (o: Obj) => {
  o.spec.clusterIP = '10.96.0.10';
  o.spec.clusterIPs = ['10.96.0.10'];
  o.spec.type = 'ClusterIP';
  o.spec.sessionAffinity = 'None';
  o.status = { loadBalancer: {} };
};
const role = {
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'Role',
  metadata: meta('r1'),
  rules: [
    { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] },
    { apiGroups: [''], resources: ['secrets'], verbs: ['get'] },
  ],
};
const rb = {
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'RoleBinding',
  metadata: meta('rb1'),
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r1' },
  subjects: [
    { kind: 'User', name: 'alice', apiGroup: 'rbac.authorization.k8s.io' },
    { kind: 'ServiceAccount', name: 'default', namespace: 'default' },
  ],
};
const cr = {
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRole',
  metadata: { name: 'agg', labels: { a: 'b' } },
  aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'rbac.example.com/aggregate': 'true' } }] },
  rules: [],
};
const lease = {
  apiVersion: 'coordination.k8s.io/v1',
  kind: 'Lease',
  metadata: meta('l1'),
  spec: { holderIdentity: 'a', leaseDurationSeconds: 15 },
};
const lr = {
  apiVersion: 'v1',
  kind: 'LimitRange',
  metadata: meta('lr1'),
  spec: { limits: [{ type: 'Container', max: { cpu: '1' } }, { type: 'Pod', max: { cpu: '2' } }] },
};
const quota = {
  apiVersion: 'v1',
  kind: 'ResourceQuota',
  metadata: meta('q1'),
  spec: { hard: { pods: '10', 'requests.cpu': '4' }, scopes: ['NotTerminating'] },
};
const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a', labels: { team: 'a', tier: 'dev' } } };
const secret = { apiVersion: 'v1', kind: 'Secret', metadata: meta('s1'), type: 'Opaque', data: { a: 'MQ==', b: 'Mg==' } };
const vwc = {
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingWebhookConfiguration',
  metadata: { name: 'hooks' },
  webhooks: [
    { name: 'a.example.com', sideEffects: 'None', admissionReviewVersions: ['v1'], clientConfig: { url: 'https://a' } },
    { name: 'b.example.com', sideEffects: 'None', admissionReviewVersions: ['v1'], clientConfig: { url: 'https://b' } },
  ],
};

function edit(o: Obj, fn: (o: Obj) => void): Obj {
  const copy = structuredClone(o);
  fn(copy);
  return copy;
}

export const applyScenarios: ApplyScenario[] = [
  {
    name: 'apply ConfigMap: change, add and remove data keys, keep server-added label',
    live: liveAfterApply(cm1, (o) => (o.metadata.labels.server = 'added')),
    next: edit(cm1, (o) => (o.data = { a: '1', c: '3' })),
    command: 'apply',
  },
  {
    name: 'apply ConfigMap: drop all labels',
    live: liveAfterApply(cm1),
    next: edit(cm1, (o) => delete o.metadata.labels),
    command: 'apply',
  },
  {
    name: 'apply ConfigMap finalizers: remove one, add one, keep a server-added one',
    live: liveAfterApply(cmFin, (o) => o.metadata.finalizers.push('server.io/keep')),
    next: edit(cmFin, (o) => (o.metadata.finalizers = ['x.io/b', 'x.io/c'])),
    command: 'apply',
  },
  {
    name: 'apply ConfigMap ownerReferences: delete u1, add u3',
    live: liveAfterApply(cmOwn),
    next: edit(cmOwn, (o) => (o.metadata.ownerReferences = [owner('u2'), owner('u3')])),
    command: 'apply',
  },
  {
    name: 'apply ConfigMap ownerReferences: reorder only',
    live: liveAfterApply(cmOwn),
    next: edit(cmOwn, (o) => (o.metadata.ownerReferences = [owner('u2'), owner('u1')])),
    command: 'apply',
  },
  {
    name: 'apply ServiceAccount: secrets merge by name, imagePullSecrets replaced',
    live: liveAfterApply(sa, (o) => o.secrets.push({ name: 'token-xyz' })),
    next: edit(sa, (o) => {
      o.secrets = [{ name: 's2' }, { name: 's3' }];
      o.imagePullSecrets = [{ name: 'p2' }];
    }),
    command: 'apply',
  },
  {
    name: 'apply Service: ports merge by port, server fields kept',
    live: liveAfterApply(svc, svcServerFields),
    next: edit(svc, (o) => {
      o.spec.selector = { app: 'web', tier: 'front' };
      o.spec.ports = [
        { name: 'https', port: 443, targetPort: 9443, protocol: 'TCP' },
        { name: 'admin', port: 9000, targetPort: 9000, protocol: 'TCP' },
      ];
    }),
    command: 'apply',
  },
  {
    name: 'apply Service: change type to NodePort',
    live: liveAfterApply(svc, svcServerFields),
    next: edit(svc, (o) => (o.spec.type = 'NodePort')),
    command: 'apply',
  },
  {
    name: 'apply Role: rules replaced atomically',
    live: liveAfterApply(role),
    next: edit(role, (o) => (o.rules = [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] }])),
    command: 'apply',
  },
  {
    name: 'apply RoleBinding: subjects replaced atomically',
    live: liveAfterApply(rb),
    next: edit(rb, (o) => o.subjects.splice(0, 1)),
    command: 'apply',
  },
  {
    name: 'apply ClusterRole: aggregation selector change keeps server-filled rules',
    live: liveAfterApply(cr, (o) => (o.rules = [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }])),
    next: edit(cr, (o) => (o.aggregationRule.clusterRoleSelectors = [{ matchLabels: { 'rbac.example.com/aggregate-to-view': 'true' } }])),
    command: 'apply',
  },
  {
    name: 'apply Lease: change holder',
    live: liveAfterApply(lease, (o) => (o.spec.renewTime = '2026-01-01T00:00:00.000000Z')),
    next: edit(lease, (o) => (o.spec.holderIdentity = 'b')),
    command: 'apply',
  },
  {
    name: 'apply LimitRange: limits replaced',
    live: liveAfterApply(lr),
    next: edit(lr, (o) => (o.spec.limits = [{ type: 'Container', max: { cpu: '2' } }])),
    command: 'apply',
  },
  {
    name: 'apply ResourceQuota: hard map merge, scopes replaced',
    live: liveAfterApply(quota, (o) => (o.status = { hard: o.spec.hard, used: { pods: '1' } })),
    next: edit(quota, (o) => {
      o.spec.hard = { pods: '20', 'limits.memory': '1Gi' };
      o.spec.scopes = ['NotBestEffort'];
    }),
    command: 'apply',
  },
  {
    name: 'apply Namespace: labels change',
    live: liveAfterApply(ns, (o) => {
      o.metadata.labels['kubernetes.io/metadata.name'] = 'team-a';
      o.spec = { finalizers: ['kubernetes'] };
      o.status = { phase: 'Active' };
    }),
    next: edit(ns, (o) => (o.metadata.labels = { team: 'a', tier: 'prod' })),
    command: 'apply',
  },
  {
    name: 'apply Secret: data key removed and stringData added',
    live: liveAfterApply(secret),
    next: edit(secret, (o) => {
      o.data = { a: 'MQ==' };
      o.stringData = { c: 'three' };
    }),
    command: 'apply',
  },
  {
    name: 'apply ValidatingWebhookConfiguration: webhooks merge by name',
    live: liveAfterApply(vwc),
    next: edit(vwc, (o) => {
      o.webhooks = [
        { ...o.webhooks[1], clientConfig: { url: 'https://b2' } },
        { name: 'c.example.com', sideEffects: 'None', admissionReviewVersions: ['v1'], clientConfig: { url: 'https://c' } },
      ];
    }),
    command: 'apply',
  },
  {
    name: 'edit ConfigMap: change data, delete a label',
    live: liveAfterApply(cm1, (o) => (o.metadata.labels.extra = 'x')),
    next: edit(liveAfterApply(cm1, (o) => (o.metadata.labels.extra = 'x')), (o) => {
      delete o.metadata.labels.app;
      o.data.b = 'two';
    }),
    command: 'edit',
  },
  {
    name: 'edit ConfigMap: remove the middle finalizer',
    live: liveAfterApply(cmFin, (o) => o.metadata.finalizers.push('x.io/c')),
    next: edit(liveAfterApply(cmFin, (o) => o.metadata.finalizers.push('x.io/c')), (o) => o.metadata.finalizers.splice(1, 1)),
    command: 'edit',
  },
  {
    name: 'edit Service: swap port order and change one',
    live: liveAfterApply(svc, svcServerFields),
    next: edit(liveAfterApply(svc, svcServerFields), (o) => {
      o.spec.ports.reverse();
      o.spec.ports[0].targetPort = 9443;
    }),
    command: 'edit',
  },
  {
    name: 'edit ServiceAccount: drop a secret, add another',
    live: liveAfterApply(sa),
    next: edit(liveAfterApply(sa), (o) => (o.secrets = [{ name: 's3' }, { name: 's1' }])),
    command: 'edit',
  },
];
