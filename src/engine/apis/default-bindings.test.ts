import { describe, expect, it } from 'vitest';
import type { WorkspaceType } from '../tenancy/workspace-types.js';
import { aggregate, bindingErrors, defaultExportRefs, desiredBinding, inheritedSelector, isBound, maintainsBindings, setCondition, waitingOnBindings } from './default-bindings.js';
import type { APIBinding, APIExport } from './types.js';

const wst = (name: string, path: string, spec: WorkspaceType['spec']): WorkspaceType => ({ metadata: { name, annotations: { 'kcp.io/path': path } }, spec });

describe('default APIBindings of a workspace type', () => {
  it('collects the exports of every alias once, a path-less export living beside its type (its cluster name)', () => {
    const base = wst('base', 'root', { defaultAPIBindings: [{ path: 'root:p', export: 'widgets' }] });
    const leaf = wst('leaf', 'root:org', {
      defaultAPIBindingLifecycle: 'Maintain',
      defaultAPIBindings: [{ export: 'local-api' }, { path: 'root:p', export: 'widgets' }],
    });
    const refs = defaultExportRefs([base, leaf], (t) => (t === leaf ? 'orgcluster' : 'root'));
    expect(refs).toEqual([
      { path: 'root:p', export: 'widgets', maintain: true },
      { path: 'orgcluster', export: 'local-api', maintain: true },
    ]);
    expect(maintainsBindings([base])).toBe(false);
    expect(maintainsBindings([base, leaf])).toBe(true);
  });

  it('binds with kcp’s name and accepts every claim of the export, matchAll unless the parent narrowed it', () => {
    const exp: APIExport = {
      metadata: { name: 'widgets' },
      spec: { permissionClaims: [{ group: '', resource: 'configmaps', verbs: ['get', 'list'] }, { group: '', resource: 'secrets', verbs: ['*'] }] },
    };
    const ref = { path: 'root:p', export: 'widgets', maintain: false };
    const parent: APIBinding[] = [
      {
        metadata: { name: 'widgets-abcde' },
        spec: {
          reference: { export: { path: 'root:p', name: 'widgets' } },
          permissionClaims: [{ group: '', resource: 'secrets', identityHash: '', verbs: ['*'], selector: { matchLabels: { app: 'x' } }, state: 'Accepted' }],
        },
      },
    ];
    const b = desiredBinding('c1', ref, exp, (claim) => inheritedSelector(parent, ref, claim));
    expect(b.metadata?.name).toMatch(/^widgets-[0-9a-z]{5}$/);
    expect(b.spec.reference).toEqual({ export: { path: 'root:p', name: 'widgets' } });
    expect(b.spec.permissionClaims).toEqual([
      { group: '', resource: 'configmaps', identityHash: '', verbs: ['get', 'list'], selector: { matchAll: true }, state: 'Accepted' },
      { group: '', resource: 'secrets', identityHash: '', verbs: ['*'], selector: { matchLabels: { app: 'x' } }, state: 'Accepted' },
    ]);
    expect(desiredBinding('c1', ref, { metadata: { name: 'widgets' } }, () => undefined).spec).not.toHaveProperty('permissionClaims');
  });

  it('is bound once InitialBindingCompleted is True', () => {
    const b = (status: string): APIBinding => ({
      spec: { reference: { export: { name: 'x' } } },
      status: { conditions: [{ type: 'InitialBindingCompleted', status: status as 'True', lastTransitionTime: '' }] },
    });
    expect(isBound(b('True'))).toBe(true);
    expect(isBound(b('False'))).toBe(false);
  });

  it('reports with kcp’s reasons and messages and writes a condition only when it changes', () => {
    expect(aggregate(['a'])).toBe('a');
    expect(aggregate(['a', 'b'])).toBe('[a, b]');
    const err = bindingErrors('APIBindingsInitialized', ['unable to complete initialization: unable to find at least 1 APIExport']);
    expect(err).toMatchObject({ reason: 'APIBindingErrors', severity: 'Error', message: 'encountered errors: unable to complete initialization: unable to find at least 1 APIExport' });
    expect(waitingOnBindings('APIBindingsInitialized', ['b-2', 'a-1'], 'bound').message).toBe('APIBinding(s) not yet fully bound: a-1, b-2');
    const first = setCondition([], err, 't1')!;
    expect(first).toEqual([{ ...err, lastTransitionTime: 't1' }]);
    expect(setCondition(first, err, 't2')).toBeUndefined();
    const waiting = setCondition(first, waitingOnBindings('APIBindingsInitialized', ['x'], 'bound'), 't3')!;
    expect(waiting[0]!.lastTransitionTime).toBe('t1');
    const done = setCondition(waiting, { type: 'APIBindingsInitialized', status: 'True' }, 't4')!;
    expect(done).toEqual([{ type: 'APIBindingsInitialized', status: 'True', lastTransitionTime: 't4' }]);
  });
});
