/**
 * How kcp's workspace plugin rewrites a kubeconfig, on our Kubeconfig (changes go back to the files that defined
 * the entries):
 * - switching: cluster and context `workspace.kcp.io/current` become copies of the current ones pointing at the new
 *   URL; the old context is kept as `workspace.kcp.io/previous` (with its cluster copied to
 *   `workspace.kcp.io/previous` when it was the `current` one); current-context becomes `workspace.kcp.io/current`.
 * - `-`: the `current` and `previous` contexts (and their clusters) swap.
 * - create-context: a named cluster + context copied from the current ones.
 */
import { CliError } from '../common/errors.js';
import type { Kubeconfig, KubeContext } from '../common/kubeconfig.js';

export const currentKey = 'workspace.kcp.io/current';
export const previousKey = 'workspace.kcp.io/previous';

function currentContextOf(config: Kubeconfig, contextName: string): KubeContext {
  const entry = config.contexts.get(contextName);
  if (!entry) throw new CliError(`current "${contextName}" context not found`);
  return entry.value;
}

/** Points `workspace.kcp.io/current` at `url`, remembering the context in use as `workspace.kcp.io/previous`. */
export function switchToUrl(config: Kubeconfig, contextName: string, url: string): void {
  const current = currentContextOf(config, contextName);
  const clusterName = current.cluster ?? '';
  const oldCluster = config.clusters.get(clusterName)?.value;
  if (!oldCluster) throw new CliError(`cluster "${clusterName}" not found in kubeconfig`);
  let previous: KubeContext = { ...current };
  config.setCluster(currentKey, { ...oldCluster, server: url });
  config.setContext(currentKey, { ...current, cluster: currentKey });
  if (clusterName === currentKey) {
    previous = { ...current, cluster: previousKey };
    config.setCluster(previousKey, oldCluster);
  }
  config.setContext(previousKey, previous);
  config.setCurrentContext(currentKey);
}

/** `kcpt ws -`: swaps the current and previous workspace contexts; returns the new current server URL. */
export function swapToPrevious(config: Kubeconfig, contextName: string): string {
  let current: KubeContext = { ...currentContextOf(config, contextName) };
  const prevEntry = config.contexts.get(previousKey);
  if (!prevEntry) throw new CliError('no previous workspace found in kubeconfig');
  let prev: KubeContext = { ...prevEntry.value };
  const clusters: [string, ReturnType<typeof config.clusters.get>][] = [];
  if (current.cluster === currentKey) {
    const cluster = config.clusters.get(currentKey);
    if (!cluster) throw new CliError(`cluster "${currentKey}" not found in kubeconfig`);
    current = { ...current, cluster: previousKey };
    clusters.push([previousKey, cluster]);
  }
  if (prev.cluster === previousKey) {
    const cluster = config.clusters.get(previousKey);
    if (!cluster) throw new CliError(`cluster "${previousKey}" not found in kubeconfig`);
    prev = { ...prev, cluster: currentKey };
    clusters.push([currentKey, cluster]);
  }
  // Read both clusters before writing either: the swap must not see its own first write.
  for (const [name, entry] of clusters) config.setCluster(name, entry!.value);
  config.setContext(currentKey, prev);
  config.setContext(previousKey, current);
  config.setCurrentContext(currentKey);
  const server = config.clusters.get(prev.cluster ?? '')?.value.server;
  if (!server) throw new CliError(`cluster "${prev.cluster}" not found in kubeconfig`);
  return server;
}

export interface CreateContextResult {
  name: string;
  /** The context existed before (and --overwrite replaced it). */
  updated: boolean;
  /** current-context now names it. */
  switched: boolean;
}

/** `kcpt ws create-context`: a cluster + context named `name` copied from the current ones, at `url` when given. */
export function createContext(
  config: Kubeconfig,
  contextName: string,
  opts: { name: string; overwrite: boolean; url?: string; keepCurrent: boolean },
): CreateContextResult {
  const current = config.contexts.get(contextName)?.value;
  if (!current) throw new CliError(`current context "${contextName}" is not found in kubeconfig`);
  const cluster = config.clusters.get(current.cluster ?? '')?.value;
  if (!cluster) throw new CliError(`current cluster "${current.cluster}" is not found in kubeconfig`);
  const existed = config.contexts.has(opts.name);
  if (existed && !opts.overwrite) throw new CliError(`context "${opts.name}" already exists in kubeconfig, use --overwrite to update it`);
  const wasCurrent = config.currentContext === opts.name;
  config.setCluster(opts.name, { ...cluster, ...(opts.url ? { server: opts.url } : {}) });
  config.setContext(opts.name, { ...current, cluster: opts.name });
  if (!opts.keepCurrent) config.setCurrentContext(opts.name);
  return { name: opts.name, updated: existed, switched: !opts.keepCurrent && !wasCurrent };
}
