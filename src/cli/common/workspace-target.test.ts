import { describe, expect, it } from 'vitest';
import { homeAlias, targetWorkspace } from './workspace-target.js';

const at = (path: string) => `https://127.0.0.1:6443/clusters/${path}`;

describe('a workspace argument without an alias', () => {
  it('takes root:… and :root:… as absolute, anything else relative to the current workspace', () => {
    expect(targetWorkspace(at('root:org'), 'root:a:b')).toBe('root:a:b');
    expect(targetWorkspace(at('root:org'), ':root:a')).toBe('root:a');
    expect(targetWorkspace(at('root:org'), 'root')).toBe('root');
    expect(targetWorkspace(at('root:org'), 'team')).toBe('root:org:team');
    expect(targetWorkspace(at('root:org:team'), '..')).toBe('root:org');
    expect(targetWorkspace(at('root:org'), '..:other:.')).toBe('root:other');
    expect(targetWorkspace(at('root:org'), undefined)).toBe('root:org');
    // A workspace literally named like a root-prefixed word is still relative.
    expect(targetWorkspace(at('root:org'), 'rooted')).toBe('root:org:rooted');
  });

  it('needs an absolute path when the server URL points at no workspace', () => {
    expect(targetWorkspace('https://127.0.0.1:6443', 'root:org')).toBe('root:org');
    expect(() => targetWorkspace('https://127.0.0.1:6443', 'org')).toThrow(
      '"org" is relative, but the server URL https://127.0.0.1:6443 points at no workspace: give an absolute path like root:org',
    );
    expect(() => targetWorkspace('https://127.0.0.1:6443', undefined)).toThrow('points at no workspace: name one');
  });

  it('rejects paths that are not workspace paths, and going above root', () => {
    expect(() => targetWorkspace(at('root'), 'Bad_Name')).toThrow('invalid workspace path: Bad_Name');
    expect(() => targetWorkspace(at('root'), '..')).toThrow('cannot go above the root workspace');
    expect(() => targetWorkspace(at('root'), '..', { tooHigh: 'cannot go up from root' })).toThrow('cannot go up from root');
  });

  it("reads a shell's expansion of ~ as ~ and / as :", () => {
    expect(targetWorkspace(at('root:org:team'), '../other/x', { home: '/home/alice' })).toBe('root:org:other:x');
    expect(homeAlias('~:sub')).toEqual({ rest: 'sub' });
  });
});

describe('home aliases, resolved with the server', () => {
  it('reads ~, ~:sub, user:<name> and :user:<name>:sub', () => {
    expect(homeAlias('~')).toEqual({ rest: '' });
    expect(homeAlias('~:ci:..')).toEqual({ rest: 'ci:..' });
    expect(homeAlias('user:bob')).toEqual({ user: 'bob', rest: '' });
    expect(homeAlias(':user:bob:team')).toEqual({ user: 'bob', rest: 'team' });
  });

  it('leaves every other argument to the path rules', () => {
    for (const name of ['root:org', 'users', 'user', 'team:user:bob', '~bob']) expect(homeAlias(name)).toBeUndefined();
  });
});
