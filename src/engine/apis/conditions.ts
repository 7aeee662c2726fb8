/** kcp's conditions (with severity): set one, keeping lastTransitionTime while its status does not change. */
import type { ConditionStatus, KcpCondition } from './names.js';

export interface ConditionChange {
  type: string;
  status: ConditionStatus;
  reason?: string;
  message?: string;
  /** kcp marks False conditions Error unless told otherwise; True ones carry no severity. */
  severity?: KcpCondition['severity'];
}

export function setCondition(conditions: readonly KcpCondition[] | undefined, change: ConditionChange, now: string): KcpCondition[] {
  const list = [...(conditions ?? [])];
  const old = list.find((c) => c.type === change.type);
  const next: KcpCondition = {
    type: change.type,
    status: change.status,
    ...(change.status === 'True' ? {} : { severity: change.severity ?? 'Error' }),
    lastTransitionTime: old && old.status === change.status ? old.lastTransitionTime : now,
    ...(change.reason ? { reason: change.reason } : {}),
    ...(change.message ? { message: change.message } : {}),
  };
  const at = list.findIndex((c) => c.type === change.type);
  if (at >= 0) list[at] = next;
  else list.push(next);
  // kcp sorts conditions by type, Ready first.
  return list.sort((a, b) => (a.type === 'Ready' ? -1 : b.type === 'Ready' ? 1 : a.type < b.type ? -1 : 1));
}

export function conditionOf(conditions: readonly KcpCondition[] | undefined, type: string): KcpCondition | undefined {
  return conditions?.find((c) => c.type === type);
}
