/**
 * kube's ResourceQuota admission for object counts, per logical cluster: a create in a namespace is refused when
 * one more object of its resource would go over `status.hard` of any quota there that counts it (`count/<resource>`,
 * `count/<resource>.<group>`, or a legacy name such as `configmaps`), with kube's message; otherwise every such
 * quota is charged one in `status.used`, in the same commit as the object. Only creates matter (object counts do
 * not change on update), only namespaced resources, never namespaces themselves or events. As in kube a quota
 * takes effect once the controller has published its `status.hard`, and a quota with scopes never counts objects.
 *
 * As in kube, admission reads `used` from the quota's status; unlike kube, it measures storage before it refuses, so
 * a status the controller has not brought down yet after a delete never refuses a create that fits.
 */
import { record } from '../machinery/field-values.js';
import {
  amount,
  countedNames,
  formatCount,
  hasScopes,
  isIgnoredByQuota,
  prettyPrint,
  resourceList,
  type ResourceList,
} from '../machinery/quota-names.js';
import { forbidden } from '../machinery/status.js';
import { encodeStored } from '../registry/stored-object.js';
import type { WriteOp } from '../storage/store.js';
import type { CreateAttributes } from '../registry/write-admission.js';
import type { ValidatingAdmissionPlugin } from './chain.js';
import type { QuotaUsage, StoredQuota } from './quota-usage.js';

interface MatchingQuota {
  stored: StoredQuota;
  hard: ResourceList;
  used: ResourceList;
  /** The quota's hard names this create consumes. */
  restricted: string[];
}

export class ResourceQuotaAdmission implements ValidatingAdmissionPlugin {
  readonly name = 'ResourceQuota';

  constructor(private readonly usage: QuotaUsage) {}

  validateCreate({ rt, cluster, namespace, object }: CreateAttributes): WriteOp[] | void {
    if (!rt.namespaced || !namespace || rt.virtualCreate || isIgnoredByQuota(rt)) return;
    if (!this.usage.hasQuotas(cluster, namespace)) return;
    const quotas = this.usage.quotasIn(cluster, namespace);

    const name = object.metadata?.name ?? '';
    const names = countedNames(rt);
    const matching: MatchingQuota[] = [];
    for (const stored of quotas) {
      if (hasScopes(stored.quota.spec)) continue;
      const status = record(stored.quota.status);
      const hard = resourceList(status.hard);
      const used = resourceList(status.used);
      const restricted = names.filter((n) => Object.hasOwn(hard, n));
      if (restricted.length === 0) continue;
      if (restricted.some((n) => !Object.hasOwn(used, n))) {
        const quotaName = stored.quota.metadata?.name ?? '';
        throw forbidden(rt, name, `status unknown for quota: ${quotaName}, resources: ${[...restricted].sort().join(',')}`);
      }
      matching.push({ stored, hard, used, restricted });
    }
    if (matching.length === 0) return;

    // status.used is exact after every admitted create (charged in that create's commit); only a removal the
    // controller has not caught up with yet can leave it high. So it is trusted to admit, and measured in storage
    // before anything is refused.
    let present: number | undefined;
    const measure = () => (present ??= this.usage.countStored(rt, cluster, namespace));
    const ops: WriteOp[] = [];
    for (const { stored, hard, used, restricted } of matching) {
      let current: ResourceList = used;
      if (restricted.some((n) => amount(current, n) + 1 > amount(hard, n))) {
        current = Object.fromEntries(restricted.map((n) => [n, formatCount(measure())]));
        const exceeded = restricted.filter((n) => amount(current, n) + 1 > amount(hard, n));
        if (exceeded.length > 0) {
          const requested = Object.fromEntries(restricted.map((n) => [n, '1']));
          throw forbidden(
            rt,
            name,
            `exceeded quota: ${stored.quota.metadata?.name ?? ''}, requested: ${prettyPrint(requested, exceeded)}, ` +
              `used: ${prettyPrint(current, exceeded)}, limited: ${prettyPrint(hard, exceeded)}`,
          );
        }
      }
      const charged = { ...used, ...Object.fromEntries(restricted.map((n) => [n, formatCount(amount(current, n) + 1)])) };
      const quota = { ...stored.quota, status: { ...record(stored.quota.status), used: charged } };
      ops.push({ type: 'update', key: stored.kv.key, value: encodeStored(quota), expectedRevision: stored.kv.revision });
    }
    return ops;
  }
}
