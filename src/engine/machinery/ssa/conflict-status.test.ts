import { describe, expect, it } from 'vitest';
import type { Conflict } from './apply.js';
import { conflictMessage, conflictStatus } from './conflict-status.js';

const c = (manager: string, operation: string, path: string, apiVersion = 'v1'): Conflict => ({ manager, operation, apiVersion, path, rawPath: [] });

describe('conflict status', () => {
  it('one conflict with an Update manager matches kube exactly', () => {
    const err = conflictStatus([c('kubectl-client-side-apply', 'Update', '.data.a')]);
    expect(err.toStatus()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      reason: 'Conflict',
      code: 409,
      message: 'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1: .data.a',
      details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "kubectl-client-side-apply" using v1', field: '.data.a' }] },
    });
  });

  it.each([
    [[c('alice', 'Apply', '.data.a')], 'Apply failed with 1 conflict: conflict with "alice": .data.a'],
    [
      [c('bob', 'Update', '.data.b'), c('alice', 'Apply', '.data.a'), c('alice', 'Apply', '.data.c')],
      'Apply failed with 3 conflicts: conflicts with "alice":\n- .data.a\n- .data.c\nconflicts with "bob" using v1:\n- .data.b',
    ],
    [[{ ...c('ctl', 'Update', '.status.x'), subresource: 'status' }], 'Apply failed with 1 conflict: conflict with "ctl" with subresource "status" using v1: .status.x'],
  ])('message %#', (conflicts, want) => {
    expect(conflictMessage(conflicts)).toBe(want);
  });
});
