/**
 * The write authority as a table: every reserved field and system object, written through the generic store by each
 * kind of writer — a workspace's own admin (a tenant), kcp's admin (system:kcp:admin), the shard admin
 * (system:masters, which is also how shards write to each other) and the server itself — with the answer kcp gives.
 * The HTTP paths (each patch type, apply, subresources, virtual workspaces, restore) all end in these store calls;
 * test/e2e/reserved-fields.test.ts drives them over the wire.
 */
import { describe, expect, it } from 'vitest';
import { customResourceTypes } from '../apiextensions/cr-types.js';
import type { CustomResourceDefinition } from '../apiextensions/crd.js';
import { apisCRD } from '../apis/crds.js';
import { builtinResourceTypes } from '../builtin/index.js';
import { GenericStore, type OpContext } from '../registry/generic-store.js';
import type { KubeObject, ResourceType, StrategyContext, WriteGrant } from '../registry/types.js';
import { createMemoryStore } from '../storage/index.js';
import { tenancyResourceType } from '../tenancy/crds.js';
import { annotationTier, labelTier, reservedChange } from './reserved-metadata.js';
import { WriteAuthority } from './write-authority.js';

type Who = 'tenant' | 'kcpAdmin' | 'shardAdmin' | 'system';
const everyone: Who[] = ['tenant', 'kcpAdmin', 'shardAdmin', 'system'];
const systemOnly: Who[] = ['shardAdmin', 'system'];

const principals: Record<Who, StrategyContext['user'] | undefined> = {
  tenant: { username: 'alice', groups: ['tenants', 'system:authenticated'] },
  kcpAdmin: { username: 'kcp-admin', groups: ['system:kcp:admin', 'system:authenticated'] },
  shardAdmin: { username: 'shard-admin', groups: ['system:masters', 'system:authenticated'] },
  system: undefined,
};

const builtins = builtinResourceTypes();
const find = (group: string, resource: string) => builtins.find((t) => t.group === group && t.resource === resource)!;
const types = {
  logicalClusters: find('core.kcp.io', 'logicalclusters'),
  configMaps: find('', 'configmaps'),
  namespaces: find('', 'namespaces'),
  workspaces: tenancyResourceType('workspaces'),
  shards: tenancyResourceType('shards'),
  apiExports: customResourceTypes(apisCRD('apiexports')).find((t) => t.version === 'v1alpha2')!,
  apiBindings: customResourceTypes(apisCRD('apibindings')).find((t) => t.version === 'v1alpha2')!,
  crds: customResourceTypes({
    metadata: { name: 'customresourcedefinitions.apiextensions.k8s.io' },
    spec: {
      group: 'apiextensions.k8s.io',
      scope: 'Cluster',
      names: { plural: 'customresourcedefinitions', singular: 'customresourcedefinition', kind: 'CustomResourceDefinition', listKind: 'CustomResourceDefinitionList' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
    },
    status: { acceptedNames: { plural: 'customresourcedefinitions', kind: 'CustomResourceDefinition' } },
  } as unknown as CustomResourceDefinition)[0]!,
};

const canonical: Record<string, string> = { root: 'root', a: 'root:a' };

/** Cluster `a` (root:a) as the system leaves it once Ready, with a few objects of the kinds the table writes. */
function fixture() {
  const generic = new GenericStore(createMemoryStore(), types.namespaces, { authority: new WriteAuthority({ pathOf: (c) => canonical[c] }) });
  const sys = (rt: ResourceType, cluster = 'a', namespace = ''): OpContext => ({ rt, cluster, namespace });
  const lc = generic.create(sys(types.logicalClusters), {
    apiVersion: 'core.kcp.io/v1alpha1',
    kind: 'LogicalCluster',
    metadata: {
      name: 'cluster',
      finalizers: ['core.kcp.io/logicalcluster-deletion'],
      labels: { 'tenancy.kcp.io/phase': 'Ready' },
      annotations: {
        'kcp.io/path': 'root:a',
        'internal.tenancy.kcp.io/type': 'root:organization',
        'internal.kcpt.dev/apis': 'tenancy.kcp.io',
        'core.kcp.io/shard': 'root',
      },
    },
    spec: { owner: { apiVersion: 'tenancy.kcp.io/v1alpha1', resource: 'workspaces', name: 'a', cluster: 'root', uid: 'u-1' } },
  });
  generic.update(sys(types.logicalClusters), 'cluster', { ...lc, status: { phase: 'Ready', URL: 'https://x/clusters/root:a' } }, { subresource: 'status' });
  generic.create(sys(types.namespaces), { metadata: { name: 'default' } });
  generic.create(sys(types.configMaps, 'a', 'default'), { metadata: { name: 'cm' }, data: { k: 'v' } });
  const exp = generic.create(sys(types.apiExports), { apiVersion: 'apis.kcp.io/v1alpha2', kind: 'APIExport', metadata: { name: 'widgets' }, spec: {} });
  generic.update(sys(types.apiExports), 'widgets', { ...exp, status: { identityHash: 'alice-identity' } }, { subresource: 'status' });
  generic.create(sys(types.workspaces), {
    apiVersion: 'tenancy.kcp.io/v1alpha1',
    kind: 'Workspace',
    metadata: { name: 'child' },
    spec: { type: { name: 'universal', path: 'root' }, cluster: 'c-child', URL: 'https://x/clusters/root:a:child' },
  });
  return generic;
}

interface Row {
  what: string;
  /** Who may make the write; everyone else gets `refused`. */
  allowed: Who[];
  refused?: { code: number; message: string };
  write(generic: GenericStore, ctx: (rt: ResourceType, cluster?: string, namespace?: string) => OpContext): KubeObject | void;
  /** Checked on the stored result of an allowed write. */
  after?(generic: GenericStore): void;
}

const lcName = 'logicalclusters.core.kcp.io "cluster" is forbidden: ';

function patchLC(generic: GenericStore, ctx: OpContext, change: (lc: KubeObject) => KubeObject, subresource?: string) {
  const lc = generic.get(ctx, 'cluster');
  return generic.update(ctx, 'cluster', change(structuredClone(lc)), subresource ? { subresource } : {});
}

const withAnnotation = (key: string, value: string | null) => (o: KubeObject) => {
  const annotations = { ...(o.metadata?.annotations ?? {}) };
  if (value === null) delete annotations[key];
  else annotations[key] = value;
  return { ...o, metadata: { ...o.metadata, annotations } };
};
const withLabel = (key: string, value: string) => (o: KubeObject) => ({ ...o, metadata: { ...o.metadata, labels: { ...o.metadata?.labels, [key]: value } } });

const lcAnnotation = (key: string, value: string | null, allowed = systemOnly, tier = 'system-reserved'): Row => ({
  what: `LogicalCluster annotation ${key} ${value === null ? 'removed' : `= ${value}`}`,
  allowed,
  refused: { code: 403, message: `${lcName}modification of ${tier} annotation: "${key}"` },
  write: (g, ctx) => patchLC(g, ctx(types.logicalClusters), withAnnotation(key, value)),
});

const rows: Row[] = [
  lcAnnotation('kcp.io/path', 'root:prov'),
  lcAnnotation('kcp.io/path', null),
  lcAnnotation('internal.tenancy.kcp.io/type', 'root:root'),
  lcAnnotation('internal.kcpt.dev/apis', 'tenancy.kcp.io,shards.core.kcp.io'),
  lcAnnotation('core.kcp.io/shard', 'shard-1'),
  lcAnnotation('some.future.kcp.io/thing', 'x'),
  lcAnnotation('core.kcp.io/max-total-objects', '1000000', ['kcpAdmin', 'shardAdmin', 'system'], 'admin-reserved'),
  lcAnnotation('authorization.kcp.io/required-groups', 'tenants', everyone),
  lcAnnotation('experimental.tenancy.kcp.io/owner', '{"username":"alice"}', everyone),
  lcAnnotation('example.com/note', 'mine', everyone),
  {
    what: 'LogicalCluster label tenancy.kcp.io/phase',
    allowed: systemOnly,
    refused: { code: 403, message: `${lcName}modification of system-reserved label: "tenancy.kcp.io/phase"` },
    write: (g, ctx) => patchLC(g, ctx(types.logicalClusters), withLabel('tenancy.kcp.io/phase', 'Initializing')),
  },
  {
    what: 'LogicalCluster initializer label',
    allowed: systemOnly,
    refused: { code: 403, message: `${lcName}modification of system-reserved label: "initializer.internal.kcp.io/abc"` },
    write: (g, ctx) => patchLC(g, ctx(types.logicalClusters), withLabel('initializer.internal.kcp.io/abc', 'abc')),
  },
  {
    what: 'LogicalCluster spec.initializers',
    allowed: systemOnly,
    refused: { code: 403, message: `${lcName}spec.initializers is immutable` },
    write: (g, ctx) => patchLC(g, ctx(types.logicalClusters), (lc) => ({ ...lc, spec: { ...(lc.spec as object), initializers: ['root:b:provision'] } })),
  },
  {
    what: 'LogicalCluster spec.owner',
    allowed: systemOnly,
    refused: { code: 403, message: `${lcName}spec.owner can only be changed by system privileged users` },
    write: (g, ctx) =>
      patchLC(g, ctx(types.logicalClusters), (lc) => ({ ...lc, spec: { ...(lc.spec as object), owner: { apiVersion: 'tenancy.kcp.io/v1alpha1', resource: 'workspaces', name: 'team', cluster: 'root', uid: 'u-2' } } })),
  },
  {
    what: 'LogicalCluster spec.directlyDeletable',
    allowed: systemOnly,
    refused: { code: 403, message: `${lcName}spec.directlyDeletable can only be changed by system privileged users` },
    write: (g, ctx) => patchLC(g, ctx(types.logicalClusters), (lc) => ({ ...lc, spec: { ...(lc.spec as object), directlyDeletable: true } })),
  },
  {
    what: 'LogicalCluster status back to Initializing, waiting on another tenant’s initializer',
    allowed: systemOnly,
    refused: { code: 403, message: `${lcName}status.initializers do not equal spec.initializers` },
    write: (g, ctx) => patchLC(g, ctx(types.logicalClusters), (lc) => ({ ...lc, status: { ...(lc.status as object), phase: 'Initializing', initializers: ['root:b:provision'] } }), 'status'),
  },
  {
    what: 'LogicalCluster status phase backwards',
    allowed: systemOnly,
    refused: { code: 403, message: `${lcName}cannot transition from "Ready" to "Scheduling"` },
    write: (g, ctx) => patchLC(g, ctx(types.logicalClusters), (lc) => ({ ...lc, status: { ...(lc.status as object), phase: 'Scheduling' } }), 'status'),
  },
  {
    what: 'LogicalCluster status.URL',
    allowed: systemOnly,
    refused: { code: 403, message: `${lcName}status.URL can only be changed by system privileged users` },
    write: (g, ctx) => patchLC(g, ctx(types.logicalClusters), (lc) => ({ ...lc, status: { ...(lc.status as object), URL: 'https://evil/clusters/root:b' } }), 'status'),
  },
  {
    what: 'LogicalCluster deletion finalizer removed',
    allowed: systemOnly,
    refused: { code: 403, message: `${lcName}finalizer core.kcp.io/logicalcluster-deletion is required` },
    write: (g, ctx) => patchLC(g, ctx(types.logicalClusters), (lc) => ({ ...lc, metadata: { ...lc.metadata, finalizers: [] } })),
  },
  {
    what: 'LogicalCluster created',
    allowed: systemOnly,
    refused: { code: 403, message: `${lcName}LogicalCluster cannot be created` },
    write: (g, ctx) => g.create(ctx(types.logicalClusters, 'fresh'), { apiVersion: 'core.kcp.io/v1alpha1', kind: 'LogicalCluster', metadata: { name: 'cluster' } }),
  },
  {
    what: 'LogicalCluster deleted (dry run)',
    allowed: systemOnly,
    refused: { code: 403, message: `${lcName}LogicalCluster cannot be deleted` },
    write: (g, ctx) => void g.delete(ctx(types.logicalClusters), 'cluster', { dryRun: true }),
  },
  {
    what: 'APIExport status.identityHash',
    allowed: systemOnly,
    refused: { code: 403, message: 'apiexports.apis.kcp.io "widgets" is forbidden: status update not permitted' },
    write: (g, ctx) => {
      const exp = g.get(ctx(types.apiExports), 'widgets');
      return g.update(ctx(types.apiExports), 'widgets', { ...exp, status: { identityHash: 'bobs-identity' } }, { subresource: 'status' });
    },
  },
  {
    what: 'APIExport created with a forged kcp.io/path (stamped with the real one)',
    allowed: everyone,
    write: (g, ctx) => g.create(ctx(types.apiExports), { apiVersion: 'apis.kcp.io/v1alpha2', kind: 'APIExport', metadata: { name: 'forged', annotations: { 'kcp.io/path': 'root:prov' } }, spec: {} }),
    after: (g) => expect(g.get({ rt: types.apiExports, cluster: 'a', namespace: '' }, 'forged').metadata?.annotations?.['kcp.io/path']).toBe('root:a'),
  },
  {
    what: 'APIExport kcp.io/path changed (stamped back)',
    allowed: everyone,
    write: (g, ctx) => {
      const exp = g.get(ctx(types.apiExports), 'widgets');
      return g.update(ctx(types.apiExports), 'widgets', withAnnotation('kcp.io/path', 'root:prov')(exp));
    },
    after: (g) => expect(g.get({ rt: types.apiExports, cluster: 'a', namespace: '' }, 'widgets').metadata?.annotations?.['kcp.io/path']).toBe('root:a'),
  },
  {
    what: 'APIBinding created: its path stamped',
    allowed: everyone,
    write: (g, ctx) =>
      g.create(ctx(types.apiBindings), { apiVersion: 'apis.kcp.io/v1alpha2', kind: 'APIBinding', metadata: { name: 'b' }, spec: { reference: { export: { name: 'widgets' } } } }),
    after: (g) => expect(g.get({ rt: types.apiBindings, cluster: 'a', namespace: '' }, 'b').metadata?.annotations?.['kcp.io/path']).toBe('root:a'),
  },
  {
    what: 'ConfigMap carrying kcp.io/path (stamped with its workspace’s)',
    allowed: everyone,
    write: (g, ctx) => g.create(ctx(types.configMaps, 'a', 'default'), { metadata: { name: 'p', annotations: { 'kcp.io/path': 'root:prov' } } }),
    after: (g) => expect(g.get({ rt: types.configMaps, cluster: 'a', namespace: 'default' }, 'p').metadata?.annotations?.['kcp.io/path']).toBe('root:a'),
  },
  {
    what: 'ConfigMap with a system label',
    allowed: systemOnly,
    refused: { code: 403, message: 'configmaps "cm" is forbidden: modification of system-reserved label: "tenancy.kcp.io/phase"' },
    write: (g, ctx) => g.update(ctx(types.configMaps, 'a', 'default'), 'cm', withLabel('tenancy.kcp.io/phase', 'Ready')(g.get(ctx(types.configMaps, 'a', 'default'), 'cm'))),
  },
  {
    what: 'Workspace created with the scheduler’s cluster annotation',
    allowed: systemOnly,
    refused: { code: 403, message: 'workspaces.tenancy.kcp.io "w" is forbidden: modification of system-reserved annotation: "internal.tenancy.kcp.io/cluster"' },
    write: (g, ctx) =>
      g.create(ctx(types.workspaces), {
        apiVersion: 'tenancy.kcp.io/v1alpha1',
        kind: 'Workspace',
        metadata: { name: 'w', annotations: { 'internal.tenancy.kcp.io/cluster': 'bobs-cluster' } },
        spec: { type: { name: 'universal', path: 'root' } },
      }),
  },
  {
    what: 'Workspace created with spec.cluster',
    allowed: systemOnly,
    refused: { code: 403, message: 'workspaces.tenancy.kcp.io "w" is forbidden: spec.Cluster can only be set by system privileged users' },
    write: (g, ctx) =>
      g.create(ctx(types.workspaces), { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name: 'w' }, spec: { type: { name: 'universal', path: 'root' }, cluster: 'bobs-cluster' } }),
  },
  {
    what: 'Workspace spec.URL changed',
    allowed: systemOnly,
    refused: { code: 403, message: 'workspaces.tenancy.kcp.io "child" is forbidden: spec.URL can only be changed by system privileged users' },
    write: (g, ctx) => {
      const ws = g.get(ctx(types.workspaces), 'child');
      return g.update(ctx(types.workspaces), 'child', { ...ws, spec: { ...(ws.spec as object), URL: 'https://evil/clusters/root:b' } });
    },
  },
  {
    what: 'Shard created outside root',
    allowed: [],
    refused: { code: 403, message: 'shards.core.kcp.io "evil" is forbidden: Shards exist only in the root workspace' },
    write: (g, ctx) => g.create(ctx(types.shards), { apiVersion: 'core.kcp.io/v1alpha1', kind: 'Shard', metadata: { name: 'evil' }, spec: { baseURL: 'https://evil:6443' } }),
  },
  {
    what: 'Shard created in root',
    allowed: everyone,
    write: (g, ctx) => g.create(ctx(types.shards, 'root'), { apiVersion: 'core.kcp.io/v1alpha1', kind: 'Shard', metadata: { name: 'ok' }, spec: { baseURL: 'https://ok:6443' } }),
  },
  {
    what: 'CRD in kcp’s own API group',
    allowed: systemOnly,
    refused: { code: 403, message: 'customresourcedefinitions.apiextensions.k8s.io "apibindings.apis.kcp.io" is forbidden: apis.kcp.io is a reserved group' },
    write: (g, ctx) =>
      g.create(ctx(types.crds), { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'apibindings.apis.kcp.io' }, spec: { group: 'apis.kcp.io' } }),
  },
];

function attempt(row: Row, who: Who): { ok: true } | { ok: false; code: number; message: string } {
  const generic = fixture();
  const ctx = (rt: ResourceType, cluster = 'a', namespace = ''): OpContext => ({ rt, cluster, namespace, ...(principals[who] ? { user: principals[who] } : {}) });
  try {
    row.write(generic, ctx);
    row.after?.(generic);
    return { ok: true };
  } catch (err) {
    const e = err as { code?: number; message: string };
    if (e.code === undefined) throw err;
    return { ok: false, code: e.code, message: e.message };
  }
}

describe('the write authority: each reserved field and system object, by each kind of writer', () => {
  for (const row of rows) {
    for (const who of everyone) {
      const allowed = row.allowed.includes(who);
      it(`${row.what}: ${who} ${allowed ? 'may' : 'may not'}`, () => {
        const outcome = attempt(row, who);
        if (allowed) expect(outcome).toEqual({ ok: true });
        else expect(outcome).toEqual({ ok: false, ...row.refused });
      });
    }
  }
});

describe('a lifecycle virtual workspace’s grant', () => {
  const grant = (name: string): WriteGrant => ({ lifecycle: { list: 'initializers', name } });
  const initializing = () => {
    const generic = fixture();
    const sys: OpContext = { rt: types.logicalClusters, cluster: 'a', namespace: '' };
    patchLC(generic, sys, (lc) => ({ ...lc, status: { ...(lc.status as object), phase: 'Initializing', initializers: ['root:a:mine', 'root:b:theirs'] } }), 'status');
    return { generic, ctx: { ...sys, user: principals.tenant, grant: grant('root:a:mine') } };
  };

  it('lets the initializer remove itself', () => {
    const { generic, ctx } = initializing();
    const after = patchLC(generic, ctx, (lc) => ({ ...lc, status: { ...(lc.status as object), initializers: ['root:b:theirs'] } }), 'status');
    expect((after.status as { initializers: string[] }).initializers).toEqual(['root:b:theirs']);
  });

  it('refuses anything else: another initializer swapped in, the phase, the main resource', () => {
    const { generic, ctx } = initializing();
    const swap = () => patchLC(generic, ctx, (lc) => ({ ...lc, status: { ...(lc.status as object), initializers: ['root:c:other'] } }), 'status');
    expect(swap).toThrow('Workspace.tenancy.kcp.io "cluster" is invalid: status.initializers: Invalid value: []string{"root:c:other"}: only removing the "root:a:mine" initializer is supported');
    const ready = () => patchLC(generic, ctx, (lc) => ({ ...lc, status: { ...(lc.status as object), phase: 'Ready', initializers: ['root:b:theirs'] } }), 'status');
    expect(ready).toThrow('only removing the "root:a:mine" initializer is supported');
    expect(() => patchLC(generic, ctx, withAnnotation('kcp.io/path', 'root:prov'))).toThrow('modification of system-reserved annotation: "kcp.io/path"');
  });
});

describe('reserved metadata keys (kcp’s tiers)', () => {
  it('classifies by domain and kcp’s exceptions', () => {
    expect(['kcp.io/path', 'kcp.io', 'internal.tenancy.kcp.io/cluster', 'internal.kcpt.dev/apis', 'new.kcp.io/x'].map(annotationTier)).toEqual(Array(5).fill('system'));
    expect(['core.kcp.io/max-total-objects', 'experimental.core.kcp.io/unschedulable'].map(annotationTier)).toEqual(['admin', 'admin']);
    expect(['kcp.io/cluster', 'authorization.kcp.io/required-groups', 'extra.apis.kcp.io/x', 'mykcp.io/x', 'example.com/kcp.io', 'peers.kcpt.dev/x', 'kcpt.dev/x'].map(annotationTier)).toEqual(Array(7).fill('tenant'));
    expect(['tenancy.kcp.io/phase', 'kcp.io/cluster', 'internal.apis.kcp.io/other', 'internal.kcpt.dev/apis'].map(labelTier)).toEqual(Array(4).fill('system'));
    expect(['internal.apis.kcp.io/export', 'claimed.internal.apis.kcp.io/abc', 'app.kubernetes.io/name', 'peers.kcpt.dev/wildcard'].map(labelTier)).toEqual(Array(4).fill('tenant'));
  });

  it('finds a reserved key added, changed or removed, never one kept as it was, the old object’s keys first', () => {
    const change = (after?: Record<string, string>, before?: Record<string, string>, skip?: (key: string) => boolean) =>
      reservedChange(after, before, annotationTier, 'tenant', skip);
    const system = (key: string) => ({ key, tier: 'system' });
    expect(change({ 'kcp.io/path': 'root:a', a: '1' })).toEqual(system('kcp.io/path'));
    expect(change({ 'kcp.io/path': 'root:b' }, { 'kcp.io/path': 'root:a' })).toEqual(system('kcp.io/path'));
    expect(change({}, { 'kcp.io/path': 'root:a' })).toEqual(system('kcp.io/path'));
    expect(change(undefined, { 'kcp.io/path': 'root:a' })).toEqual(system('kcp.io/path'));
    expect(change({ 'kcp.io/path': 'root:a', a: '2' }, { 'kcp.io/path': 'root:a', a: '1' })).toBeUndefined();
    expect(change({ 'kcp.io/path': 'root:b' }, {}, (key) => key === 'kcp.io/path')).toBeUndefined();
    // A tenant key is nobody's concern; `constructor` is a key like any other, not an inherited member.
    expect(change({ constructor: 'x', 'example.com/a': 'b' }, { toString: 'y' })).toBeUndefined();
    // Several at once: a removed or changed key of the old object is the one named, before any added key.
    expect(change({ 'new.kcp.io/added': '1', 'kcp.io/path': 'root:b' }, { 'kcp.io/path': 'root:a' })).toEqual(system('kcp.io/path'));
    expect(change({ 'new.kcp.io/added': '1' }, { 'internal.kcpt.dev/old': '1' })).toEqual(system('internal.kcpt.dev/old'));
  });
});
