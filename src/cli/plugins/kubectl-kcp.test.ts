import { describe, expect, it } from 'vitest';
import { routeKcpPlugin } from './kubectl-kcp.js';

describe('kubectl kcp routing', () => {
  it('runs the workspace commands as kcpt ws, with every argument and flag passed on', () => {
    for (const word of ['ws', 'workspace', 'workspaces']) {
      expect(routeKcpPlugin([word, 'use', ':root:org', '--kubeconfig', '/k'])).toEqual({
        kind: 'kcpt',
        argv: ['ws', 'use', ':root:org', '--kubeconfig', '/k'],
      });
    }
    expect(routeKcpPlugin(['ws'])).toEqual({ kind: 'kcpt', argv: ['ws'] });
  });

  it('takes connection flags before the subcommand, as kcp\'s persistent flags', () => {
    expect(routeKcpPlugin(['--context', 'team', 'ws', 'use', 'a'])).toEqual({ kind: 'kcpt', argv: ['ws', 'use', 'a', '--context', 'team'] });
    expect(routeKcpPlugin(['--server=https://h:6443', 'bind', 'apiexport', 'x'])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('"kubectl kcp bind apiexport" is not yet available'),
    });
  });

  it('answers the subcommands kcpt does not serve yet with a usage error naming them', () => {
    expect(routeKcpPlugin(['bind', 'apiexport', 'root:org:export'])).toEqual({
      kind: 'exit',
      code: 2,
      stderr: 'Error: "kubectl kcp bind apiexport" is not yet available in kcpt; "kubectl kcp ws" is. See "kubectl kcp --help".\n',
    });
    expect(routeKcpPlugin(['crd', 'snapshot', '-f', 'x.yaml'])).toMatchObject({ code: 2, stderr: expect.stringContaining('"kubectl kcp crd snapshot" is not yet available') });
    expect(routeKcpPlugin(['crd', '--help'])).toMatchObject({ code: 2, stderr: expect.stringContaining('"kubectl kcp crd" is not yet available') });
    expect(routeKcpPlugin(['claims', 'get', 'apibinding'])).toMatchObject({ code: 2, stderr: expect.stringContaining('"kubectl kcp claims" is not yet') });
  });

  it('prints its usage for no command or --help, and rejects unknown commands with exit 2', () => {
    for (const argv of [[], ['--help'], ['-h'], ['help']]) {
      const route = routeKcpPlugin(argv);
      expect(route).toMatchObject({ kind: 'exit', code: 0 });
      expect((route as { stdout: string }).stdout).toContain('kubectl kcp workspace|ws');
    }
    expect(routeKcpPlugin(['frobnicate'])).toEqual({
      kind: 'exit',
      code: 2,
      stderr: 'Error: unknown command "frobnicate" for "kubectl kcp". See "kubectl kcp --help".\n',
    });
  });
});
