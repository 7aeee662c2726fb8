/**
 * `kubectl kcp …` (the kubectl-kcp plugin): which kcpt command a kubectl-kcp command line is. kcp's plugin has
 * the subcommands workspace (aliases ws, workspaces), bind, crd, claims and quickstart; kcpt serves the workspace
 * ones today and answers the others with a usage error that says so, instead of a stack trace or oclif's
 * "command not found". Connection flags may come before the subcommand, as cobra's persistent flags do in kcp's.
 */
import { connectionFlags } from '../common/connection-flags.js';
import { hoistFlags } from '../common/flag-order.js';

export type KcpPluginRoute =
  | { kind: 'kcpt'; argv: string[] }
  | { kind: 'exit'; code: number; stdout?: string; stderr?: string };

const workspaceWords = new Set(['ws', 'workspace', 'workspaces']);
const notYetAvailable = new Set(['bind', 'crd', 'claims', 'quickstart']);

const usage = `kubectl kcp: kcp's kubectl plugin, served by kcpt.

Usage:
  kubectl kcp workspace|ws [command] [flags]   Same as "kcpt ws …": show, enter, list, create workspaces

Not yet available in kcpt: bind, crd, claims, quickstart.

Run "kubectl kcp ws --help" for the workspace commands.
`;

export function routeKcpPlugin(argv: string[]): KcpPluginRoute {
  const [command, ...rest] = hoistFlags(argv, connectionFlags, [...workspaceWords, ...notYetAvailable]);
  if (command === undefined || command === '-h' || command === '--help' || command === 'help') {
    return { kind: 'exit', code: 0, stdout: usage };
  }
  if (workspaceWords.has(command)) return { kind: 'kcpt', argv: ['ws', ...rest] };
  if (notYetAvailable.has(command)) {
    const what = command === 'bind' || command === 'crd' ? `${command}${rest[0] && !rest[0].startsWith('-') ? ` ${rest[0]}` : ''}` : command;
    return {
      kind: 'exit',
      code: 2,
      stderr: `Error: "kubectl kcp ${what}" is not yet available in kcpt; "kubectl kcp ws" is. See "kubectl kcp --help".\n`,
    };
  }
  return { kind: 'exit', code: 2, stderr: `Error: unknown command "${command}" for "kubectl kcp". See "kubectl kcp --help".\n` };
}
