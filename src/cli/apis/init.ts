/**
 * `kcpt export init [DIR]`: copies the starter API-provider project (templates/api-provider: a CRD, a sample
 * object, a TypeScript controller on @kubernetes/client-node for the export's virtual workspace) into DIR, and says
 * what to run next. It never writes into a directory that already has files in it.
 */
import { cpSync, existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { CliError } from '../common/errors.js';
import type { Io } from '../common/io.js';
import { printData, type OutputFormat } from '../common/output.js';
import { kcptPackageRoot } from '../server/package-root.js';

export function templateDir(): string {
  return path.join(kcptPackageRoot(), 'templates', 'api-provider');
}

/** The files of the template, relative to its directory, sorted. */
export function templateFiles(dir = templateDir()): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => statSync(path.join(dir, f)).isFile())
    .sort();
}

export async function runExportInit(io: Io, opts: { dir?: string; output?: OutputFormat }): Promise<void> {
  const target = path.resolve(opts.dir ?? 'api-provider');
  if (existsSync(target) && (!statSync(target).isDirectory() || readdirSync(target).length > 0)) {
    throw new CliError(`${target} already exists and is not an empty directory; choose another DIR`);
  }
  const source = templateDir();
  cpSync(source, target, { recursive: true });
  const files = templateFiles(source);
  if (opts.output) {
    await printData(io, opts.output, { directory: target, files });
    return;
  }
  const shown = path.relative(process.cwd(), target) || '.';
  io.out(
    [
      `Created an API provider project in ${shown}:`,
      ...files.map((f) => `  ${f}`),
      '',
      'Next, in a provider workspace (kcpt ws create provider --enter):',
      `  cd ${shown}`,
      '  kcpt export widgets -f crd.yaml     # publish the API',
      '  npm install && npm start            # run the controller for every consumer',
      'and in a consumer workspace:',
      '  kcpt bind <provider path>:widgets && kubectl create -f widget.yaml',
      '',
    ].join('\n'),
  );
}
