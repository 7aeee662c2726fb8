/**
 * `kubectl kcp …` (the kubectl-kcp plugin): which kcpt command a kubectl-kcp command line is. kcp's plugin has
 * the subcommands workspace (aliases ws, workspaces), bind, crd, claims and quickstart: `workspace` runs `kcpt ws`,
 * `bind apiexport` runs `kcpt bind`, `crd snapshot` runs `kcpt export snapshot`; claims and quickstart are answered
 * with a usage error that says so, instead of a stack trace or oclif's "command not found". Connection flags may
 * come before the subcommand, as cobra's persistent flags do in kcp's.
 */
import { connectionFlags } from '../common/connection-flags.js';
import { hoistFlags } from '../common/flag-order.js';

export type KcpPluginRoute =
  | { kind: 'kcpt'; argv: string[] }
  | { kind: 'exit'; code: number; stdout?: string; stderr?: string };

const workspaceWords = new Set(['ws', 'workspace', 'workspaces']);
const notYetAvailable = new Set(['claims', 'quickstart']);
const helpWords = new Set(['-h', '--help', 'help']);

const usage = `kubectl kcp: kcp's kubectl plugin, served by kcpt.

Usage:
  kubectl kcp workspace|ws [command] [flags]          Same as "kcpt ws …": show, enter, list, create workspaces
  kubectl kcp bind apiexport <path>:<export> [flags]  Same as "kcpt bind": bind an APIExport into the current workspace
  kubectl kcp crd snapshot -f FILE --prefix P         Same as "kcpt export snapshot": CRDs to APIResourceSchemas

Not yet available in kcpt: claims, quickstart.

Run "kubectl kcp ws --help", "kubectl kcp bind apiexport --help" or "kubectl kcp crd snapshot --help" for details.
`;

/** A group command (`bind`, `crd`) with one subcommand: its usage for no word or help, an error for anything else. */
function subcommand(group: string, sub: string, summary: string, rest: string[], argv: (rest: string[]) => string[]): KcpPluginRoute {
  const [word, ...more] = rest;
  if (word === sub) return { kind: 'kcpt', argv: argv(more) };
  if (word === undefined || helpWords.has(word)) {
    return { kind: 'exit', code: 0, stdout: `${summary}\n\nUsage:\n  kubectl kcp ${group} ${sub} [flags]\n` };
  }
  return { kind: 'exit', code: 2, stderr: `Error: unknown command "${word}" for "kubectl kcp ${group}". Available: ${sub}.\n` };
}

export function routeKcpPlugin(argv: string[]): KcpPluginRoute {
  const [command, ...rest] = hoistFlags(argv, connectionFlags, [...workspaceWords, 'bind apiexport', 'crd snapshot', ...notYetAvailable]);
  if (command === undefined || helpWords.has(command)) return { kind: 'exit', code: 0, stdout: usage };
  if (workspaceWords.has(command)) return { kind: 'kcpt', argv: ['ws', ...rest] };
  if (command === 'bind') return subcommand('bind', 'apiexport', 'Bind different types into current workspace.', rest, (more) => ['bind', ...more]);
  if (command === 'crd') return subcommand('crd', 'snapshot', 'CRD related operations.', rest, (more) => ['export', 'snapshot', ...more]);
  if (notYetAvailable.has(command)) {
    return {
      kind: 'exit',
      code: 2,
      stderr: `Error: "kubectl kcp ${command}" is not yet available in kcpt; "kubectl kcp ws", "bind" and "crd" are. See "kubectl kcp --help".\n`,
    };
  }
  return { kind: 'exit', code: 2, stderr: `Error: unknown command "${command}" for "kubectl kcp". See "kubectl kcp --help".\n` };
}
