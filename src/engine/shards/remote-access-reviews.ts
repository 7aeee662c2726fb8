/**
 * Authorization decisions that belong to another shard: whether a user may `bind` an APIExport, or reach its
 * virtual workspace, is RBAC of the export's workspace, which only the shard hosting it holds. This shard asks that
 * shard with a SubjectAccessReview in the export's cluster (a deep one for `bind`, as kcp's APIBinding admission
 * does: RBAC alone, no workspace access check), with its shard-to-shard identity, and keeps each answer briefly
 * (kube's webhook authorizer caches its answers too) so a burst of requests asks once.
 */
import { identityInCluster, type Identity } from '../auth/foreign-identity.js';
import { DEEP_SAR_HEADER } from '../endpoints/api-router.js';
import { StatusError } from '../machinery/status.js';
import type { RequestAttributes } from '../authorization/rules.js';
import { statusMessage, ShardUnreachableError, type ShardClient } from './shard-client.js';

const ALLOWED_TTL_MS = 10_000;
const DENIED_TTL_MS = 2_000;
const CACHED_ANSWERS = 4096;

/** Who is asked about (RBAC subjects have read-only groups). */
export type ReviewSubject = Omit<Identity, 'groups'> & { groups: readonly string[] };

export interface RemoteDecision {
  allowed: boolean;
  reason: string;
}

export class RemoteAccessReviews {
  private readonly answers = new Map<string, { decision: RemoteDecision; expires: number }>();

  constructor(
    private readonly client: () => ShardClient,
    /** The base URL of the shard that hosts `cluster`'s APIExport `name`, if another shard does. */
    private readonly shardOf: (cluster: string, exportName: string) => string | undefined,
  ) {}

  /** Whether the export lives on another shard (then `review` asks there). */
  isRemote(cluster: string, exportName: string): boolean {
    return this.shardOf(cluster, exportName) !== undefined;
  }

  /** The answer given lately, if it is still fresh. */
  cached(cluster: string, exportName: string, user: ReviewSubject, attrs: RequestAttributes, deep: boolean): RemoteDecision | undefined {
    const hit = this.answers.get(this.key(cluster, user, attrs, deep));
    if (!hit || hit.expires < Date.now()) return undefined;
    return hit.decision;
  }

  /** Asks the export's shard (or answers from the cache). Unreachable shard: a 503 the client can retry. */
  async review(cluster: string, exportName: string, user: ReviewSubject, attrs: RequestAttributes, deep: boolean): Promise<RemoteDecision> {
    const fresh = this.cached(cluster, exportName, user, attrs, deep);
    if (fresh) return fresh;
    const base = this.shardOf(cluster, exportName);
    if (!base) return { allowed: false, reason: 'access denied' };
    const subject = identityInCluster({ ...user, groups: [...user.groups] }, cluster);
    const review = {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: {
        user: subject.username,
        groups: subject.groups,
        ...(subject.uid ? { uid: subject.uid } : {}),
        ...(subject.extra ? { extra: subject.extra } : {}),
        ...(attrs.resourceRequest
          ? {
              resourceAttributes: {
                verb: attrs.verb,
                group: attrs.apiGroup,
                resource: attrs.resource,
                subresource: attrs.subresource,
                name: attrs.name,
                namespace: attrs.namespace,
              },
            }
          : { nonResourceAttributes: { verb: attrs.verb, path: attrs.path } }),
      },
    };
    const url = `${base}/clusters/${cluster}/apis/authorization.k8s.io/v1/subjectaccessreviews`;
    let res;
    try {
      res = await this.client().call<{ status?: { allowed?: boolean; reason?: string } }>('POST', url, review, 10_000, deep ? { [DEEP_SAR_HEADER]: 'true' } : {});
    } catch (err) {
      if (err instanceof ShardUnreachableError) throw unavailable(`the shard hosting APIExport ${cluster}:${exportName} cannot be reached: ${err.message}`);
      throw err;
    }
    if (res.status !== 201 && res.status !== 200) {
      throw unavailable(`the shard hosting APIExport ${cluster}:${exportName} could not review access: ${statusMessage(res)}`);
    }
    const decision = { allowed: res.body.status?.allowed === true, reason: res.body.status?.reason || 'access denied' };
    if (this.answers.size >= CACHED_ANSWERS) this.answers.clear();
    this.answers.set(this.key(cluster, user, attrs, deep), { decision, expires: Date.now() + (decision.allowed ? ALLOWED_TTL_MS : DENIED_TTL_MS) });
    return decision;
  }

  private key(cluster: string, user: ReviewSubject, attrs: RequestAttributes, deep: boolean): string {
    const { verb, apiGroup, resource, subresource, name, namespace, path } = attrs;
    return JSON.stringify([cluster, user.username, [...user.groups].sort(), user.extra ?? {}, verb, apiGroup, resource, subresource, name, namespace, path, deep]);
  }
}

function unavailable(message: string): StatusError {
  return new StatusError(503, 'ServiceUnavailable', message, {});
}
