/**
 * What the initializer keeps between reconciles (which clusters wait, how often each was retried, which questions
 * to other shards were just asked), the reads its steps share, and the one write they all end with: the condition
 * on the LogicalCluster (and, when done, the initializer removed).
 */
import type { StepResult } from '../../controllers/reconcile-steps.js';
import { nowTimestamp } from '../../registry/generic-store.js';
import { clusterAnnotation, decodeStored, objectKey } from '../../registry/stored-object.js';
import type { KubeObject, ResourceType } from '../../registry/types.js';
import { PATH_ANNOTATION } from '../../machinery/kcp-names.js';
import type { WorkspaceType } from '../../tenancy/workspace-types.js';
import { APIBINDINGS_INITIALIZER, setCondition, type Condition, type DefaultExportRef } from '../default-bindings.js';
import type { APIExport } from '../types.js';
import type { DefaultAPIBindingsDeps, LogicalClusterView } from './deps.js';

const MAX_RETRY_MS = 30_000;

/** One reconcile of one cluster, as its steps see it. */
export interface DefaultBindingsState {
  initializations: Initializations;
  cluster: string;
  lc: LogicalClusterView;
  /** Still listing the initializer (else: a workspace whose type maintains its bindings). */
  initializing: boolean;
  /** The condition this pass reports: APIBindingsInitialized or APIBindingsReconciled. */
  conditionType: string;
  /** Set by the type step: the exports to bind. */
  refs: DefaultExportRef[];
}

export class Initializations {
  /** Clusters whose LogicalCluster still lists the initializer: the only ones binding and export events wake. */
  readonly waiting = new Set<string>();
  private readonly attempts = new Map<string, number>();
  /** `<cluster>/<export path>|<export>`: bindings to another shard's export whose question was just asked. */
  readonly asked = new Set<string>();

  constructor(readonly deps: DefaultAPIBindingsDeps) {}

  forget(cluster: string): void {
    this.waiting.delete(cluster);
    this.attempts.delete(cluster);
    for (const key of this.asked) if (key.startsWith(`${cluster}/`)) this.asked.delete(key);
  }

  retryLater(cluster: string): StepResult {
    const n = (this.attempts.get(cluster) ?? 0) + 1;
    this.attempts.set(cluster, n);
    return { requeueAfterMs: Math.min(500 * 2 ** n, MAX_RETRY_MS) };
  }

  succeeded(cluster: string): void {
    this.attempts.delete(cluster);
  }

  clusterOfType(t: WorkspaceType): string {
    const annotations = t.metadata?.annotations ?? {};
    const path = annotations[PATH_ANNOTATION] ?? '';
    return annotations[clusterAnnotation] ?? this.resolvePath(path) ?? path;
  }

  resolvePath(path: string): string | undefined {
    return this.deps.resolvePath ? this.deps.resolvePath(path) : this.deps.paths.resolve(path);
  }

  exportOf(cluster: string, name: string): { object: APIExport; shard?: string } | undefined {
    if (this.deps.exportOf) return this.deps.exportOf(cluster, name);
    const object = this.getObject<APIExport>(this.deps.apiExports, cluster, name);
    return object && { object };
  }

  getObject<T extends KubeObject>(rt: ResourceType, cluster: string, name: string): T | undefined {
    const kv = this.deps.store.get(objectKey(rt, cluster, '', name));
    return kv ? (decodeStored(kv) as T) : undefined;
  }

  /**
   * Writes `condition` on the LogicalCluster when it changes; with `finish`, also removes the initializer (the
   * workspace controller then turns the workspace Ready).
   */
  setConditions(cluster: string, lc: LogicalClusterView, condition: Condition, finish = false): void {
    const status = lc.status ?? {};
    const conditions = setCondition(status.conditions ?? [], condition, nowTimestamp());
    const initializers = status.initializers ?? [];
    const removing = finish && initializers.includes(APIBINDINGS_INITIALIZER);
    if (!conditions && !removing) return;
    const next: LogicalClusterView['status'] = { ...status, conditions: conditions ?? status.conditions };
    if (removing) {
      const left = initializers.filter((i) => i !== APIBINDINGS_INITIALIZER);
      if (left.length > 0) next.initializers = left;
      else delete next.initializers;
    }
    this.deps.generic.update({ rt: this.deps.logicalClusters, cluster, namespace: '' }, 'cluster', { ...lc, status: next }, { withStatus: true });
    if (removing) this.forget(cluster);
  }
}
