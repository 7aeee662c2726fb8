import { describe, expect, it } from 'vitest';
import { baseName, clusterUrl, isValidPath, parentPath, parseClusterUrl, resolveDots, rootOf } from './workspace-path.js';

describe('workspace paths', () => {
  it('accepts kcp path grammar and rejects the rest', () => {
    for (const ok of ['root', 'root:org:team', 'abc123', 'system:admin', 'root:a-b']) expect(isValidPath(ok), ok).toBe(true);
    for (const bad of ['', 'Root', 'root:', ':root', 'root::a', 'a_b', '-a', 'a-', 'root:~', `root:${'a'.repeat(64)}`]) {
      expect(isValidPath(bad), bad).toBe(false);
    }
  });

  it('splits paths into parent, base and root', () => {
    expect(parentPath('root:org:team')).toBe('root:org');
    expect(parentPath('root')).toBeUndefined();
    expect(parentPath('system:admin')).toBeUndefined();
    expect(baseName('root:org:team')).toBe('team');
    expect(rootOf('root:org:team')).toBe('root');
    expect(rootOf('2x8k1q0v9m3fgh7a:child')).toBe('2x8k1q0v9m3fgh7a');
  });

  it('resolves . and .. segment by segment', () => {
    expect(resolveDots('root:org:..:users:.:zu', 'x')).toBe('root:users:zu');
    expect(resolveDots('root:org:..:..', 'x')).toBe('');
    expect(() => resolveDots('root:..:..', 'cannot go up from root')).toThrow('cannot go up from root');
  });

  it('parses and builds cluster URLs keeping a path prefix', () => {
    const parsed = parseClusterUrl('https://h:6443/proxy/clusters/root:org/api/v1');
    expect(parsed?.path).toBe('root:org');
    expect(parsed?.base.href).toBe('https://h:6443/proxy');
    expect(clusterUrl(parsed!.base, 'root:users')).toBe('https://h:6443/proxy/clusters/root:users');
    expect(parseClusterUrl('https://h:6443')).toBeUndefined();
    expect(parseClusterUrl('https://h:6443/clusters/Bad')).toBeUndefined();
  });
});
