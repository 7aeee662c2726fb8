/**
 * `kubectl patch --local` scenarios for generate-fixtures.ts: kubectl applies each patch with the same
 * apimachinery code the API server runs, so its answer (object or error) is the reference.
 */
type Obj = Record<string, any>;

export interface PatchScenario {
  name: string;
  live: Obj;
  type: 'strategic' | 'merge' | 'json';
  patch: unknown;
}

const m = (name: string, extra: Obj = {}): Obj => ({ name, namespace: 'default', ...extra });
const ref = (uid: string, name = uid) => ({ apiVersion: 'v1', kind: 'ConfigMap', name, uid });

const cm: Obj = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: m('cm', {
    labels: { app: 'a', tier: 'web' },
    annotations: { 'example.com/note': 'n' },
    finalizers: ['x.io/a', 'x.io/b'],
    ownerReferences: [ref('u1'), ref('u2')],
  }),
  data: { a: '1', b: '2' },
};
const svc: Obj = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: m('svc'),
  spec: {
    type: 'ClusterIP',
    clusterIP: '10.0.0.1',
    selector: { app: 'web' },
    sessionAffinity: 'None',
    ports: [
      { name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' },
      { name: 'https', port: 443, targetPort: 8443, protocol: 'TCP' },
    ],
    externalIPs: ['1.1.1.1'],
  },
  status: { conditions: [{ type: 'A', status: 'True' }, { type: 'B', status: 'True' }], loadBalancer: { ingress: [{ ip: '1.1.1.1' }] } },
};
const sa: Obj = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: m('sa'), secrets: [{ name: 'a' }, { name: 'b' }], imagePullSecrets: [{ name: 'a' }, { name: 'b' }] };
const ns: Obj = {
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name: 'ns1', labels: { a: 'b' } },
  spec: { finalizers: ['kubernetes', 'x.io/a'] },
  status: { phase: 'Active', conditions: [{ type: 'A', status: 'True' }, { type: 'B', status: 'True' }] },
};
const role: Obj = {
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'Role',
  metadata: m('r'),
  rules: [
    { apiGroups: [''], resources: ['pods'], verbs: ['get'] },
    { apiGroups: ['apps'], resources: ['deployments'], verbs: ['list'] },
  ],
};
const crb: Obj = {
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRoleBinding',
  metadata: { name: 'crb' },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
  subjects: [{ kind: 'User', name: 'a' }, { kind: 'User', name: 'b' }],
};
const lr: Obj = { apiVersion: 'v1', kind: 'LimitRange', metadata: m('lr'), spec: { limits: [{ type: 'Container', max: { cpu: '1' } }, { type: 'Pod', max: { cpu: '2' } }] } };
const quota: Obj = {
  apiVersion: 'v1',
  kind: 'ResourceQuota',
  metadata: m('q'),
  spec: {
    hard: { pods: '1', cpu: '1' },
    scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['a', 'b'] }, { scopeName: 'Terminating', operator: 'Exists' }] },
  },
};
const lease: Obj = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: m('l'), spec: { holderIdentity: 'a', leaseDurationSeconds: 10 } };
const event: Obj = { apiVersion: 'v1', kind: 'Event', metadata: m('e'), involvedObject: { kind: 'Pod', name: 'p' }, reason: 'R', message: 'm', count: 1 };
const secret: Obj = { apiVersion: 'v1', kind: 'Secret', metadata: m('s'), type: 'Opaque', data: { a: 'MQ==' } };

const S = 'strategic' as const;
export const patchScenarios: PatchScenario[] = [
  // --- strategic: merge keys and strategies per kind
  { name: 'smp finalizers are unioned, patch order first', live: cm, type: S, patch: { metadata: { finalizers: ['x.io/c', 'x.io/a'] } } },
  { name: 'smp ownerReferences merge by uid', live: cm, type: S, patch: { metadata: { ownerReferences: [ref('u1', 'renamed'), ref('u3')] } } },
  { name: 'smp labels merge and null deletes', live: cm, type: S, patch: { metadata: { labels: { app: null, new: 'x' } }, data: { b: null, c: '3' } } },
  { name: 'smp ServiceAccount secrets merge by name, imagePullSecrets replace', live: sa, type: S, patch: { secrets: [{ name: 'c' }], imagePullSecrets: [{ name: 'c' }] } },
  { name: 'smp Service ports merge by port, other lists replace', live: svc, type: S, patch: { spec: { ports: [{ name: 'web', port: 80, targetPort: 9090 }], externalIPs: ['2.2.2.2'] } } },
  { name: 'smp Service new port goes first', live: svc, type: S, patch: { spec: { ports: [{ port: 8081, name: 'alt' }, { port: 443, name: 'tls' }] } } },
  { name: 'smp Service status conditions merge by type, ingress replaces', live: svc, type: S, patch: { status: { conditions: [{ type: 'A', status: 'False' }], loadBalancer: { ingress: [{ hostname: 'h' }] } } } },
  { name: 'smp Namespace spec.finalizers replace, status.conditions merge', live: ns, type: S, patch: { spec: { finalizers: ['x.io/b'] }, status: { conditions: [{ type: 'B', status: 'False' }] } } },
  { name: 'smp Role rules atomic', live: role, type: S, patch: { rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['watch'] }] } },
  { name: 'smp ClusterRoleBinding subjects atomic', live: crb, type: S, patch: { subjects: [{ kind: 'User', name: 'a', namespace: 'x' }] } },
  { name: 'smp LimitRange limits replace', live: lr, type: S, patch: { spec: { limits: [{ type: 'Container', min: { cpu: '1m' } }] } } },
  { name: 'smp ResourceQuota hard merges, matchExpressions replace', live: quota, type: S, patch: { spec: { hard: { pods: '2' }, scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'NotIn', values: ['c'] }] } } } },
  { name: 'smp Lease spec merge', live: lease, type: S, patch: { spec: { holderIdentity: 'b', renewTime: '2026-01-01T00:00:00.000000Z' } } },
  { name: 'smp Event fields', live: event, type: S, patch: { count: 2, series: { count: 3 } } },
  { name: 'smp Secret data and stringData', live: secret, type: S, patch: { data: { b: 'Mg==' }, stringData: { c: 'x' } } },
  // --- strategic: directives
  { name: 'smp $patch replace on a map', live: cm, type: S, patch: { data: { $patch: 'replace', c: '3' } } },
  { name: 'smp $patch delete on a map', live: cm, type: S, patch: { metadata: { labels: { $patch: 'delete' } } } },
  { name: 'smp $patch delete on a list item', live: cm, type: S, patch: { metadata: { ownerReferences: [{ $patch: 'delete', uid: 'u1' }] } } },
  { name: 'smp $patch replace on a list', live: cm, type: S, patch: { metadata: { ownerReferences: [{ $patch: 'replace' }, ref('u9')] } } },
  { name: 'smp $patch delete and add in one list', live: svc, type: S, patch: { spec: { ports: [{ $patch: 'delete', port: 80 }, { port: 8080, name: 'alt' }] } } },
  { name: 'smp $setElementOrder on finalizers with an addition', live: cm, type: S, patch: { metadata: { '$setElementOrder/finalizers': ['x.io/c', 'x.io/b', 'x.io/a'], finalizers: ['x.io/c'] } } },
  { name: 'smp $setElementOrder reorders maps without content change', live: svc, type: S, patch: { spec: { '$setElementOrder/ports': [{ port: 443 }, { port: 80 }] } } },
  { name: 'smp $setElementOrder with deletion and change', live: cm, type: S, patch: { metadata: { '$setElementOrder/ownerReferences': [{ uid: 'u2' }, { uid: 'u3' }], ownerReferences: [ref('u3'), { $patch: 'delete', uid: 'u1' }] } } },
  { name: 'smp $setElementOrder with server-only items', live: { ...cm, metadata: { ...cm.metadata, finalizers: ['s.io/1', 'x.io/a', 's.io/2', 'x.io/b'] } }, type: S, patch: { metadata: { '$setElementOrder/finalizers': ['x.io/b', 'x.io/n', 'x.io/a'], finalizers: ['x.io/n'] } } },
  { name: 'smp $deleteFromPrimitiveList', live: cm, type: S, patch: { metadata: { '$deleteFromPrimitiveList/finalizers': ['x.io/a', 'x.io/zz'] } } },
  { name: 'smp $deleteFromPrimitiveList with $setElementOrder', live: cm, type: S, patch: { metadata: { '$deleteFromPrimitiveList/finalizers': ['x.io/a'], '$setElementOrder/finalizers': ['x.io/c', 'x.io/b'], finalizers: ['x.io/c'] } } },
  { name: 'smp $retainKeys clears other fields', live: svc, type: S, patch: { spec: { $retainKeys: ['ports', 'type', 'selector'], type: 'NodePort' } } },
  { name: 'smp $retainKeys on metadata', live: cm, type: S, patch: { metadata: { $retainKeys: ['name', 'namespace', 'labels'], labels: { z: '1' } } } },
  { name: 'smp null removes a list', live: svc, type: S, patch: { spec: { ports: null, externalIPs: null } } },
  { name: 'smp type change replaces', live: cm, type: S, patch: { data: 'not-a-map' } },
  { name: 'smp top-level $patch replace', live: cm, type: S, patch: { $patch: 'replace', apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'default' }, data: { z: '1' } } },
  { name: 'smp webhooks merge by name', live: { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'v' }, webhooks: [{ name: 'a.b', sideEffects: 'None' }, { name: 'c.d', sideEffects: 'None' }] }, type: S, patch: { webhooks: [{ name: 'c.d', sideEffects: 'Some' }, { name: 'e.f' }] } },
  ...orderScenarios(),
  // --- strategic: errors
  { name: 'smp error: unknown $patch value', live: cm, type: S, patch: { metadata: { labels: { $patch: 'bogus' } } } },
  { name: 'smp error: $retainKeys is not a list', live: cm, type: S, patch: { metadata: { $retainKeys: 'name' } } },
  { name: 'smp error: patch key missing from $retainKeys', live: cm, type: S, patch: { metadata: { $retainKeys: ['name'], labels: { a: 'b' } } } },
  { name: 'smp $deleteFromPrimitiveList that is not a list', live: cm, type: S, patch: { metadata: { '$deleteFromPrimitiveList/finalizers': 'x.io/a' } } },
  { name: 'smp error: list item without merge key', live: cm, type: S, patch: { metadata: { ownerReferences: [{ name: 'no-uid' }] } } },
  { name: 'smp error: list of lists', live: cm, type: S, patch: { metadata: { finalizers: [['x']] } } },
  { name: 'smp error: $setElementOrder disagrees with the patch list', live: cm, type: S, patch: { metadata: { '$setElementOrder/finalizers': ['x.io/a'], finalizers: ['x.io/c'] } } },
  { name: 'smp error: $patch merge on a list item', live: cm, type: S, patch: { metadata: { ownerReferences: [{ $patch: 'merge', uid: 'u1' }] } } },
  // --- merge patch
  { name: 'merge: nested merge, null deletes, arrays replace', live: cm, type: 'merge', patch: { metadata: { labels: { app: null, x: 'y' }, finalizers: ['only'] }, data: { c: '3' } } },
  { name: 'merge: null for a missing key is a no-op', live: cm, type: 'merge', patch: { data: { zz: null }, spec: null } },
  { name: 'merge: object replaces scalar and scalar replaces object', live: cm, type: 'merge', patch: { data: 'x', metadata: { annotations: { 'example.com/note': { deep: { v: null, w: 1 } } } } } },
  // --- json patch
  { name: 'json: add/replace/remove/copy/move/test', live: cm, type: 'json', patch: [
    { op: 'test', path: '/data/a', value: '1' },
    { op: 'add', path: '/data/c', value: '3' },
    { op: 'replace', path: '/data/a', value: 'one' },
    { op: 'remove', path: '/data/b' },
    { op: 'copy', from: '/data/c', path: '/data/d' },
    { op: 'move', from: '/data/c', path: '/metadata/labels/c' },
    { op: 'add', path: '/metadata/finalizers/-', value: 'x.io/z' },
    { op: 'add', path: '/metadata/finalizers/0', value: 'x.io/first' },
    { op: 'remove', path: '/metadata/ownerReferences/0' },
  ] },
  { name: 'json: escaped pointer segments', live: cm, type: 'json', patch: [
    { op: 'add', path: '/metadata/annotations/example.com~1team', value: 'a' },
    { op: 'add', path: '/data/til~0de', value: 'b' },
    { op: 'remove', path: '/metadata/annotations/example.com~1note' },
  ] },
  { name: 'json: replace of a missing member adds it (kube quirk)', live: cm, type: 'json', patch: [{ op: 'replace', path: '/data/new', value: 'v' }] },
  { name: 'json: test of a whole object ignores key order', live: cm, type: 'json', patch: [{ op: 'test', path: '/data', value: { b: '2', a: '1' } }] },
  { name: 'json: error test fails', live: cm, type: 'json', patch: [{ op: 'test', path: '/data/a', value: '2' }] },
  { name: 'json: error remove missing', live: cm, type: 'json', patch: [{ op: 'remove', path: '/data/x' }] },
  { name: 'json: error add under missing parent', live: cm, type: 'json', patch: [{ op: 'add', path: '/spec/x', value: 1 }] },
  { name: 'json: error index out of range', live: cm, type: 'json', patch: [{ op: 'add', path: '/metadata/finalizers/5', value: 'x' }] },
  { name: 'json: error replace under missing parent', live: cm, type: 'json', patch: [{ op: 'replace', path: '/nope/x', value: 1 }] },
  { name: 'json: error remove out of range', live: cm, type: 'json', patch: [{ op: 'remove', path: '/metadata/finalizers/7' }] },
];

/**
 * Where items land when a merge list gets deletions, additions and reorders while the server holds items the
 * patch does not mention: the cases kubectl apply produces when a controller added list items.
 */
function orderScenarios(): PatchScenario[] {
  const live = { ...cm, metadata: { ...cm.metadata, ownerReferences: ['u1', 'u2', 'u3', 'u4', 'u5'].map((u) => ref(u)), finalizers: ['a', 'b', 'c', 'd'] } };
  const del = (uid: string) => ({ $patch: 'delete', uid });
  const key = (uid: string) => ({ uid });
  const refs: Array<[string, unknown[], unknown[] | undefined]> = [
    ['delete two, add one', [ref('u9'), del('u1'), del('u4')], [key('u2'), key('u9')]],
    ['add before a kept item', [ref('u9'), del('u1')], [key('u9'), key('u3')]],
    ['add between reordered items', [ref('u8'), del('u3')], [key('u5'), key('u1'), key('u8')]],
    ['delete only', [del('u1'), del('u3'), del('u5')], [key('u2'), key('u4')]],
    ['add two before an old one', [ref('u7'), ref('u8')], [key('u7'), key('u8'), key('u1')]],
    ['change and reorder', [ref('u4', 'renamed')], [key('u4'), key('u2')]],
    ['no $setElementOrder', [ref('u7'), del('u2')], undefined],
    ['interleaved additions and deletions', [ref('u9'), ref('u8'), del('u3'), del('u4')], [key('u1'), key('u9'), key('u2'), key('u8')]],
  ];
  const prims: Array<[string, string[], string[], string[]]> = [
    ['add one, delete one', ['x'], ['a'], ['d', 'x', 'b']],
    ['add one first, delete two', ['y'], ['b', 'c'], ['y', 'a']],
    ['append after reorder', ['z'], [], ['b', 'a', 'z']],
  ];
  return [
    ...refs.map(([name, list, order]): PatchScenario => ({
      name: `smp order of ownerReferences: ${name}`,
      live,
      type: 'strategic',
      patch: { metadata: { ownerReferences: list, ...(order ? { '$setElementOrder/ownerReferences': order } : {}) } },
    })),
    ...prims.map(([name, add, remove, order]): PatchScenario => ({
      name: `smp order of finalizers: ${name}`,
      live,
      type: 'strategic',
      patch: { metadata: { finalizers: add, '$deleteFromPrimitiveList/finalizers': remove, '$setElementOrder/finalizers': order } },
    })),
  ];
}
