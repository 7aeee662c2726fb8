/** `kcpt doctor` as a command spec (run by oclif or by bin/run.js's fast path). */
import type { CommandSpec } from '../common/command-spec.js';
import { UsageError } from '../common/errors.js';
import { outputFlag, outputOf } from '../common/output.js';

export const doctorSpec: CommandSpec = {
  id: 'doctor',
  summary: 'Check what kcpt needs on this machine: Node.js, the native SQLite module, a free port, kubectl (and etcd).',
  description:
    'Each check prints a line (✓ fine, ! works but worth knowing, ✗ needs fixing, with how). Exits 1 when a check failed.',
  examples: ['<%= config.bin %> doctor', '<%= config.bin %> doctor --etcd', '<%= config.bin %> doctor --secure-port 7443 -o json'],
  args: [],
  flags: [
    { name: 'secure-port', kind: 'string', description: 'The port kcpt start would listen on (default 6443).' },
    { name: 'bind-address', kind: 'string', description: 'The address kcpt start would listen on (default 127.0.0.1).' },
    { name: 'etcd', kind: 'boolean', description: 'Also check for an etcd binary on PATH (for kcpt start --etcd-servers and its tests).' },
    outputFlag(),
  ],
  async run({ flags, io }) {
    const format = outputOf(flags);
    const port = flags['secure-port'] === undefined ? 6443 : Number(flags['secure-port']);
    if (!Number.isInteger(port) || port < 1 || port > 65535) throw new UsageError(`--secure-port: "${String(flags['secure-port'])}" is not a port`);
    const { runDoctor } = await import('./run-doctor.js');
    await runDoctor(io, { port, bindAddress: (flags['bind-address'] as string | undefined) ?? '127.0.0.1', etcd: flags.etcd === true, output: format });
  },
};
