/**
 * Runs a command spec and turns its outcome into the CLI contract: exit code 0 on success, 1 on failure, 2 on a
 * usage mistake, and the error on stderr as reportError writes it.
 */
import type { CommandInput, CommandSpec } from './command-spec.js';
import { reportError } from './report-error.js';

export async function executeSpec(spec: CommandSpec, input: CommandInput): Promise<number> {
  try {
    await spec.run(input);
    return 0;
  } catch (err) {
    return reportError(input.io, err, spec.id);
  }
}
