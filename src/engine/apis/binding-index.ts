/**
 * Which consumer clusters have a Bound APIBinding to an export, written in the binding's own commit (so it never
 * disagrees with the bindings): rows `/kcpt/apis/bindings-by-export/<export cluster>/<export name>/<consumer
 * cluster>/<binding name>` whose value is the binding's bound resources (schema and identity) and its accepted
 * permission claims. The binding controller reads it to roll every binding of an export forward; the APIExport
 * virtual workspace reads it (one prefix scan, or a watch of the prefix) to know its consumers.
 */
import type { IndexWriter } from '../registry/index-writer.js';
import type { KubeObject } from '../registry/types.js';
import type { Store, WriteOp } from '../storage/store.js';
import { BINDINGS_PREFIX } from './names.js';
import type { AcceptablePermissionClaim, APIBinding, BoundResource } from './types.js';

export const BINDING_INDEX_PREFIX = '/kcpt/apis/bindings-by-export/';

/** One consumer of an export, as the index stores it. */
export interface IndexedBinding {
  /** The consumer's logical cluster. */
  cluster: string;
  /** The APIBinding's name there. */
  binding: string;
  resources: BoundResource[];
  /** The binding's claims in state Accepted. */
  acceptedClaims: AcceptablePermissionClaim[];
}

type Row = Omit<IndexedBinding, 'cluster' | 'binding'>;

/** The rows' prefix for one export (watch it to follow the export's consumers). */
export function bindingIndexPrefix(exportCluster: string, exportName: string): string {
  return `${BINDING_INDEX_PREFIX}${exportCluster}/${encodeURIComponent(exportName)}/`;
}

function rowOf(key: string, obj: KubeObject | undefined): { key: string; value: string } | undefined {
  const binding = obj as APIBinding | undefined;
  const exportCluster = binding?.status?.apiExportClusterName;
  if (!binding || !exportCluster || binding.status?.phase !== 'Bound' || binding.metadata?.deletionTimestamp) return undefined;
  const rest = key.slice(BINDINGS_PREFIX.length);
  const slash = rest.indexOf('/');
  const row: Row = {
    resources: binding.status.boundResources ?? [],
    acceptedClaims: (binding.spec.permissionClaims ?? []).filter((c) => c.state === 'Accepted'),
  };
  return {
    key: `${bindingIndexPrefix(exportCluster, binding.spec.reference.export.name)}${rest.slice(0, slash)}/${encodeURIComponent(rest.slice(slash + 1))}`,
    value: JSON.stringify(row),
  };
}

export function bindingIndexWriter(): IndexWriter {
  return (key, before, after) => {
    if (!key.startsWith(BINDINGS_PREFIX)) return [];
    const was = rowOf(key, before);
    const is = rowOf(key, after);
    const ops: WriteOp[] = [];
    if (was && was.key !== is?.key) ops.push({ type: 'delete', key: was.key });
    if (is && was?.key !== is.key) ops.push({ type: 'create', key: is.key, value: is.value });
    else if (is && was && was.value !== is.value) ops.push({ type: 'update', key: is.key, value: is.value });
    return ops;
  };
}

/** Reads the index: the consumers of one export. */
export class BindingIndex {
  constructor(private readonly store: Store) {}

  bindingsOf(exportCluster: string, exportName: string): IndexedBinding[] {
    const prefix = bindingIndexPrefix(exportCluster, exportName);
    return this.store.list(prefix).items.map((kv) => parseRow(prefix, kv.key, kv.value));
  }
}

/** A row back into an IndexedBinding (`prefix` is the export's prefix the key was found under). */
export function parseRow(prefix: string, key: string, value: string): IndexedBinding {
  const rest = key.slice(prefix.length);
  const slash = rest.indexOf('/');
  const row = JSON.parse(value) as Row;
  return { cluster: rest.slice(0, slash), binding: decodeURIComponent(rest.slice(slash + 1)), ...row };
}
