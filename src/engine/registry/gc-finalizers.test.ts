import { describe, expect, it } from 'vitest';
import { finalizersAfterDelete } from './gc-finalizers.js';

describe('finalizersAfterDelete', () => {
  it('adds the finalizer a policy asks for, and nothing for Background', () => {
    expect(finalizersAfterDelete([], { propagationPolicy: 'Foreground' })).toEqual(['foregroundDeletion']);
    expect(finalizersAfterDelete([], { propagationPolicy: 'Orphan' })).toEqual(['orphan']);
    expect(finalizersAfterDelete([], { propagationPolicy: 'Background' })).toBeUndefined();
    expect(finalizersAfterDelete([], {})).toBeUndefined();
  });

  it('honours the legacy orphanDependents over everything else', () => {
    expect(finalizersAfterDelete([], { orphanDependents: true })).toEqual(['orphan']);
    expect(finalizersAfterDelete(['foregroundDeletion'], { orphanDependents: true })).toEqual(['orphan']);
    expect(finalizersAfterDelete(['orphan'], { orphanDependents: false })).toEqual([]);
  });

  it('a later policy replaces the GC finalizer of an earlier delete; other finalizers stay in order', () => {
    expect(finalizersAfterDelete(['a/x', 'orphan', 'b/y'], { propagationPolicy: 'Foreground' })).toEqual([
      'a/x',
      'b/y',
      'foregroundDeletion',
    ]);
    expect(finalizersAfterDelete(['a/x', 'foregroundDeletion'], { propagationPolicy: 'Background' })).toEqual(['a/x']);
    expect(finalizersAfterDelete(['foregroundDeletion'], { propagationPolicy: 'Foreground' })).toBeUndefined();
  });

  it('without a policy, a GC finalizer already on the object decides', () => {
    expect(finalizersAfterDelete(['foregroundDeletion', 'a/x'], {})).toBeUndefined();
    expect(finalizersAfterDelete(['orphan'], {})).toBeUndefined();
    expect(finalizersAfterDelete(['a/x'], {})).toBeUndefined();
  });
});
