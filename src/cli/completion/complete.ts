/**
 * `kcpt __complete WORD…` (hidden; what the shell scripts of `kcpt completion` and kubectl's plugin completion call):
 * the candidates for the last word of a command line, one per line, then cobra's `:<directive>` line, so kubectl's
 * own completion can use it for `kubectl ws <TAB>` (kubectl_complete-ws) as well as our scripts.
 *
 * Commands, aliases and flags come from the oclif manifest the build writes (every command, each once). Values:
 * workspaces (for `ws`, `ws use`, `kubeconfig`, `-w`, `--parent`) are listed from the server of the kubeconfig and
 * connection flags on the line, children of the workspace the typed path leads to; `--context` from the kubeconfig;
 * `-o` the formats that command takes; files and directories are left to the shell. Anything failing (no server, no
 * kubeconfig) completes nothing rather than printing an error into the user's prompt.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { FlagValues } from '../common/command-spec.js';
import { connectionFlags, connectionFlagValues } from '../common/connection-flags.js';
import { resolveConfig } from '../common/connection.js';
import { KubeClient } from '../../client/http-client.js';
import { joinPath, parseClusterUrl, resolveDots } from '../../client/workspace-path.js';
import { commandSpecs } from '../registry.js';
import { kcptPackageRoot } from '../server/package-root.js';

/** cobra's ShellCompDirective bits. */
export const Directive = { Default: 0, NoSpace: 2, NoFileComp: 4, FilterDirs: 16 } as const;

export interface Completion {
  candidates: string[];
  directive: number;
}

interface ManifestFlag {
  name: string;
  char?: string;
  type: 'option' | 'boolean';
  options?: string[];
  multiple?: boolean;
  hidden?: boolean;
}

interface ManifestCommand {
  id: string;
  aliases: string[];
  hidden?: boolean;
  args: Record<string, unknown>;
  flags: Record<string, ManifestFlag>;
}

function loadCommands(): ManifestCommand[] {
  const manifest = JSON.parse(readFileSync(path.join(kcptPackageRoot(), '.oclif.manifest.json'), 'utf8')) as { commands: Record<string, ManifestCommand> };
  return Object.values(manifest.commands).filter((c) => !c.hidden);
}

const workspaceArgumentCommands = new Set(['ws', 'ws:use', 'ws:cd', 'kubeconfig']);
const workspaceFlags = new Set(['workspace', 'parent']);
const fileFlags = /(^|-)(kubeconfig|filename|file|crd|certificate-authority|cafile|certfile|keyfile|kubeconfig-out|mapping-file)$/;

/** Prints the completion of `words` (the words after `kcpt`, the last one being completed) in cobra's format. */
export async function complete(words: string[], out: (text: string) => void = (t) => void process.stdout.write(t)): Promise<void> {
  let result: Completion;
  try {
    result = await completeWords(words);
  } catch {
    result = { candidates: [], directive: Directive.NoFileComp };
  }
  out(`${result.candidates.map((c) => `${c}\n`).join('')}:${result.directive}\n`);
}

export async function completeWords(words: string[], commands: ManifestCommand[] = loadCommands()): Promise<Completion> {
  const current = words.at(-1) ?? '';
  const before = words.slice(0, -1);
  const ids = new Map<string, ManifestCommand>();
  for (const c of commands) for (const id of [c.id, ...c.aliases]) ids.set(id, c);

  // The command: the longest run of leading words that names one.
  let command: ManifestCommand | undefined;
  let used = 0;
  for (let n = 1; n <= before.length; n++) {
    const found = ids.get(before.slice(0, n).join(':'));
    if (found) [command, used] = [found, n];
  }
  const typedWords = before.slice(0, used);
  const rest = before.slice(used);
  const flags = command ? Object.values(command.flags).filter((f) => !f.hidden) : [];
  const { values, positionals, pending } = scan(rest, flags);

  if (pending) return flagValues(command!, pending, current, values);
  if (current.startsWith('-')) {
    const given = new Set(Object.keys(values));
    const names = flags.filter((f) => f.multiple || !given.has(f.name)).map((f) => `--${f.name}`);
    return { candidates: matching(names, current), directive: Directive.NoFileComp };
  }

  const candidates: string[] = [];
  // Subcommands of what was typed so far (topic words without a command of their own count too).
  if (!command || positionals.length === 0) {
    const prefix = [...typedWords, ...positionals].join(':');
    const depth = prefix === '' ? 0 : prefix.split(':').length;
    const next = new Set<string>();
    for (const id of ids.keys()) {
      const parts = id.split(':');
      if (parts.length > depth && (depth === 0 || parts.slice(0, depth).join(':') === prefix)) next.add(parts[depth]!);
    }
    candidates.push(...next);
  }
  if (command && workspaceArgumentCommands.has(command.id) && positionals.length === 0) {
    // No server or kubeconfig: the subcommands still complete.
    const workspaces = await completeWorkspace(current, values).catch(() => ({ candidates: [], directive: Directive.NoFileComp }));
    return { candidates: matching([...candidates, ...workspaces.candidates], current), directive: workspaces.directive };
  }
  return { candidates: matching(candidates, current), directive: Directive.NoFileComp };
}

/** Flags with their values, positional arguments, and the flag still waiting for its value (the word being typed). */
function scan(words: string[], flags: ManifestFlag[]): { values: FlagValues; positionals: string[]; pending?: ManifestFlag } {
  const values: FlagValues = {};
  const positionals: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    const flag = word.startsWith('--')
      ? flags.find((f) => f.name === word.slice(2).split('=')[0])
      : word.startsWith('-') && word.length === 2
        ? flags.find((f) => f.char === word[1])
        : undefined;
    if (!flag) {
      if (!word.startsWith('-')) positionals.push(word);
      continue;
    }
    if (flag.type === 'boolean') values[flag.name] = true;
    else if (word.includes('=')) values[flag.name] = word.slice(word.indexOf('=') + 1);
    else if (i + 1 < words.length) values[flag.name] = words[++i]!;
    else return { values, positionals, pending: flag };
  }
  return { values, positionals };
}

async function flagValues(command: ManifestCommand, flag: ManifestFlag, current: string, values: FlagValues): Promise<Completion> {
  if (workspaceFlags.has(flag.name)) {
    const workspaces = await completeWorkspace(current, values);
    return { candidates: matching(workspaces.candidates, current), directive: workspaces.directive };
  }
  if (flag.name === 'root-directory') return { candidates: [], directive: Directive.FilterDirs };
  if (fileFlags.test(flag.name)) return { candidates: [], directive: Directive.Default };
  if (flag.name === 'context') {
    const config = resolveConfig(connectionFlagValues({ ...values, context: undefined }));
    return { candidates: matching([...config.kubeconfig.contexts.keys()], current), directive: Directive.NoFileComp };
  }
  const spec = commandSpecs.find((s) => s.id === command.id.split(':').join(' '))?.flags.find((f) => f.name === flag.name);
  return { candidates: matching(spec?.completions ?? flag.options ?? [], current), directive: Directive.NoFileComp };
}

/**
 * Workspace paths: the children of the workspace the typed part before the last `:` leads to (the current workspace
 * when there is none), each as typed plus the child's name; at the top level also `..`, `~` and `-`.
 */
async function completeWorkspace(current: string, values: FlagValues): Promise<Completion> {
  const config = resolveConfig(connectionFlagValues(Object.fromEntries(Object.entries(values).filter(([k]) => connectionFlags.some((f) => f.name === k)))));
  const here = parseClusterUrl(config.connection.server);
  if (!here) return { candidates: [], directive: Directive.NoFileComp };
  const at = current.lastIndexOf(':');
  const typed = at < 0 ? '' : current.slice(0, at + 1);
  const base = typed.slice(0, -1);
  let parent: string;
  if (at < 0) parent = here.path;
  else if (base === '') return { candidates: [':root'], directive: Directive.NoFileComp };
  else if (base.startsWith(':')) parent = resolveDots(base.slice(1), '');
  else parent = resolveDots(joinPath(here.path, base), '');
  const client = new KubeClient(config.connection);
  try {
    const list = await client.get<{ items?: { metadata: { name: string } }[] }>(`/clusters/${parent}/apis/tenancy.kcp.io/v1alpha1/workspaces`, {
      query: { limit: 500 },
      signal: AbortSignal.timeout(3000),
    });
    const children = (list.items ?? []).map((w) => `${typed}${w.metadata.name}`);
    return { candidates: at < 0 ? [...children, '..', '~', '-'] : children, directive: Directive.NoFileComp };
  } finally {
    client.close();
  }
}

function matching(candidates: readonly string[], current: string): string[] {
  return [...new Set(candidates)].filter((c) => c.startsWith(current)).sort();
}
