import { describe, expect, it } from 'vitest';
import { impersonationHeaders } from './impersonation.js';

describe('impersonationHeaders', () => {
  // Node keeps repeated headers apart in rawHeaders; kube reads a repeated Impersonate-User or -Uid with Go's
  // Header.Get (the first value) and every Impersonate-Group and -Extra-* value.
  it('takes the first of repeated user and uid headers, and every group and extra value', () => {
    const raw = [
      'Host', 'x',
      'Impersonate-User', 'alice',
      'impersonate-user', 'bob',
      'Impersonate-Uid', 'u-1',
      'Impersonate-Uid', 'u-2',
      'Impersonate-Group', 'g1',
      'impersonate-group', 'g2',
      'Impersonate-Extra-Scopes%2Fa', 'one',
      'Impersonate-Extra-scopes%2Fa', 'two',
    ];
    expect(impersonationHeaders(raw)).toStrictEqual({ user: 'alice', uid: 'u-1', groups: ['g1', 'g2'], extra: { 'scopes/a': ['one', 'two'] } });
    expect(impersonationHeaders(['Host', 'x', 'Accept', 'y'])).toBeUndefined();
  });
});
