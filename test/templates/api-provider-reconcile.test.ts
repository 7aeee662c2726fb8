/** The starter project's reconcile decision (templates/api-provider/src/reconcile.ts), without a server. */
import { describe, expect, it } from 'vitest';
import { desiredStatus } from '../../templates/api-provider/src/reconcile.js';

const now = new Date('2026-11-24T07:00:00.123Z');

describe('api-provider template: desiredStatus', () => {
  it('a new Widget gets observedGeneration and a Ready condition', () => {
    expect(desiredStatus({ metadata: { generation: 1 }, spec: { size: 3, colour: 'teal' } }, now)).toEqual({
      observedGeneration: 1,
      conditions: [{ type: 'Ready', status: 'True', reason: 'Reconciled', message: 'a teal widget of size 3 is ready', lastTransitionTime: '2026-11-24T07:00:00Z' }],
    });
  });

  it('a reconciled Widget needs nothing; a new generation is reconciled again, keeping the transition time', () => {
    const status = desiredStatus({ metadata: { generation: 1 }, spec: { size: 3 } }, now)!;
    expect(desiredStatus({ metadata: { generation: 1 }, spec: { size: 3 }, status }, new Date())).toBeUndefined();
    const next = desiredStatus({ metadata: { generation: 2 }, spec: { size: 4 }, status }, new Date('2026-12-01T00:00:00Z'))!;
    expect(next.observedGeneration).toBe(2);
    expect(next.conditions![0]!.lastTransitionTime).toBe('2026-11-24T07:00:00Z');
  });
});
