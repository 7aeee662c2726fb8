/**
 * The validating admission chain kcpt runs, in kcp's order: the logical-cluster object cap, then ResourceQuota,
 * which comes last (as in kube-apiserver) because it charges what it admits.
 */
import type { ClusterCatalog } from '../registry/catalog.js';
import type { IndexWriter } from '../registry/index-writer.js';
import type { ResourceType } from '../registry/types.js';
import type { Store } from '../storage/store.js';
import { AdmissionChain } from './chain.js';
import { CountRows, objectCountWriter } from './object-count.js';
import { ObjectCountLimit } from './object-count-limit.js';
import { QuotaUsage } from './quota-usage.js';
import { ResourceQuotaAdmission } from './resource-quota.js';

export { AdmissionChain } from './chain.js';
export { QuotaUsage } from './quota-usage.js';

export interface AdmissionDeps {
  store: Store;
  /** The built-in types (LogicalCluster and ResourceQuota are looked up among them). */
  builtinTypes: readonly ResourceType[];
  catalogFor(cluster: string): ClusterCatalog;
  /** `--logical-cluster-total-object-limit` (0 = off). */
  logicalClusterTotalObjectLimit: number;
}

export interface Admission {
  chain: AdmissionChain;
  /** Index writers admission relies on (the stored object counts of capped clusters): add them to the generic store. */
  indexWriters: IndexWriter[];
  quotaUsage: QuotaUsage;
}

export function buildAdmission(deps: AdmissionDeps): Admission {
  const find = (group: string, resource: string) => {
    const rt = deps.builtinTypes.find((t) => t.group === group && t.resource === resource);
    if (!rt) throw new Error(`admission needs the built-in type ${resource}${group ? `.${group}` : ''}`);
    return rt;
  };
  const { store, catalogFor } = deps;
  const logicalClusterType = find('core.kcp.io', 'logicalclusters');
  const defaultLimit = deps.logicalClusterTotalObjectLimit;
  const quotaUsage = new QuotaUsage(store, find('', 'resourcequotas'), catalogFor);
  const countRows = new CountRows(store);
  const chain = new AdmissionChain([
    new ObjectCountLimit({ store, logicalClusterType, catalogFor, defaultLimit, countRows }),
    new ResourceQuotaAdmission(quotaUsage),
  ]);
  return { chain, indexWriters: [objectCountWriter({ store, logicalClusterType, defaultLimit, countRows })], quotaUsage };
}
