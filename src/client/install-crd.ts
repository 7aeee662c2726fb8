/**
 * Installing a CustomResourceDefinition in a workspace and waiting until it is served: kcpt establishes a CRD inside
 * its create, so the POST's answer usually settles it; otherwise the CRD is watched from that answer's version.
 * Shared by `kcpt testenv --crd` and kcpt/testing's workspace({ crds }).
 */
import type { KubeClient } from './http-client.js';
import { waitForObject } from './object-watch.js';

export interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

export interface WithConditions {
  metadata?: { name?: string; resourceVersion?: string; [k: string]: unknown };
  status?: { phase?: string; conditions?: Condition[] };
  [k: string]: unknown;
}

const crdsPath = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const conditionOf = (obj: WithConditions, type: string) => obj.status?.conditions?.find((c) => c.type === type);

/** Creates the CRD and resolves once it is Established; a CRD whose names are refused fails with the reason. */
export async function installCRD(client: KubeClient, wsPath: string, crd: WithConditions, timeoutMs: number): Promise<void> {
  const name = crd.metadata?.name ?? '';
  const collection = `/clusters/${wsPath}${crdsPath}`;
  const created = await client.post<WithConditions>(collection, crd).catch((err: Error) => {
    throw new Error(`installing CRD "${name}" in ${wsPath}: ${err.message}`, { cause: err });
  });
  const settled = (obj: WithConditions) => {
    if (conditionOf(obj, 'Established')?.status === 'True') return true;
    const names = conditionOf(obj, 'NamesAccepted');
    if (names?.status === 'False') throw new Error(`CRD "${name}" in ${wsPath} was not established: ${names.message ?? names.reason}`);
    return false;
  };
  if (settled(created)) return;
  await waitForObject(client, collection, created, settled, { timeoutMs, what: `CRD "${name}" in ${wsPath} to be Established` });
}
