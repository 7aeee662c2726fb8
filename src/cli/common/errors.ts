/**
 * Errors a command ends with. Each carries the process exit code the CLI convention gives it: 1 for a failure,
 * 2 for a usage mistake. The message is one line, printed on stderr as `Error: <message>` (as kcp's plugins do),
 * except server errors, which print kubectl's `Error from server (<Reason>): <message>`. Every command, whichever
 * parser ran it, reports through reportError (report-error.ts), so there is one error style.
 */
import { ApiError, ClientError } from '../../client/errors.js';

export class CliError extends ClientError {
  constructor(message: string, exitCode = 1) {
    super(message, exitCode);
    this.name = 'CliError';
  }
}

/**
 * Wrong or missing arguments and flags: exit code 2. Reported as kubectl reports one: the error line, any `details`
 * lines (a "Did you mean" list), then where the usage is (`See 'kcpt ws --help' for usage.`).
 */
export class UsageError extends CliError {
  readonly details: string[];
  constructor(message: string, details: string[] = []) {
    super(message, 2);
    this.name = 'UsageError';
    this.details = details;
  }
}

/** The line a failed command leaves on stderr. */
export function errorLine(err: unknown): string {
  if (err instanceof ApiError) return err.oneLine();
  if (err instanceof Error) return `Error: ${err.message}`;
  return `Error: ${String(err)}`;
}
