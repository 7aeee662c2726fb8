/**
 * Which APIExport an APIBinding or an APIExportEndpointSlice names: `{path, name}` where an empty path is the
 * object's own workspace and a path is a workspace path (`root:provider`) or a bare cluster name. A binding's status
 * carries the export's cluster once the binding controller resolved it; that wins over resolving the path again.
 */
import type { KubeObject } from '../registry/types.js';

export interface ExportReference {
  /** The export's logical cluster name. */
  cluster: string;
  name: string;
}

/** The cluster a reference path names (`''` = `own`); undefined when the path leads nowhere. */
export function exportClusterOf(path: string | undefined, own: string, resolvePath: (path: string) => string | undefined): string | undefined {
  if (!path) return own;
  return path.includes(':') && !path.startsWith('system:') ? resolvePath(path) : path;
}

/** The export a binding in `consumer` references, if it can be told. */
export function bindingExportReference(
  consumer: string,
  binding: KubeObject,
  resolvePath: (path: string) => string | undefined,
): ExportReference | undefined {
  const ref = (binding.spec as { reference?: { export?: { path?: string; name?: string } } } | undefined)?.reference?.export;
  if (!ref?.name) return undefined;
  const named = (binding.status as { apiExportClusterName?: string } | undefined)?.apiExportClusterName;
  const cluster = named || exportClusterOf(ref.path, consumer, resolvePath);
  return cluster ? { cluster, name: ref.name } : undefined;
}
