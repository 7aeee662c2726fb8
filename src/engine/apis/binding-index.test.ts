import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../storage/index.js';
import type { KubeObject } from '../registry/types.js';
import { BindingIndex, bindingIndexWriter } from './binding-index.js';
import { pendingKeys, pendingWriter } from './pending.js';

const key = (cluster: string, name: string) => `/registry/apis.kcp.io/apibindings/${cluster}/${name}`;

function binding(phase: '' | 'Bound', extra: Partial<KubeObject> = {}): KubeObject {
  return {
    apiVersion: 'apis.kcp.io/v1alpha2',
    kind: 'APIBinding',
    metadata: { name: 'widgets' },
    spec: {
      reference: { export: { path: 'root:provider', name: 'widgets' } },
      permissionClaims: [
        { group: '', resource: 'configmaps', verbs: ['*'], selector: { matchAll: true }, state: 'Accepted' },
        { group: '', resource: 'secrets', verbs: ['*'], selector: { matchAll: true }, state: 'Rejected' },
      ],
    },
    status: {
      phase,
      ...(phase === 'Bound'
        ? {
            apiExportClusterName: 'prov',
            boundResources: [{ group: 'example.com', resource: 'widgets', schema: { name: 'v1.widgets.example.com', UID: 'u', identityHash: 'h' }, storageVersions: ['v1'] }],
          }
        : {}),
    },
    ...extra,
  };
}

/** Writes the rows a writer asks for, as the generic store does in the object's commit. */
function write(store: ReturnType<typeof createMemoryStore>, k: string, before: KubeObject | undefined, after: KubeObject | undefined) {
  const ops = [...bindingIndexWriter()(k, before, after), ...pendingWriter()(k, before, after)];
  if (ops.length > 0) store.commit(ops);
}

describe('the bindings-per-export index', () => {
  it('lists the Bound bindings of an export with their resources and accepted claims, and forgets deleted ones', () => {
    const store = createMemoryStore();
    const index = new BindingIndex(store);
    const binding1 = binding('');
    write(store, key('c1', 'widgets'), undefined, binding1);
    expect(index.bindingsOf('prov', 'widgets')).toEqual([]);
    expect(pendingKeys((p) => store.list(p).items, 'apibindings')).toEqual(['c1|widgets']);

    const bound = binding('Bound');
    write(store, key('c1', 'widgets'), binding1, bound);
    write(store, key('c2', 'widgets'), undefined, bound);
    const rows = index.bindingsOf('prov', 'widgets');
    expect(rows.map((r) => `${r.cluster}/${r.binding}`)).toEqual(['c1/widgets', 'c2/widgets']);
    expect(rows[0]!.resources[0]!.schema.identityHash).toBe('h');
    expect(rows[0]!.acceptedClaims.map((c) => c.resource)).toEqual(['configmaps']);
    expect(pendingKeys((p) => store.list(p).items, 'apibindings')).toEqual([]);

    const deleting = { ...bound, metadata: { ...bound.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' } };
    write(store, key('c1', 'widgets'), bound, deleting);
    expect(index.bindingsOf('prov', 'widgets').map((r) => r.cluster)).toEqual(['c2']);
    expect(pendingKeys((p) => store.list(p).items, 'apibindings')).toEqual(['c1|widgets']);
    write(store, key('c1', 'widgets'), deleting, undefined);
    expect(pendingKeys((p) => store.list(p).items, 'apibindings')).toEqual([]);
  });
});

describe('rollout rows', () => {
  const exportKey = '/registry/apis.kcp.io/apiexports/prov/widgets';
  const exp = (schema: string, identityHash?: string): KubeObject => ({
    apiVersion: 'apis.kcp.io/v1alpha2',
    kind: 'APIExport',
    metadata: { name: 'widgets' },
    spec: { resources: [{ name: 'widgets', group: 'example.com', schema }] },
    ...(identityHash ? { status: { identityHash } } : {}),
  });

  it('opens when an export’s resources change (not on identity or other writes) and closes when it is deleted', () => {
    const store = createMemoryStore();
    const writer = pendingWriter(store);
    const step = (before: KubeObject | undefined, after: KubeObject | undefined) => {
      const ops = writer(exportKey, before, after);
      if (ops.length > 0) store.commit(ops);
    };
    const rollouts = () => pendingKeys((p) => store.list(p).items, 'rollouts');
    step(undefined, exp('v1.widgets.example.com'));
    expect(pendingKeys((p) => store.list(p).items, 'apiexports')).toEqual(['prov|widgets']);
    step(exp('v1.widgets.example.com'), exp('v1.widgets.example.com', 'h'));
    expect(rollouts()).toEqual([]);
    expect(pendingKeys((p) => store.list(p).items, 'apiexports')).toEqual([]);
    step(exp('v1.widgets.example.com', 'h'), exp('v2.widgets.example.com', 'h'));
    step(exp('v2.widgets.example.com', 'h'), exp('v3.widgets.example.com', 'h'));
    expect(rollouts()).toEqual(['prov|widgets']);
    step(exp('v3.widgets.example.com', 'h'), undefined);
    expect(rollouts()).toEqual([]);
  });
});
