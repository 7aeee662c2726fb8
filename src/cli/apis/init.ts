/**
 * `kcpt export init [DIR]`: copies the starter API-provider project (templates/api-provider: a CRD, a sample
 * object, a TypeScript controller on @kubernetes/client-node for the export's virtual workspace) into DIR, and says
 * what to run next. It never writes into a directory that already has files in it.
 *
 * The project's kcpt dependency is the kcpt that generated it (`file:` its directory, installed as a copy through
 * the project's .npmrc `install-links`, so kcpt/testing finds the project's vitest), since a checkout or a tarball
 * install is not what the registry has; `--kcpt-dependency ^0.1.0` asks for the registry's instead.
 */
import { cpSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
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

export async function runExportInit(io: Io, opts: { dir?: string; output?: OutputFormat; kcptDependency?: string }): Promise<void> {
  const target = path.resolve(opts.dir ?? 'api-provider');
  if (existsSync(target) && (!statSync(target).isDirectory() || readdirSync(target).length > 0)) {
    throw new CliError(`${target} already exists and is not an empty directory; choose another DIR`);
  }
  const source = templateDir();
  cpSync(source, target, { recursive: true });
  const files = [...templateFiles(source), ...pinKcpt(target, opts.kcptDependency)].sort();
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

/** Points the project's kcpt dependency at `spec` (default: this kcpt's directory); returns the files it added. */
function pinKcpt(target: string, spec = `file:${kcptPackageRoot()}`): string[] {
  const file = path.join(target, 'package.json');
  const manifest = JSON.parse(readFileSync(file, 'utf8')) as { devDependencies: Record<string, string> };
  manifest.devDependencies.kcpt = spec;
  writeFileSync(file, `${JSON.stringify(manifest, null, 2)}\n`);
  if (!spec.startsWith('file:')) return [];
  // A copy, not a symlink: a linked kcpt would resolve its peers (vitest, @kubernetes/client-node) from its own directory.
  writeFileSync(path.join(target, '.npmrc'), 'install-links=true\n');
  return ['.npmrc'];
}
