/**
 * `kcpt snapshot save` and `kcpt snapshot restore` as command specs. Cheap to import: each run loads its
 * implementation with `await import()`.
 */
import type { CommandSpec, FlagSpec, FlagValues } from '../common/command-spec.js';
import { connectionFlags } from '../common/connection-flags.js';
import { outputFlag, outputOf } from '../common/output.js';
import { ROOT_DIRECTORY_ENV } from '../start/flags.js';

const rootDirectoryFlag: FlagSpec = {
  name: 'root-directory',
  kind: 'string',
  env: ROOT_DIRECTORY_ENV,
  description:
    'Root directory of the server (as given to kcpt start). With a server running there: talk to it as its shard admin; with none: work on its files directly.',
};

const output = (flags: FlagValues) => outputOf(flags);
const text = (flags: FlagValues, name: string) => flags[name] as string | undefined;

export const snapshotSaveSpec: CommandSpec = {
  id: 'snapshot save',
  summary: 'Save a consistent copy of the whole store, or of one workspace subtree, to FILE.',
  description:
    'Whole store: a SQLite database file (SQLite servers, taken with the online backup while the server runs, or copied ' +
    'from --root-directory when it is stopped) or JSON lines (memory storage). With --workspace: JSON lines holding the ' +
    'workspace, all its descendants and every object in them, read at one revision. A running server only lets ' +
    'system:masters take snapshots (the system:admin context of admin.kubeconfig; --root-directory uses it).',
  examples: [
    '<%= config.bin %> snapshot save backup.db --root-directory .kcp',
    '<%= config.bin %> snapshot save fixture.jsonl --workspace root:fixtures --root-directory .kcp',
    '<%= config.bin %> snapshot save fixture.jsonl --workspace root:fixtures --kubeconfig admin.kubeconfig --context system:admin',
  ],
  args: [{ name: 'file', description: 'Where to write the snapshot.', required: true }],
  flags: [
    { name: 'workspace', char: 'w', kind: 'string', description: 'Save only this workspace subtree (a path such as root:org:team).' },
    rootDirectoryFlag,
    { name: 'force', kind: 'boolean', description: 'Overwrite FILE if it exists.' },
    outputFlag(),
    ...connectionFlags,
  ],
  async run({ args, flags, io }) {
    const { runSave } = await import('./save.js');
    await runSave(io, flags, { file: args.file!, workspace: text(flags, 'workspace'), rootDirectory: text(flags, 'root-directory'), force: flags.force === true, output: output(flags) });
  },
};

export const snapshotRestoreSpec: CommandSpec = {
  id: 'snapshot restore',
  summary: 'Restore a snapshot: a whole store into a stopped root directory, or a workspace subtree under a new path.',
  description:
    'Without --as: FILE (a whole-store snapshot) becomes the database of --root-directory, which no server may be ' +
    'using and which must hold no store yet (--force replaces it). With --as: FILE (a workspace snapshot) is ' +
    'recreated in the running server as that new workspace path, its parent must exist; restored beside their ' +
    'originals, workspaces get new logical cluster names.',
  examples: [
    '<%= config.bin %> snapshot restore backup.db --root-directory /tmp/fresh',
    '<%= config.bin %> snapshot restore fixture.jsonl --as root:test-1 --root-directory .kcp',
  ],
  args: [{ name: 'file', description: 'The snapshot to restore.', required: true }],
  flags: [
    { name: 'as', kind: 'string', description: 'Restore a workspace snapshot into the running server as this new workspace path.' },
    rootDirectoryFlag,
    { name: 'force', kind: 'boolean', description: 'Without --as: replace the store the root directory already holds.' },
    outputFlag(),
    ...connectionFlags,
  ],
  async run({ args, flags, io }) {
    const { runRestore } = await import('./restore.js');
    await runRestore(io, flags, { file: args.file!, as: text(flags, 'as'), rootDirectory: text(flags, 'root-directory'), force: flags.force === true, output: output(flags) });
  },
};

export const snapshotSpecs: CommandSpec[] = [snapshotSaveSpec, snapshotRestoreSpec];
