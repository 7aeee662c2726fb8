/**
 * The apis.kcp.io objects as the CLI reads and writes them (kcp's shapes: APIExport and APIBinding v1alpha2,
 * APIResourceSchema and APIExportEndpointSlice v1alpha1) and the requests `kcpt export` and `kcpt bind` make.
 */
import { ApiError } from './errors.js';
import type { KubeClient } from './http-client.js';

type Json = Record<string, unknown>;

export const group = 'apis.kcp.io';
const v1alpha1 = `/apis/${group}/v1alpha1`;
const v1alpha2 = `/apis/${group}/v1alpha2`;

export interface Meta {
  name: string;
  uid?: string;
  resourceVersion?: string;
  annotations?: Record<string, string>;
  [k: string]: unknown;
}

export interface Condition {
  type: string;
  status: string;
  /** kcp's: Error (also when unset), Warning, or Info for a step in progress. */
  severity?: string;
  reason?: string;
  message?: string;
}

export interface ExportResource {
  group: string;
  name: string;
  schema: string;
  storage: { crd: Record<string, never> } | Record<string, unknown>;
}

export type ClaimState = 'Accepted' | 'Rejected';

export interface ClaimSelector {
  matchAll?: boolean;
  matchLabels?: Record<string, string>;
  matchExpressions?: unknown[];
}

/** An APIBinding v1alpha2 `spec.permissionClaims[]` entry: the export's claim as it stands, and the answer. */
export interface AcceptablePermissionClaim {
  group: string;
  resource: string;
  identityHash?: string;
  verbs: string[];
  selector: ClaimSelector;
  state: ClaimState;
}

/** An APIExport `spec.permissionClaims[]` entry. */
export interface ExportedClaim {
  group?: string;
  resource: string;
  identityHash?: string;
  verbs?: string[];
  defaultSelector?: ClaimSelector;
}

/** An apis.kcp.io/v1alpha1 APIResourceSchema: an immutable copy of a CRD's API. */
export interface APIResourceSchema {
  apiVersion: 'apis.kcp.io/v1alpha1';
  kind: 'APIResourceSchema';
  metadata: { name: string };
  spec: {
    group: string;
    names: Json & { plural: string; kind: string };
    scope: string;
    versions: Json[];
    conversion?: Json;
  };
}

export interface APIExport {
  apiVersion?: string;
  kind?: string;
  metadata: Meta;
  spec?: { resources?: ExportResource[]; permissionClaims?: ExportedClaim[]; [k: string]: unknown };
  status?: { identityHash?: string; conditions?: Condition[] };
}

export interface APIBinding {
  apiVersion?: string;
  kind?: string;
  metadata: Meta;
  /** permissionClaims: v1alpha2's AcceptablePermissionClaim, or v1alpha1's shape (`all: true`) when posted as v1alpha1. */
  spec: { reference: { export: { path?: string; name: string } }; permissionClaims?: (AcceptablePermissionClaim | V1alpha1Claim)[] };
  status?: {
    phase?: string;
    conditions?: Condition[];
    apiExportClusterName?: string;
    /** The export's claims, as the server shows them to the consumer. */
    exportPermissionClaims?: ExportedClaim[];
    boundResources?: { group: string; resource: string; schema?: { name?: string; UID?: string; identityHash?: string } }[];
  };
}

export interface V1alpha1Claim {
  group: string;
  resource: string;
  identityHash?: string;
  all: true;
  state: AcceptablePermissionClaim['state'];
}

export interface APIExportEndpointSlice {
  metadata: Meta;
  spec?: { export?: { path?: string; name?: string } };
  status?: { endpoints?: { url: string }[] };
}

export interface List<T> {
  metadata?: { resourceVersion?: string; continue?: string };
  items?: T[];
}

const at = (path: string, rest: string) => `/clusters/${path}${rest}`;

export function getExport(client: KubeClient, path: string, name: string): Promise<APIExport> {
  return client.get<APIExport>(at(path, `${v1alpha2}/apiexports/${encodeURIComponent(name)}`));
}

export function createExport(client: KubeClient, path: string, body: APIExport): Promise<APIExport> {
  return client.post<APIExport>(at(path, `${v1alpha2}/apiexports`), body);
}

export function updateExport(client: KubeClient, path: string, body: APIExport): Promise<APIExport> {
  return client.request<APIExport>('PUT', at(path, `${v1alpha2}/apiexports/${encodeURIComponent(body.metadata.name)}`), { body });
}

export async function listExports(client: KubeClient, path: string): Promise<APIExport[]> {
  return (await client.get<List<APIExport>>(at(path, `${v1alpha2}/apiexports`))).items ?? [];
}

export async function listSchemas(client: KubeClient, path: string): Promise<(APIResourceSchema & { metadata: Meta })[]> {
  return (await client.get<List<APIResourceSchema & { metadata: Meta }>>(at(path, `${v1alpha1}/apiresourceschemas`))).items ?? [];
}

export function createSchema(client: KubeClient, path: string, schema: APIResourceSchema): Promise<APIResourceSchema> {
  return client.post<APIResourceSchema>(at(path, `${v1alpha1}/apiresourceschemas`), schema);
}

/** The endpoint slice kcp creates beside an export (same name); undefined when there is none (yet). */
export async function getEndpointSlice(client: KubeClient, path: string, name: string): Promise<APIExportEndpointSlice | undefined> {
  try {
    return await client.get<APIExportEndpointSlice>(at(path, `${v1alpha1}/apiexportendpointslices/${encodeURIComponent(name)}`));
  } catch (err) {
    if (err instanceof ApiError && err.notFound) return undefined;
    throw err;
  }
}

/** The APIBinding version the server prefers (kcp's plugin asks discovery; v1alpha2 when it cannot tell). */
export async function preferredBindingVersion(client: KubeClient, path: string): Promise<string> {
  try {
    const g = await client.get<{ preferredVersion?: { version?: string } }>(at(path, `/apis/${group}`));
    return g.preferredVersion?.version ?? 'v1alpha2';
  } catch (err) {
    if (err instanceof ApiError && err.notFound) return 'v1alpha2';
    throw err;
  }
}

export function bindingsUrl(path: string, version = 'v1alpha2'): string {
  return at(path, `/apis/${group}/${version}/apibindings`);
}

export function createBinding(client: KubeClient, path: string, body: APIBinding, version = 'v1alpha2'): Promise<APIBinding> {
  return client.post<APIBinding>(bindingsUrl(path, version), { ...body, apiVersion: `${group}/${version}` });
}

/** The virtual workspace URL kcp computes for an export: `<base>/services/apiexport/<export's cluster>/<export>`. */
export function computedVirtualWorkspaceUrl(baseUrl: string, exportClusterName: string, exportName: string): string {
  return `${baseUrl}/services/apiexport/${exportClusterName}/${exportName}`;
}

/** The logical cluster an object lives in (kcp annotates every object it returns with `kcp.io/cluster`). */
export function clusterOf(obj: { metadata: Meta }): string | undefined {
  return obj.metadata.annotations?.['kcp.io/cluster'];
}
