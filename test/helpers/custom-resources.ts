/**
 * Custom-resource pieces shared by the informer and wildcard suites: a CRD manifest, KubeConfigs for a logical
 * cluster (or `*`) loaded from the admin kubeconfig, and both @kubernetes/client-node lines behind one type (2.x
 * aborts idle watches after 30 s; 1.x only reconnects when the server ends a stream).
 */
import * as clientNode1 from '@kubernetes/client-node';
import * as clientNode2 from 'client-node-2';
import { until } from './eventually.js';
import type { TestServer } from './server.js';

/** Both lines share the API surface the suites use; they are typed as the 1.x module. */
export type ClientNode = typeof clientNode1;
export const clientLines: { name: string; lib: ClientNode }[] = [
  { name: 'client-node 1.x', lib: clientNode1 },
  { name: 'client-node 2.x', lib: clientNode2 as unknown as ClientNode },
];

export interface CRDVersionSpec {
  name: string;
  storage: boolean;
  served?: boolean;
  /** Properties of `spec` (default: `size: integer`). */
  specProperties?: Record<string, unknown>;
}

/** A namespaced CRD `<plural>.<group>` (kind from `kind`) whose versions all have a status subresource. */
export function crdManifest(group: string, plural: string, kind: string, versions: CRDVersionSpec[], scope = 'Namespaced') {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope,
      names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
      versions: versions.map((v) => ({
        name: v.name,
        served: v.served ?? true,
        storage: v.storage,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: { type: 'object', properties: v.specProperties ?? { size: { type: 'integer' } } },
              status: {
                type: 'object',
                properties: { observedGeneration: { type: 'integer' }, seenSize: { type: 'integer' } },
              },
            },
          },
        },
      })),
    },
  };
}

/**
 * The admin kubeconfig as a user loads it, pointed at `/clusters/<cluster>` (`*` for the wildcard) as `user`
 * (kcp-admin, or shard-admin for system:masters).
 */
export function kubeConfigFor(lib: ClientNode, server: TestServer, cluster: string, user = 'kcp-admin') {
  const kc = new lib.KubeConfig();
  kc.loadFromFile(server.kubeconfig);
  const root = kc.getCluster('root')!;
  const name = `e2e-${cluster === '*' ? 'wildcard' : cluster}-${user}`;
  kc.addCluster({ ...root, name, server: `${server.url}/clusters/${cluster}` });
  kc.addContext({ name, cluster: name, user });
  kc.setCurrentContext(name);
  return kc;
}

/** Creates a CRD in the cluster `kc` points at and waits until it is Established. */
export async function createCRD(lib: ClientNode, kc: clientNode1.KubeConfig, manifest: ReturnType<typeof crdManifest>) {
  const api = kc.makeApiClient(lib.ApiextensionsV1Api);
  await api.createCustomResourceDefinition({ body: manifest as clientNode1.V1CustomResourceDefinition });
  await until(async () => {
    const crd = await api.readCustomResourceDefinition({ name: manifest.metadata.name });
    return crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') ?? false;
  }, `CRD ${manifest.metadata.name} Established`);
}

/** Deletes a CRD and waits until it is gone (its objects are deleted first). */
export async function deleteCRD(lib: ClientNode, kc: clientNode1.KubeConfig, name: string) {
  const api = kc.makeApiClient(lib.ApiextensionsV1Api);
  await api.deleteCustomResourceDefinition({ name });
  await until(
    () => api.readCustomResourceDefinition({ name }).then(() => false, (err: { code?: number }) => err.code === 404),
    `CRD ${name} gone`,
  );
}

/** The HTTP status of a client-node failure (ApiException.code, or a watch error's statusCode). */
export function statusOf(err: unknown): number | undefined {
  const e = err as { code?: unknown; statusCode?: unknown } | undefined;
  if (typeof e?.code === 'number') return e.code;
  if (typeof e?.statusCode === 'number') return e.statusCode;
  return undefined;
}

/** stop() aborts the open watch and client-node reports that as an error; it is ours, not the server's. */
export function isOwnAbort(err: unknown): boolean {
  return (err as { name?: string } | undefined)?.name === 'AbortError';
}
