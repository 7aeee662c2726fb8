/**
 * The one way a command's failure reaches the user, for the fast path and oclif alike: `Error: <message>` on
 * stderr (kubectl's `Error from server (Reason): …` for API errors), and after a usage mistake the pointer to the
 * command's help, as kubectl prints it. Returns the exit code: 2 for a usage mistake, else 1.
 */
import { ClientError } from '../../client/errors.js';
import { UsageError, errorLine } from './errors.js';
import { colors, type Io } from './io.js';

/** `See 'kcpt ws create --help' for usage.` (`kcpt --help` without a command). */
export function usageHint(commandId: string | undefined): string {
  return `See '${commandId ? `kcpt ${commandId}` : 'kcpt'} --help' for usage.`;
}

export async function reportError(io: Io, err: unknown, commandId?: string): Promise<number> {
  const line = errorLine(err);
  const c = await colors(io, 'stderr');
  const colon = line.indexOf(':') + 1;
  io.err(`${c.red(line.slice(0, colon))}${line.slice(colon)}\n`);
  if (err instanceof UsageError) {
    for (const detail of err.details) io.err(`${detail}\n`);
    io.err(`${usageHint(commandId)}\n`);
  }
  if (err instanceof ClientError) return err.exitCode;
  if (process.env.KCPT_DEBUG && err instanceof Error) io.err(`${err.stack}\n`);
  return 1;
}
