/**
 * `-o/--output` for every command that prints data, with kubectl's formats and words: json, yaml, name, wide and
 * jsonpath=…/jsonpath-as-json=…/jsonpath-file=…, each command taking those that make sense for what it prints
 * (kubectl's `create` takes no wide, its `get` does). Kubernetes objects print as kubectl prints them: keys sorted,
 * `metadata.managedFields` left out, several objects as one `v1` List, `-o name` as `<kind>.<group>/<name>`.
 * JSON uses kubectl's four-space indentation; YAML goes through js-yaml.
 */
import { readFileSync } from 'node:fs';
import { canonical } from '../../engine/machinery/canonical-json.js';
import type { FlagSpec, FlagValues } from './command-spec.js';
import { CliError, UsageError } from './errors.js';
import type { Io } from './io.js';

export type OutputKind = 'json' | 'yaml' | 'name' | 'wide' | 'jsonpath' | 'jsonpath-as-json' | 'jsonpath-file' | 'env';

export interface OutputFormat {
  kind: OutputKind;
  /** The template of the jsonpath formats (read from the file for jsonpath-file). */
  template?: string;
}

/** What any printed data takes. */
export const dataOutputs: readonly OutputKind[] = ['json', 'yaml', 'jsonpath', 'jsonpath-as-json', 'jsonpath-file'];
/** Commands that print Kubernetes objects also take `-o name`. */
export const objectOutputs: readonly OutputKind[] = [...dataOutputs, 'name'];
/** Commands that print a table of objects also take `-o wide`. */
export const tableOutputs: readonly OutputKind[] = [...objectOutputs, 'wide'];

/** The `-o` flag of a command printing what `accepted` allows; `extra` adds to the help text. */
export function outputFlag(accepted: readonly OutputKind[] = dataOutputs, extra = 'Without it, human-readable text.'): FlagSpec {
  const shown = accepted.map((k) => (k.startsWith('jsonpath') ? `${k}=${k === 'jsonpath-file' ? 'FILE' : 'TEMPLATE'}` : k));
  const completions = accepted.map((k) => (k.startsWith('jsonpath') ? `${k}=` : k));
  return { name: 'output', char: 'o', kind: 'string', description: `Output format: ${shown.join(', ')}. ${extra}`.trim(), completions };
}

/** The parsed `-o` of `flags`, or undefined when not given; a format the command does not take is a usage error. */
export function outputOf(flags: FlagValues, accepted: readonly OutputKind[] = dataOutputs): OutputFormat | undefined {
  const value = flags.output;
  return typeof value === 'string' ? parseOutput(value, accepted) : undefined;
}

export function parseOutput(value: string, accepted: readonly OutputKind[]): OutputFormat {
  const eq = value.indexOf('=');
  const kind = (eq < 0 ? value : value.slice(0, eq)) as OutputKind;
  const takesTemplate = kind === 'jsonpath' || kind === 'jsonpath-as-json' || kind === 'jsonpath-file';
  if (!accepted.includes(kind) || (eq >= 0 && !takesTemplate)) {
    const allowed = [...accepted].sort().join(',');
    throw new UsageError(`unable to match a printer suitable for the output format "${value}", allowed formats are: ${allowed}`);
  }
  if (!takesTemplate) return { kind };
  const argument = eq < 0 ? '' : value.slice(eq + 1);
  if (argument === '') throw new UsageError(`${kind} template format specified but no template given`);
  if (kind !== 'jsonpath-file') return { kind, template: argument };
  try {
    return { kind, template: readFileSync(argument, 'utf8') };
  } catch (err) {
    throw new UsageError(`error reading --template ${argument}, ${(err as Error).message}`);
  }
}

/** Prints data that is not a Kubernetes object (a status, a tree) in a data format. */
export async function printData(io: Io, format: OutputFormat, data: unknown): Promise<void> {
  if (format.kind === 'json') return io.out(`${JSON.stringify(data, null, 4)}\n`);
  if (format.kind === 'yaml') {
    const { dump } = await import('js-yaml');
    return io.out(dump(data, { lineWidth: -1, noRefs: true }));
  }
  if (format.kind === 'jsonpath' || format.kind === 'jsonpath-as-json' || format.kind === 'jsonpath-file') {
    const { executeJsonPath } = await import('./jsonpath-output.js');
    return io.out(executeJsonPath(format.template ?? '', JSON.parse(JSON.stringify(data)), { asJson: format.kind === 'jsonpath-as-json' }));
  }
  throw new CliError(`-o ${format.kind} is not available for this output`);
}

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; managedFields?: unknown };
}

/**
 * Prints one object, or several as a List, as kubectl does. `wide` needs the command's table (`renderTable`); a
 * command without one never accepts it.
 */
export async function printObjects(
  io: Io,
  format: OutputFormat,
  objects: KubeObject | KubeObject[],
  opts: { renderTable?: (wide: boolean) => string } = {},
): Promise<void> {
  const many = Array.isArray(objects);
  const list = (many ? objects : [objects]).map(asKubectlShows);
  if (format.kind === 'name') return io.out(list.map((o) => `${nameOf(o)}\n`).join(''));
  if (format.kind === 'wide') {
    if (!opts.renderTable) throw new CliError('-o wide is not available for this output');
    return io.out(opts.renderTable(true));
  }
  return printData(io, format, many ? { apiVersion: 'v1', items: list, kind: 'List', metadata: { resourceVersion: '' } } : list[0]);
}

/** `workspace.tenancy.kcp.io/org`, `configmap/x`: kubectl's -o name. */
export function nameOf(obj: KubeObject): string {
  const group = obj.apiVersion?.includes('/') ? obj.apiVersion.slice(0, obj.apiVersion.indexOf('/')) : '';
  const kind = (obj.kind ?? '').toLowerCase();
  return `${group ? `${kind}.${group}` : kind}/${obj.metadata?.name ?? ''}`;
}

/** The object with its keys in kubectl's order (sorted, as Go marshals a map) and without managedFields. */
function asKubectlShows(obj: KubeObject): KubeObject {
  const { managedFields: _hidden, ...metadata } = obj.metadata ?? {};
  return canonical({ ...obj, ...(obj.metadata ? { metadata } : {}) }) as KubeObject;
}
