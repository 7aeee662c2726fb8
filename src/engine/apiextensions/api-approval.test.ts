import { describe, expect, it } from 'vitest';
import { apiApprovalState, approvalCondition, isProtectedGroup } from './api-approval.js';

const KEP = 'https://github.com/kubernetes/enhancements/pull/1111';

describe('API approval (KEP-1111)', () => {
  it('protects k8s.io and kubernetes.io and their subdomains only', () => {
    expect(['k8s.io', 'x.k8s.io', 'kubernetes.io', 'a.b.kubernetes.io'].every(isProtectedGroup)).toBe(true);
    expect(['example.com', 'notk8s.io', 'k8s.io.example.com'].some(isProtectedGroup)).toBe(false);
  });

  it('reads the annotation the way kube does', () => {
    const state = (v?: string) => apiApprovalState(v === undefined ? {} : { 'api-approved.kubernetes.io': v });
    expect(state()).toEqual({ state: 'Missing', reason: `protected groups must have approval annotation "api-approved.kubernetes.io", see ${KEP}` });
    expect(state('unapproved, testing')).toEqual({ state: 'Bypassed', reason: 'not approved: "unapproved, testing"' });
    expect(state('https://github.com/kubernetes/kubernetes/pull/1')).toEqual({ state: 'Approved', reason: 'approved in https://github.com/kubernetes/kubernetes/pull/1' });
    expect(state('yes').state).toBe('Invalid');
    expect(state('github.com/kubernetes/kubernetes/pull/1').state).toBe('Invalid');
  });

  it('reports the KubernetesAPIApprovalPolicyConformant condition for protected groups', () => {
    expect(approvalCondition('example.com', {})).toBeUndefined();
    expect(approvalCondition('x.k8s.io', { 'api-approved.kubernetes.io': 'unapproved' })).toEqual({
      type: 'KubernetesAPIApprovalPolicyConformant',
      status: 'False',
      reason: 'UnapprovedAnnotation',
      message: 'not approved: "unapproved"',
    });
  });
});
