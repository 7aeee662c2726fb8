import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadTokenAuthFile, parseTokenAuthFile } from './token-file.js';

describe('parseTokenAuthFile', () => {
  it('reads kcp e2e style rows with quoted group lists', () => {
    const text = [
      'user-1-token,user-1,1111-1111-1111-1111,"team-1"',
      'user-2-token,user-2,1111-1111-1111-1112,"team-2,team-3"',
      'admin-token,admin,1111-1111-1111-1113,"system:masters"',
      '',
    ].join('\n');
    expect(parseTokenAuthFile(text)).toEqual([
      { token: 'user-1-token', user: { username: 'user-1', uid: '1111-1111-1111-1111', groups: ['team-1'] } },
      { token: 'user-2-token', user: { username: 'user-2', uid: '1111-1111-1111-1112', groups: ['team-2', 'team-3'] } },
      { token: 'admin-token', user: { username: 'admin', uid: '1111-1111-1111-1113', groups: ['system:masters'] } },
    ]);
  });

  it('accepts three columns, unquoted single groups, extra columns, CRLF, blank lines and no final newline', () => {
    const text = '\r\nt1,alice,uid-a\r\n\r\nt2,bob,uid-b,devs,ignored\r\nt3,carol,uid-c,""';
    expect(parseTokenAuthFile(text)).toEqual([
      { token: 't1', user: { username: 'alice', uid: 'uid-a', groups: [] } },
      { token: 't2', user: { username: 'bob', uid: 'uid-b', groups: ['devs'] } },
      { token: 't3', user: { username: 'carol', uid: 'uid-c', groups: [] } },
    ]);
  });

  it('keeps spaces like kube does and unescapes doubled quotes', () => {
    const [entry] = parseTokenAuthFile('tok, spaced ,uid,"a, b","x"\n');
    expect(entry!.user).toEqual({ username: ' spaced ', uid: 'uid', groups: ['a', ' b'] });
    expect(parseTokenAuthFile('tok,"say ""hi""",uid\n')[0]!.user.username).toBe('say "hi"');
  });

  it('allows a quoted field to span lines and reports later lines correctly', () => {
    const text = 'a,u,1,"g1,\ng2"\nbad-line\n';
    expect(() => parseTokenAuthFile(text, { source: '/etc/tokens.csv' })).toThrow(
      'token file "/etc/tokens.csv" line 3: must have at least 3 columns (token, user name, user uid), found 1',
    );
    expect(parseTokenAuthFile('a,u,1,"g1,\ng2"\n')[0]!.user.groups).toEqual(['g1', '\ng2']);
  });

  it('has no comment syntax: a # line is a short record, like in kube', () => {
    expect(() => parseTokenAuthFile('# tokens\nt,u,1\n')).toThrow(/line 1: must have at least 3 columns .* found 1/);
    // A comment that happens to have three columns is just a user whose token starts with '#'.
    expect(parseTokenAuthFile('# a,b,c\n')[0]!.token).toBe('# a');
  });

  it('names the line of malformed quoting', () => {
    expect(() => parseTokenAuthFile('t,u,1\nt2,u"2,2\n')).toThrow('line 2, column 5: bare " in non-quoted-field');
    expect(() => parseTokenAuthFile('t,u,1\nt2,"u"x,2\n')).toThrow('line 2, column 7: extraneous or missing " in quoted-field');
    expect(() => parseTokenAuthFile('t,u,1\nt2,u,2,"open\n')).toThrow(/line 2, column \d+: extraneous or missing "/);
  });

  it('skips empty tokens and lets the last duplicate win, warning about both', () => {
    const warnings: string[] = [];
    const entries = parseTokenAuthFile(',nobody,0\nt,first,1\nt,second,2\n', { source: 'f.csv', onWarning: (m) => warnings.push(m) });
    expect(entries.map((e) => e.user.username)).toEqual(['second']);
    expect(warnings).toEqual([
      'empty token has been found in token file "f.csv", record number 1 (line 1)',
      'duplicate token has been found in token file "f.csv", record number 3 (line 3)',
    ]);
  });

  it('loads a file and uses its path in messages', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'kcpt-tokenfile-'));
    try {
      const file = path.join(dir, 'tokens.csv');
      await fs.writeFile(file, 'tok,u,1,"g"\nshort\n');
      await expect(loadTokenAuthFile(file)).rejects.toThrow(`token file "${file}" line 2:`);
      await fs.writeFile(file, 'tok,u,1,"g"\n');
      expect(await loadTokenAuthFile(file)).toHaveLength(1);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
