import { describe, expect, it } from 'vitest';
import { leases } from '../coordination/resources.js';
import { logicalClusters } from './resources.js';
import { headers, runCreate, runUpdate } from '../test-support.js';

const now = Date.parse('2024-01-01T01:00:00Z');

describe('logicalclusters', () => {
  it('accept only the name `cluster`', () => {
    expect(runCreate(logicalClusters, { metadata: { name: 'cluster' } }).errors).toEqual([]);
    expect(runCreate(logicalClusters, { metadata: { name: 'other' } }).errors).toEqual([
      'metadata.name: Unsupported value: "other": supported values: "cluster"',
    ]);
  });

  it('start in phase Scheduling whatever status the create carried, with the CRD’s spec defaults', () => {
    const { obj } = runCreate(logicalClusters, {
      metadata: { name: 'cluster' },
      spec: { owner: { apiVersion: 'tenancy.kcp.io/v1alpha1', resource: 'workspaces', name: 'team', cluster: 'root', uid: 'u' } },
      status: { phase: 'Ready', URL: 'https://x' },
    });
    expect(obj.status).toEqual({ phase: 'Scheduling' });
    expect(obj.spec).toMatchObject({ directlyDeletable: false, owner: { name: 'team' } });
  });

  it('check initializers and owner fields against the CRD schema', () => {
    const { errors } = runCreate(logicalClusters, {
      metadata: { name: 'cluster' },
      spec: { initializers: ['root:universal', 'system:apibindings', 'Bad_Name'], owner: { apiVersion: 'a/b/c', name: '' } },
    });
    expect(errors).toEqual([
      expect.stringMatching(/^spec\.initializers\[2\]: Invalid value: "Bad_Name": should match/),
      'spec.owner.cluster: Required value',
      'spec.owner.resource: Required value',
      'spec.owner.uid: Required value',
      'spec.owner.name: Invalid value: "": spec.owner.name in body should be at least 1 chars long',
      "spec.owner.apiVersion: Invalid value: \"a/b/c\": should match '^([^/]+/)?[^/]+$'",
    ]);
  });

  it('behave like a custom resource: generation, status subresource, resourceVersion required', () => {
    expect(logicalClusters.strategy).toMatchObject({ tracksGeneration: true, hasStatusSubresource: true, allowUnconditionalUpdate: false });
    expect(logicalClusters).toMatchObject({ namespaced: false, categories: ['kcp'], subresources: { status: true } });
    expect(logicalClusters.shortNames).toBeUndefined();
    const old = runCreate(logicalClusters, { metadata: { name: 'cluster' } }).obj;
    const { obj } = runUpdate(logicalClusters, { ...old, status: { phase: 'Ready' } }, { ...old, status: { phase: 'Scheduling' } });
    expect(obj.status).toEqual({ phase: 'Ready' });
  });

  it('print NAME PHASE URL AGE, with null for a URL not yet set', () => {
    expect(headers(logicalClusters)).toEqual(['NAME', 'PHASE', 'URL', 'AGE']);
    const lc = { metadata: { name: 'cluster', creationTimestamp: '2024-01-01T00:00:00Z' }, status: { phase: 'Initializing' } };
    expect(logicalClusters.printer?.cells(lc, now)).toEqual(['cluster', 'Initializing', null, '60m']);
  });
});

describe('leases', () => {
  it('reject non-positive durations and negative transitions', () => {
    const { errors } = runCreate(leases, { metadata: { name: 'l' }, spec: { leaseDurationSeconds: 0, leaseTransitions: -1, preferredHolder: 'a' } });
    expect(errors).toEqual([
      'spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0',
      'spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0',
      'spec.preferredHolder: Forbidden: may only be specified if `strategy` is defined',
    ]);
  });

  it('print NAME HOLDER AGE', () => {
    expect(headers(leases)).toEqual(['NAME', 'HOLDER', 'AGE']);
    const lease = { metadata: { name: 'kube-scheduler', creationTimestamp: '2023-12-31T16:00:00Z' }, spec: { holderIdentity: 'node-1_abc' } };
    expect(leases.printer?.cells(lease, now)).toEqual(['kube-scheduler', 'node-1_abc', '9h']);
    expect(leases.storageVersionHash).toBe('gqkMMb/YqFM=');
  });
});
