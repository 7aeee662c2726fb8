/**
 * Runs a command spec and turns its outcome into the CLI contract: exit code 0 on success, 1 on failure, 2 on a
 * usage mistake, and a single error line on stderr (kubectl's `Error from server (Reason): …` for API errors).
 */
import type { CommandInput, CommandSpec } from './command-spec.js';
import { CliError, errorLine } from './errors.js';
import { colors } from './io.js';

export async function executeSpec(spec: CommandSpec, input: CommandInput): Promise<number> {
  try {
    await spec.run(input);
    return 0;
  } catch (err) {
    const line = errorLine(err);
    const c = await colors(input.io, 'stderr');
    input.io.err(`${c.red(line.slice(0, line.indexOf(':') + 1))}${line.slice(line.indexOf(':') + 1)}\n`);
    if (err instanceof CliError) return err.exitCode;
    if (process.env.KCPT_DEBUG && err instanceof Error) input.io.err(`${err.stack}\n`);
    return 1;
  }
}
