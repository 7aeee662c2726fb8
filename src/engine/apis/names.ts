/** The names kcp gives things in API sharing (apis.kcp.io): group, kinds, annotations, condition types and reasons. */
import { createHash } from 'node:crypto';

export const APIS_GROUP = 'apis.kcp.io';

export const RESOURCE_SCHEMAS = 'apiresourceschemas';
export const EXPORTS = 'apiexports';
export const ENDPOINT_SLICES = 'apiexportendpointslices';
export const BINDINGS = 'apibindings';

/** Storage prefixes (`<group>/<resource>`) of the four kinds. */
export const SCHEMAS_PREFIX = `/registry/${APIS_GROUP}/${RESOURCE_SCHEMAS}/`;
export const EXPORTS_PREFIX = `/registry/${APIS_GROUP}/${EXPORTS}/`;
export const BINDINGS_PREFIX = `/registry/${APIS_GROUP}/${BINDINGS}/`;

/** Round-trip annotations of the v1alpha1 ↔ v1alpha2 conversion (kcp's). */
export const RESOURCE_SCHEMAS_ANNOTATION = 'apis.v1alpha2.kcp.io/resource-schemas';
export const PERMISSION_CLAIMS_ANNOTATION = 'apis.v1alpha2.kcp.io/permission-claims';
export const V1ALPHA1_PERMISSION_CLAIMS_ANNOTATION = 'apis.v1alpha2.kcp.io/v1alpha1-permission-claims';

/** Label kcp keeps on an APIBinding: a hash of the export's cluster and name, for label-selecting bindings of one export. */
export const EXPORT_LABEL = 'internal.apis.kcp.io/export';
/** Finalizer an APIBinding carries until its objects in the workspace are gone. */
export const BINDING_FINALIZER = 'apis.kcp.io/apibinding-finalizer';
/** Namespace of the identity secrets. */
export const IDENTITY_NAMESPACE = 'kcp-system';

export type ConditionStatus = 'True' | 'False' | 'Unknown';

export interface KcpCondition {
  type: string;
  status: ConditionStatus;
  severity?: 'Error' | 'Warning' | 'Info' | '';
  lastTransitionTime: string;
  reason?: string;
  message?: string;
}

/** `<group>/<resource>:<identityHash>`: the storage prefix of a bound resource (core group = `core`). */
export function boundStoragePrefix(group: string, resource: string, identityHash: string): string {
  return `${group || 'core'}/${resource}:${identityHash}`;
}

/** Go's big.Int base-62 digits, the alphabet kcp's Base62 encoder uses. */
const BASE62 = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

/**
 * The `internal.apis.kcp.io/export` label value of a binding to `<export cluster>:<export name>`: base 62 of
 * sha224 of that string, leading zero bytes dropped (kcp's Base62Sha224).
 */
export function exportLabelValue(exportCluster: string, exportName: string): string {
  let n = BigInt(`0x${createHash('sha224').update(`${exportCluster}:${exportName}`).digest('hex')}`);
  let out = '';
  while (n > 0n) {
    out = BASE62[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out;
}
