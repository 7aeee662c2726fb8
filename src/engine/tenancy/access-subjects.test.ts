import { describe, expect, it } from 'vitest';
import { createMemoryStore, type MemoryStore } from '../storage/memory-store.js';
import type { KubeObject } from '../registry/types.js';
import { accessSubjectsWriter, ACCESS_SUBJECTS_PREFIX, backfillAccessSubjects, candidateClusters } from './access-subjects.js';
import { CLUSTER_NAME_EXTRA } from '../auth/foreign-identity.js';

const crbKey = (cluster: string, name: string) => `/registry/rbac.authorization.k8s.io/clusterrolebindings/${cluster}/${name}`;
const binding = (name: string, subjects: object[]): KubeObject =>
  ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name }, subjects }) as KubeObject;

function write(store: MemoryStore, key: string, before: KubeObject | undefined, after: KubeObject | undefined) {
  const ops = accessSubjectsWriter()(key, before, after);
  if (after) ops.push(before ? { type: 'update', key, value: JSON.stringify(after) } : { type: 'create', key, value: JSON.stringify(after) });
  else ops.push({ type: 'delete', key });
  store.commit(ops);
}

const rows = (store: MemoryStore) => store.list(ACCESS_SUBJECTS_PREFIX).items.map((kv) => decodeURIComponent(kv.key.slice(ACCESS_SUBJECTS_PREFIX.length)));

describe('access subjects index', () => {
  it('follows a binding through create, subject changes and delete', () => {
    const store = createMemoryStore();
    const a = binding('a', [{ kind: 'User', name: 'alice' }, { kind: 'Group', name: 'team/1' }]);
    write(store, crbKey('c1', 'a'), undefined, a);
    expect(rows(store)).toEqual(['g:team/1/c1/a', 'u:alice/c1/a']);
    const b = binding('a', [{ kind: 'User', name: 'bob' }, { kind: 'Group', name: 'team/1' }]);
    write(store, crbKey('c1', 'a'), a, b);
    expect(rows(store)).toEqual(['g:team/1/c1/a', 'u:bob/c1/a']);
    write(store, crbKey('c1', 'a'), b, undefined);
    expect(rows(store)).toEqual([]);
  });

  it('ignores every other key', () => {
    expect(accessSubjectsWriter()('/registry/core/configmaps/c1/default/x', undefined, binding('x', [{ kind: 'User', name: 'a' }]))).toEqual([]);
  });

  it('finds the clusters binding a user, their groups, and a service account only in its own cluster', () => {
    const store = createMemoryStore();
    write(store, crbKey('c1', 'x'), undefined, binding('x', [{ kind: 'User', name: 'alice' }]));
    write(store, crbKey('c2', 'x'), undefined, binding('x', [{ kind: 'Group', name: 'devs' }]));
    write(store, crbKey('c3', 'x'), undefined, binding('x', [{ kind: 'User', name: 'alicia' }]));
    write(store, crbKey('c4', 'x'), undefined, binding('x', [{ kind: 'ServiceAccount', namespace: 'default', name: 'bot' }]));
    write(store, crbKey('c5', 'x'), undefined, binding('x', [{ kind: 'ServiceAccount', namespace: 'default', name: 'bot' }]));
    expect([...candidateClusters(store, { username: 'alice', groups: ['devs', 'system:authenticated'] })].sort()).toEqual(['c1', 'c2']);
    const bot = { username: 'system:serviceaccount:default:bot', groups: ['system:serviceaccounts'], extra: { [CLUSTER_NAME_EXTRA]: ['c4'] } };
    expect([...candidateClusters(store, bot)].sort()).toEqual(['c4']);
    // Elsewhere it is its origin's group: a binding of system:cluster:c4 makes that cluster a candidate.
    write(store, crbKey('c6', 'x'), undefined, binding('x', [{ kind: 'Group', name: 'system:cluster:c4' }]));
    expect([...candidateClusters(store, bot)].sort()).toEqual(['c4', 'c6']);
  });

  it('backfills bindings stored before the index existed, once', () => {
    const store = createMemoryStore();
    store.commit([{ type: 'create', key: crbKey('c1', 'old'), value: JSON.stringify(binding('old', [{ kind: 'User', name: 'carol' }])) }]);
    backfillAccessSubjects(store);
    expect(rows(store)).toEqual(['u:carol/c1/old']);
    const revision = store.currentRevision();
    backfillAccessSubjects(store);
    expect(store.currentRevision()).toBe(revision);
  });
});
