/**
 * `kcpt start` without loading oclif (~120 ms of start-up): bin/run.js calls this first. Anything it does not
 * recognise (help, unknown or malformed flags) returns false, and oclif handles the command with its usual
 * messages.
 */
import { fastParse } from '../common/fast-parse.js';
import { StartUsageError, toServerOptions, type StartFlagValues } from './flags.js';
import { launchStart } from './launch.js';
import { startSpec } from './spec.js';

/** `start`'s flag values (defaults applied, integers checked), or undefined when oclif should parse argv. */
export function parseStartArgv(argv: string[]): StartFlagValues | undefined {
  return fastParse(startSpec, argv)?.flags as StartFlagValues | undefined;
}

/** Runs `start` if argv is plain enough for the fast path; false means "let oclif do it". */
export async function tryFastStart(argv: string[]): Promise<boolean> {
  const values = parseStartArgv(argv);
  if (!values) return false;
  let options;
  try {
    options = toServerOptions(values);
  } catch (err) {
    if (err instanceof StartUsageError) return false;
    throw err;
  }
  try {
    await launchStart(values, options, { log: (line) => process.stdout.write(`${line}\n`) });
  } catch (err) {
    const [{ reportError }, { processIo }] = await Promise.all([import('../common/report-error.js'), import('../common/io.js')]);
    process.exitCode = await reportError(processIo(), err, 'start');
  }
  return true;
}
