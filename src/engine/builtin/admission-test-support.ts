/**
 * Test wiring for admission over the built-in types (so it sits on builtin's floor, which sees both): a memory
 * store, the built-in types plus two custom-resource-like types (namespaced widgets, cluster-scoped gadgets, both in
 * example.com), the admission chain in the generic store, and helpers to make a Ready LogicalCluster and objects in
 * it.
 */
import { builtinResourceTypes } from './index.js';
import { StaticCatalog } from '../registry/catalog.js';
import { GenericStore, type OpContext } from '../registry/generic-store.js';
import type { KubeObject, ResourceType } from '../registry/types.js';
import { createMemoryStore } from '../storage/index.js';
import { buildAdmission } from '../admission/index.js';
import { WriteAuthority } from '../admission/write-authority.js';

function customType(resource: string, kind: string, namespaced: boolean): ResourceType {
  return {
    group: 'example.com',
    version: 'v1',
    resource,
    singular: kind.toLowerCase(),
    kind,
    listKind: `${kind}List`,
    namespaced,
    verbs: ['create', 'delete', 'get', 'list'],
    strategy: {},
    storagePrefix: `example.com/${resource}`,
    storageVersion: 'v1',
    isCustomResource: true,
  };
}

export function admissionFixture(opts: { defaultLimit?: number } = {}) {
  const store = createMemoryStore();
  const builtins = builtinResourceTypes();
  const widgets = customType('widgets', 'Widget', true);
  const gadgets = customType('gadgets', 'Gadget', false);
  const catalog = new StaticCatalog([...builtins, widgets, gadgets], 'test');
  const type = (group: string, resource: string) => builtins.find((t) => t.group === group && t.resource === resource)!;
  const namespaces = type('', 'namespaces');
  const { chain, quotaUsage, indexWriters } = buildAdmission({
    store,
    builtinTypes: builtins,
    catalogFor: () => catalog,
    logicalClusterTotalObjectLimit: opts.defaultLimit ?? 0,
  });
  const generic = new GenericStore(store, namespaces, { authority: new WriteAuthority(), admission: chain, indexWriters });
  const types = {
    namespaces,
    configMaps: type('', 'configmaps'),
    secrets: type('', 'secrets'),
    events: type('', 'events'),
    eventsV1: type('events.k8s.io', 'events'),
    quotas: type('', 'resourcequotas'),
    logicalClusters: type('core.kcp.io', 'logicalclusters'),
    clusterRoleBindings: type('rbac.authorization.k8s.io', 'clusterrolebindings'),
    widgets,
    gadgets,
  };
  const ctx = (rt: ResourceType, cluster: string, namespace = ''): OpContext => ({ rt, cluster, namespace });

  /** A LogicalCluster (phase Ready unless told otherwise) and its namespaces. */
  const cluster = (name: string, o: { annotations?: Record<string, string>; phase?: string; namespaces?: string[] } = {}) => {
    const lc = generic.create(ctx(types.logicalClusters, name), {
      apiVersion: 'core.kcp.io/v1alpha1',
      kind: 'LogicalCluster',
      metadata: { name: 'cluster', annotations: o.annotations },
    });
    generic.update(ctx(types.logicalClusters, name), 'cluster', { ...lc, status: { phase: o.phase ?? 'Ready' } }, { subresource: 'status' });
    for (const ns of o.namespaces ?? ['default']) generic.create(ctx(namespaces, name), { metadata: { name: ns } });
  };

  const annotate = (name: string, annotations: Record<string, string>) => {
    const lc = generic.get(ctx(types.logicalClusters, name), 'cluster');
    generic.update(ctx(types.logicalClusters, name), 'cluster', { ...lc, metadata: { ...lc.metadata, annotations } });
  };

  const configMap = (clusterName: string, namespace: string, name: string, dryRun = false): KubeObject =>
    generic.create(ctx(types.configMaps, clusterName, namespace), { metadata: { name } }, { dryRun });

  return { store, generic, types, ctx, cluster, annotate, configMap, quotaUsage, catalog };
}

/** The StatusError a call throws (fails the test when it does not throw). */
export function thrown(fn: () => unknown): { code: number; reason: string; message: string; details?: unknown } {
  try {
    fn();
  } catch (err) {
    return err as { code: number; reason: string; message: string; details?: unknown };
  }
  throw new Error('expected the call to throw');
}
