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
    expect(routeKcpPlugin(['--server=https://h:6443', 'bind', 'apiexport', 'x'])).toEqual({ kind: 'kcpt', argv: ['bind', 'x', '--server=https://h:6443'] });
    expect(routeKcpPlugin(['crd', '--kubeconfig', '/k', 'snapshot', '-f', 'a.yaml'])).toEqual({
      kind: 'kcpt',
      argv: ['export', 'snapshot', '-f', 'a.yaml', '--kubeconfig', '/k'],
    });
  });

  it('runs bind apiexport as kcpt bind and crd snapshot as kcpt export snapshot', () => {
    expect(routeKcpPlugin(['bind', 'apiexport', 'root:org:export', '--name', 'b', '--kubeconfig', '/k'])).toEqual({
      kind: 'kcpt',
      argv: ['bind', 'root:org:export', '--name', 'b', '--kubeconfig', '/k'],
    });
    expect(routeKcpPlugin(['crd', 'snapshot', '-f', 'x.yaml', '--prefix', 'v1'])).toEqual({
      kind: 'kcpt',
      argv: ['export', 'snapshot', '-f', 'x.yaml', '--prefix', 'v1'],
    });
  });

  it('prints the usage of bind and crd without a subcommand, and rejects unknown ones with exit 2', () => {
    expect(routeKcpPlugin(['bind'])).toMatchObject({ kind: 'exit', code: 0, stdout: expect.stringContaining('kubectl kcp bind apiexport [flags]') });
    expect(routeKcpPlugin(['crd', '--help'])).toMatchObject({ kind: 'exit', code: 0, stdout: expect.stringContaining('kubectl kcp crd snapshot [flags]') });
    expect(routeKcpPlugin(['bind', 'workspace', 'x'])).toEqual({
      kind: 'exit',
      code: 2,
      stderr: 'Error: unknown command "workspace" for "kubectl kcp bind". Available: apiexport.\n',
    });
  });

  it('answers the subcommands kcpt does not serve yet with a usage error naming them', () => {
    expect(routeKcpPlugin(['claims', 'get', 'apibinding'])).toEqual({
      kind: 'exit',
      code: 2,
      stderr: 'Error: "kubectl kcp claims" is not yet available in kcpt; "kubectl kcp ws", "bind" and "crd" are. See "kubectl kcp --help".\n',
    });
    expect(routeKcpPlugin(['quickstart'])).toMatchObject({ code: 2, stderr: expect.stringContaining('"kubectl kcp quickstart" is not yet') });
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
