/** The apis.kcp.io objects as kcpt reads them (stored shape: v1alpha2 for exports and bindings). */
import type { CRDNames, CRDVersion } from '../apiextensions/crd.js';
import type { KubeObject } from '../registry/types.js';
import type { KcpCondition } from './names.js';

export interface APIResourceSchema extends KubeObject {
  spec: {
    group: string;
    names: CRDNames;
    scope: 'Cluster' | 'Namespaced';
    versions: Array<Omit<CRDVersion, 'schema'> & { schema?: Record<string, unknown> }>;
    nameValidation?: 'DNS1123Subdomain' | 'PathSegmentName';
    conversion?: { strategy: string };
  };
}

export interface ExportResource {
  name: string;
  group?: string;
  schema: string;
  storage?: { crd?: Record<string, never>; virtual?: Record<string, unknown> };
}

export interface PermissionClaim {
  group?: string;
  resource: string;
  identityHash?: string;
  verbs?: string[];
}

export interface APIExport extends KubeObject {
  spec?: {
    resources?: ExportResource[];
    identity?: { secretRef?: { namespace?: string; name?: string } };
    maximalPermissionPolicy?: { local?: Record<string, never> };
    permissionClaims?: PermissionClaim[];
  };
  status?: { identityHash?: string; conditions?: KcpCondition[]; virtualWorkspaces?: { url: string }[] };
}

export interface AcceptablePermissionClaim extends PermissionClaim {
  selector?: { matchAll?: boolean; matchLabels?: Record<string, string>; matchExpressions?: unknown[] };
  state?: 'Accepted' | 'Rejected';
}

export interface BoundResource {
  group: string;
  resource: string;
  schema: { name: string; UID: string; identityHash: string };
  storageVersions: string[];
}

export interface APIBinding extends KubeObject {
  spec: {
    reference: { export: { path?: string; name: string } };
    permissionClaims?: AcceptablePermissionClaim[];
  };
  status?: {
    apiExportClusterName?: string;
    boundResources?: BoundResource[];
    phase?: '' | 'Binding' | 'Bound';
    conditions?: KcpCondition[];
    appliedPermissionClaims?: PermissionClaim[];
    exportPermissionClaims?: PermissionClaim[];
  };
}
