/**
 * KEP-1111: CRDs in the community-owned groups (`*.k8s.io`, `*.kubernetes.io`) must carry the
 * `api-approved.kubernetes.io` annotation, either a URL of the approving pull request or a reason that starts with
 * "unapproved". After apiextensions-apiserver pkg/apihelpers (GetAPIApprovalState) and the API approval controller,
 * which reports the state as the KubernetesAPIApprovalPolicyConformant condition.
 */
import type { CRDCondition } from './types.js';

export const APPROVAL_ANNOTATION = 'api-approved.kubernetes.io';
export const APPROVAL_CONDITION = 'KubernetesAPIApprovalPolicyConformant';

const KEP = 'https://github.com/kubernetes/enhancements/pull/1111';

/** Groups under the kube protected domains need the approval annotation. */
export function isProtectedGroup(group: string): boolean {
  return group === 'k8s.io' || group.endsWith('.k8s.io') || group === 'kubernetes.io' || group.endsWith('.kubernetes.io');
}

export type ApprovalState = 'Missing' | 'Bypassed' | 'Approved' | 'Invalid';

/** Go's url.ParseRequestURI followed by "has a scheme and a host". */
function isApprovalURL(value: string): boolean {
  if (/\s/.test(value)) return false;
  try {
    const url = new URL(value);
    return url.protocol.length > 1 && url.host.length > 0;
  } catch {
    return false;
  }
}

export function apiApprovalState(annotations: Record<string, string> | undefined): { state: ApprovalState; reason: string } {
  const value = annotations?.[APPROVAL_ANNOTATION] ?? '';
  if (value === '') return { state: 'Missing', reason: `protected groups must have approval annotation "${APPROVAL_ANNOTATION}", see ${KEP}` };
  if (value.startsWith('unapproved')) return { state: 'Bypassed', reason: `not approved: ${JSON.stringify(value)}` };
  if (isApprovalURL(value)) return { state: 'Approved', reason: `approved in ${value}` };
  return {
    state: 'Invalid',
    reason: `protected groups must have approval annotation "${APPROVAL_ANNOTATION}" with either a URL or a reason starting with "unapproved", see ${KEP}`,
  };
}

const conditionReason: Record<ApprovalState, string> = {
  Missing: 'MissingAnnotation',
  Bypassed: 'UnapprovedAnnotation',
  Approved: 'ApprovedAnnotation',
  Invalid: 'InvalidAnnotation',
};

/** The condition the API approval controller keeps on a protected-group CRD (undefined for other groups). */
export function approvalCondition(group: string, annotations: Record<string, string> | undefined): Omit<CRDCondition, 'lastTransitionTime'> | undefined {
  if (!isProtectedGroup(group)) return undefined;
  const { state, reason } = apiApprovalState(annotations);
  return { type: APPROVAL_CONDITION, status: state === 'Approved' ? 'True' : 'False', reason: conditionReason[state], message: reason };
}
