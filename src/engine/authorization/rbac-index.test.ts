/** The compiled-policy cache: what it keeps, when it lets go, and that an RBAC write is never answered from it. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMemoryStore } from '../storage/index.js';
import { IDLE_MINUTES, MAX_COMPILED_CLUSTERS, RbacIndexes } from './rbac-index.js';

const role = (name: string, verbs: string[]) =>
  JSON.stringify({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs }] });

afterEach(() => vi.useRealTimers());

describe('RbacIndexes', () => {
  it('answers from the compiled policy until the cluster’s RBAC changes, and never mixes clusters', () => {
    const store = createMemoryStore();
    const indexes = new RbacIndexes(store);
    indexes.start();
    try {
      store.commit([{ type: 'create', key: '/registry/rbac.authorization.k8s.io/clusterroles/a/reader', value: role('reader', ['get']) }]);
      const a = indexes.policy('a');
      expect(indexes.policy('a')).toBe(a);
      expect(indexes.policy('b').clusterRoles.size).toBe(0);
      expect(a.clusterRoles.get('reader')?.[0]?.verbs).toEqual(['get']);
      // A write to a's RBAC is seen by the next question, b's compiled policy is untouched.
      const b = indexes.policy('b');
      store.commit([{ type: 'update', key: '/registry/rbac.authorization.k8s.io/clusterroles/a/reader', value: role('reader', ['get', 'list']) }]);
      expect(indexes.policy('a')).not.toBe(a);
      expect(indexes.policy('a').clusterRoles.get('reader')?.[0]?.verbs).toEqual(['get', 'list']);
      expect(indexes.policy('b')).toBe(b);
    } finally {
      indexes.stop();
    }
  });

  it('drops a policy nobody asked for in more than the idle minutes, on the minute’s sweep, and keeps one in use', () => {
    vi.useFakeTimers();
    const indexes = new RbacIndexes(createMemoryStore());
    indexes.start();
    try {
      const idle = indexes.policy('idle');
      const used = indexes.policy('used');
      for (let minute = 1; minute <= IDLE_MINUTES; minute++) {
        vi.advanceTimersByTime(60_000);
        indexes.policy('used');
      }
      expect(indexes.size).toBe(2);
      vi.advanceTimersByTime(60_000);
      expect(indexes.size).toBe(1);
      expect(indexes.policy('used')).toBe(used);
      expect(indexes.policy('idle')).not.toBe(idle);
    } finally {
      indexes.stop();
    }
  });

  it('holds at most its bound of clusters: past it the oldest compiled goes, and is compiled again when asked', () => {
    const indexes = new RbacIndexes(createMemoryStore());
    const first = indexes.policy('c0');
    for (let i = 1; i <= MAX_COMPILED_CLUSTERS; i++) indexes.policy(`c${i}`);
    expect(indexes.size).toBe(MAX_COMPILED_CLUSTERS);
    const last = indexes.policy(`c${MAX_COMPILED_CLUSTERS}`);
    expect(indexes.policy(`c${MAX_COMPILED_CLUSTERS}`)).toBe(last);
    expect(indexes.policy('c0')).not.toBe(first);
    expect(indexes.size).toBe(MAX_COMPILED_CLUSTERS);
  });
});
