import { describe, expect, it } from 'vitest';
import { computeCRDStatus, defaultCRD, findNameConflict, withTerminating, type CustomResourceDefinition } from './crd.js';

function crd(plural: string, kind: string, extra: Partial<CustomResourceDefinition['spec']['names']> = {}): CustomResourceDefinition {
  const c: CustomResourceDefinition = {
    metadata: { name: `${plural}.example.com` },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural, kind, ...extra },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }],
    },
  };
  defaultCRD(c);
  return c;
}

function accepted(c: CustomResourceDefinition): CustomResourceDefinition {
  return { ...c, status: computeCRDStatus(c, [], '2026-01-01T00:00:00Z') };
}

describe('CRD defaulting', () => {
  it('fills singular, listKind and conversion None like kube v1 defaulting', () => {
    const c = crd('widgets', 'Widget');
    expect(c.spec.names.singular).toBe('widget');
    expect(c.spec.names.listKind).toBe('WidgetList');
    expect(c.spec.conversion).toEqual({ strategy: 'None' });
  });
});

describe('CRD status', () => {
  it('accepts names and becomes Established with kube reasons and messages', () => {
    const status = computeCRDStatus(crd('widgets', 'Widget', { shortNames: ['wd'] }), [], '2026-01-01T00:00:00Z');
    expect(status.acceptedNames).toEqual({ plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList', shortNames: ['wd'] });
    expect(status.conditions).toEqual([
      { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found', lastTransitionTime: '2026-01-01T00:00:00Z' },
      {
        type: 'Established',
        status: 'True',
        reason: 'InitialNamesAccepted',
        message: 'the initial names have been accepted',
        lastTransitionTime: '2026-01-01T00:00:00Z',
      },
    ]);
    expect(status.storedVersions).toEqual(['v1']);
  });

  it('reports each kind of name conflict with the name in use', () => {
    const other = accepted(crd('widgets', 'Widget', { shortNames: ['wd'] }));
    expect(findNameConflict(crd('widgets', 'Gadget').spec.names, [other])).toEqual({ reason: 'PluralConflict', message: '"widgets" is already in use' });
    expect(findNameConflict(crd('gadgets', 'Gadget', { singular: 'widget' }).spec.names, [other])?.reason).toBe('SingularConflict');
    expect(findNameConflict(crd('gadgets', 'Gadget', { shortNames: ['wd'] }).spec.names, [other])).toEqual({
      reason: 'ShortNamesConflict',
      message: '"wd" is already in use',
    });
    // Every name is checked and the last conflict wins: a duplicate kind with the default listKind is ListKindConflict.
    expect(findNameConflict(crd('gadgets', 'Widget', { singular: 'gadget', listKind: 'GadgetList' }).spec.names, [other])?.reason).toBe('KindConflict');
    expect(findNameConflict(crd('gadgets', 'Widget', { singular: 'gadget' }).spec.names, [other])).toEqual({
      reason: 'ListKindConflict',
      message: '"WidgetList" is already in use',
    });
    expect(findNameConflict(crd('gadgets', 'Gadget', { listKind: 'WidgetList' }).spec.names, [other])?.reason).toBe('ListKindConflict');
    expect(findNameConflict(crd('gadgets', 'Gadget').spec.names, [other])).toBeUndefined();
  });

  it('a conflicting new CRD is not Established; once the conflict is gone it is', () => {
    const other = accepted(crd('widgets', 'Widget'));
    const mine = crd('gadgets', 'Widget', { singular: 'gadget' });
    const blocked = computeCRDStatus(mine, [other], 't1');
    expect(blocked.conditions?.find((c) => c.type === 'NamesAccepted')).toMatchObject({ status: 'False', reason: 'ListKindConflict' });
    // names without a conflict are accepted one by one, the conflicting ones stay unset
    expect(blocked.acceptedNames).toEqual({ plural: 'gadgets', singular: 'gadget', kind: '' });
    expect(blocked.conditions?.find((c) => c.type === 'Established')).toMatchObject({ status: 'False', reason: 'NotAccepted' });
    const freed = computeCRDStatus({ ...mine, status: blocked }, [], 't2');
    expect(freed.conditions?.find((c) => c.type === 'Established')).toMatchObject({ status: 'True', lastTransitionTime: 't2' });
    expect(freed.acceptedNames?.kind).toBe('Widget');
  });

  it('keeps lastTransitionTime while a condition holds and accumulates storedVersions', () => {
    const first = accepted(crd('widgets', 'Widget'));
    const next = structuredClone(first);
    next.spec.versions = [
      { name: 'v1', served: true, storage: false },
      { name: 'v2', served: true, storage: true },
    ];
    const status = computeCRDStatus(next, [], 'later');
    expect(status.conditions?.every((c) => c.lastTransitionTime === '2026-01-01T00:00:00Z')).toBe(true);
    expect(status.storedVersions).toEqual(['v1', 'v2']);
  });

  it('adds Terminating while the CRD is deleted', () => {
    const conditions = withTerminating([], 'now');
    expect(conditions).toEqual([
      { type: 'Terminating', status: 'True', reason: 'InstanceDeletionInProgress', message: 'CustomResource deletion is in progress', lastTransitionTime: 'now' },
    ]);
  });
});
