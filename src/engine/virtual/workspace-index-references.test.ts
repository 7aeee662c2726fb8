import { describe, expect, it } from 'vitest';
import { StatusError } from '../machinery/status.js';
import { isReferenceMarker, leadsTo, onlyHeaderValue, parseIndexJoin, referenceMarker, REFERENCES_FIELD, withReferences } from './workspace-index-references.js';

const ref = { parent: '2zpojaqpi0g3upjm', name: 'app', cluster: '1wegleviksn0pa5z', path: 'root:team:app' };

describe('the workspace index join headers', () => {
  it('asks for nothing unless told: direct clients see what they always saw', () => {
    expect(parseIndexJoin({})).toEqual({ references: false });
    expect(parseIndexJoin(undefined)).toEqual({ references: false });
    expect(parseIndexJoin({ 'kcpt-workspace-index-references': 'true' })).toEqual({ references: true });
  });

  it('restricts to the named workspaces, and refuses a name that is not <parent>/<name> with a 400', () => {
    const join = parseIndexJoin({ 'kcpt-workspace-index-only': onlyHeaderValue([ref, { parent: 'root', name: 'team' }]) });
    expect([...join.only!]).toEqual([
      ['/registry/tenancy.kcp.io/workspaces/2zpojaqpi0g3upjm/app', '1wegleviksn0pa5z'],
      ['/registry/tenancy.kcp.io/workspaces/root/team', undefined],
    ]);
    for (const bad of ['app', 'a/b/c/d', '../x/y', 'root/', 'Root/x', 'a/b/C']) {
      let err: unknown;
      try {
        parseIndexJoin({ 'kcpt-workspace-index-only': bad });
      } catch (e) {
        err = e;
      }
      expect(err, bad).toBeInstanceOf(StatusError);
      expect((err as StatusError).code).toBe(400);
      expect((err as StatusError).message).toContain('is not <parent cluster>/<workspace name>[/<cluster>]');
    }
  });

  it('carries references as a LIST field and as watch event objects', () => {
    const body = JSON.parse(withReferences('{"kind":"WorkspaceList","items":[]}', [ref]));
    expect(body).toEqual({ kind: 'WorkspaceList', items: [], [REFERENCES_FIELD]: [ref] });
    const marker = referenceMarker(ref, 42, true);
    expect(isReferenceMarker(marker)).toBe(true);
    expect(marker).toMatchObject({ ...ref, metadata: { resourceVersion: '42' }, resumed: true });
    expect(isReferenceMarker({ kind: 'Workspace', metadata: { name: 'app' } })).toBe(false);
  });

  it('counts a Workspace for a cluster only when it points back at it (a LogicalCluster’s owner is writable)', () => {
    expect(leadsTo({ spec: { cluster: ref.cluster } }, ref.cluster)).toBe(true);
    expect(leadsTo({ spec: { cluster: 'someone-elses' } }, ref.cluster)).toBe(false);
    expect(leadsTo({ spec: {} }, ref.cluster)).toBe(false);
    expect(leadsTo({ spec: {} }, undefined)).toBe(true);
  });
});
