/**
 * `kcpt start` without loading oclif (~120 ms of start-up): bin/run.js calls this first. Anything it does not
 * recognise (help, unknown or malformed flags) returns false, and oclif handles the command with its usual
 * messages.
 */
import type { CommandSpec } from '../common/command-spec.js';
import { fastParse } from '../common/fast-parse.js';
import { startFlagSpecs, StartUsageError, toServerOptions, type StartFlagValues } from './flags.js';
import { launchStart } from './launch.js';

/** `start`'s flag table as a command spec, for the one fast-path parser (integers arrive as strings). */
const startSpec: CommandSpec = {
  id: 'start',
  summary: '',
  args: [],
  flags: startFlagSpecs.map((f) => ({
    name: f.name,
    kind: f.type === 'boolean' ? 'boolean' : 'string',
    description: f.description,
    ...(f.char && f.char !== f.name ? { char: f.char } : {}),
    ...(f.options ? { options: f.options } : {}),
    ...(f.env ? { env: f.env } : {}),
  })),
  run: async () => {},
};

export function parseStartArgv(argv: string[]): StartFlagValues | undefined {
  const parsed = fastParse(startSpec, argv);
  if (!parsed) return undefined;
  const values: StartFlagValues = {};
  for (const spec of startFlagSpecs) {
    const raw = parsed.flags[spec.name] as string | boolean | undefined;
    if (raw === undefined) {
      values[spec.name] = spec.default;
    } else if (typeof raw === 'boolean' || spec.type !== 'integer') {
      values[spec.name] = raw;
    } else {
      if (!/^-?\d+$/.test(raw)) return undefined;
      const n = Number(raw);
      if ((spec.min !== undefined && n < spec.min) || (spec.max !== undefined && n > spec.max)) return undefined;
      values[spec.name] = n;
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
