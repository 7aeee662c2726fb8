/**
 * `kcpt start` without loading oclif (~120 ms of start-up): bin/run.js calls this first. Anything it does not
 * recognise (help, unknown or malformed flags) returns false, and oclif handles the command with its usual
 * messages.
 */
import { parseArgs } from 'node:util';
import { startFlagSpecs, StartUsageError, toServerOptions, type StartFlagValues } from './flags.js';
import { launchStart } from './launch.js';

export function parseStartArgv(argv: string[]): StartFlagValues | undefined {
  if (argv.some((a) => a === '--help' || a === '-h')) return undefined;
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: Object.fromEntries(
        startFlagSpecs.map((f) => [
          f.name,
          { type: f.type === 'boolean' ? ('boolean' as const) : ('string' as const), ...(f.char && f.char !== f.name ? { short: f.char } : {}) },
        ]),
      ),
    });
  } catch {
    return undefined;
  }
  const values: StartFlagValues = {};
  for (const spec of startFlagSpecs) {
    const given = (parsed.values as Record<string, string | boolean | undefined>)[spec.name];
    const raw = given === undefined && spec.env && process.env[spec.env] ? process.env[spec.env] : given;
    if (raw === undefined) {
      values[spec.name] = spec.default;
      continue;
    }
    if (typeof raw === 'boolean') {
      values[spec.name] = raw;
    } else if (spec.type === 'integer') {
      if (!/^-?\d+$/.test(raw)) return undefined;
      const n = Number(raw);
      if ((spec.min !== undefined && n < spec.min) || (spec.max !== undefined && n > spec.max)) return undefined;
      values[spec.name] = n;
    } else {
      if (spec.options && !spec.options.includes(raw)) return undefined;
      values[spec.name] = raw;
    }
  }
  return values;
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
