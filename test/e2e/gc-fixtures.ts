/** Owners and dependents with the real kubectl, for the garbage-collection files. */
import { clusterArgs, kubectlBackground, type ClusterKubectl } from '../helpers/kubectl.js';
import type { E2E } from '../helpers/suite.js';

export interface Ref {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  blockOwnerDeletion?: boolean;
}

/** Helpers bound to one logical cluster, one namespace and one kubectl binary. */
export function ownedObjects(e2e: E2E, cluster: string, ns: string, opts: { binary?: string; cacheDir?: string } = {}) {
  const env = opts.cacheDir ? { KUBECACHEDIR: opts.cacheDir } : undefined;
  const k: ClusterKubectl = (args, o) => e2e.k(cluster)(args, { binary: opts.binary, env, ...o });
  const uidOf = async (resource: string, name: string) =>
    (await k(['get', resource, name, '-n', ns, '-o', 'jsonpath={.metadata.uid}'])).stdout;
  const refTo = async (kind: string, name: string, extra: Partial<Ref> = {}): Promise<Ref> => {
    const apiVersion = kind === 'Widget' ? 'gc.example.com/v1' : 'v1';
    const resource = kind === 'Widget' ? 'widgets' : kind === 'Secret' ? 'secrets' : 'configmaps';
    return { apiVersion, kind, name, uid: await uidOf(resource, name), ...extra };
  };
  const create = (obj: object) => k(['create', '-f', '-'], { input: JSON.stringify(obj) });
  const cm = (name: string, meta: { ownerReferences?: Ref[]; finalizers?: string[] } = {}) =>
    create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns, ...meta }, data: { a: '1' } });
  const secret = (name: string, ownerReferences: Ref[]) =>
    create({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: ns, ownerReferences }, stringData: { k: 'v' } });
  const widget = (name: string, ownerReferences?: Ref[]) =>
    create({ apiVersion: 'gc.example.com/v1', kind: 'Widget', metadata: { name, namespace: ns, ownerReferences }, spec: { size: 1 } });
  const getJson = async (resource: string, name: string) => JSON.parse((await k(['get', resource, name, '-n', ns, '-o', 'json'])).stdout);
  /** `kubectl wait --for=delete`: what a user runs to see the collector finish. */
  const waitGone = (...objects: string[]) => k(['wait', '--for=delete', ...objects, '-n', ns, '--timeout=60s'], { timeoutMs: 90_000 });
  const release = (resource: string, name: string) =>
    k(['patch', resource, name, '-n', ns, '--type', 'merge', '-p', '{"metadata":{"finalizers":null}}']);
  const background = (args: string[]) =>
    kubectlBackground(e2e.server, [...clusterArgs(e2e.server, cluster), ...args], { binary: opts.binary, env });
  return { k, refTo, cm, secret, widget, getJson, waitGone, release, background };
}
