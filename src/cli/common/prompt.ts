/**
 * Asking for a missing required input: only when a person is at a terminal (stdin and stdout TTYs, not CI);
 * anywhere else the command fails with a usage error (exit code 2) instead of waiting for input nobody sees.
 * @inquirer/prompts is imported only when a prompt is shown.
 */
import { UsageError } from './errors.js';
import { importExternal } from '../../client/external-import.js';
import { canPrompt, type Io } from './io.js';

export interface MissingInput {
  /** What is missing, for the usage error: `workspace name`. */
  what: string;
  /** The question shown in a terminal. */
  message: string;
  /** Returns an error text for a bad answer, or true. */
  validate?: (value: string) => string | true;
}

export async function askForMissing(io: Io, input: MissingInput): Promise<string> {
  if (!canPrompt(io)) throw new UsageError(`${input.what} is required`);
  const { input: ask } = await importExternal<typeof import('@inquirer/prompts')>('@inquirer/prompts');
  return ask({ message: input.message, required: true, validate: input.validate });
}
