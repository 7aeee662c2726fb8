import { describe, expect, it } from 'vitest';
import { decideForDependent, type ClassifiedReference, type DependentFacts } from './gc-decisions.js';

const facts = (over: Partial<DependentFacts> = {}): DependentFacts => ({
  finalizers: [],
  hasDependents: () => false,
  hasDependentDeletingInForeground: () => false,
  ...over,
});
const ref = (uid: string, state: ClassifiedReference['state']): ClassifiedReference => ({ uid, state });

describe('decideForDependent', () => {
  it('keeps objects without owners or with only live owners', () => {
    expect(decideForDependent([], facts())).toEqual({ action: 'keep' });
    expect(decideForDependent([ref('a', 'solid'), ref('b', 'solid')], facts())).toEqual({ action: 'keep' });
  });

  it('drops only the dangling and waiting references while a live owner remains', () => {
    expect(decideForDependent([ref('a', 'solid'), ref('b', 'dangling'), ref('c', 'waiting')], facts())).toEqual({
      action: 'dropReferences',
      uids: ['b', 'c'],
    });
  });

  it('deletes in the background when every owner is gone, honouring a GC finalizer already set', () => {
    expect(decideForDependent([ref('a', 'dangling')], facts())).toEqual({ action: 'delete', policy: 'Background', unblockFirst: false });
    expect(decideForDependent([ref('a', 'dangling')], facts({ finalizers: ['orphan'] }))).toMatchObject({ policy: 'Orphan' });
    expect(decideForDependent([ref('a', 'dangling')], facts({ finalizers: ['foregroundDeletion'] }))).toMatchObject({
      policy: 'Foreground',
    });
  });

  it('propagates a foreground deletion to dependents that have dependents of their own', () => {
    expect(decideForDependent([ref('a', 'waiting')], facts())).toMatchObject({ policy: 'Background' });
    expect(decideForDependent([ref('a', 'waiting'), ref('b', 'dangling')], facts({ hasDependents: () => true }))).toEqual({
      action: 'delete',
      policy: 'Foreground',
      unblockFirst: false,
    });
    expect(
      decideForDependent([ref('a', 'waiting')], facts({ hasDependents: () => true, hasDependentDeletingInForeground: () => true })),
    ).toEqual({ action: 'delete', policy: 'Foreground', unblockFirst: true });
  });
});
