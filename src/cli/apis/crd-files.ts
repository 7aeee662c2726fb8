/** The `-f FILE|-` flag of `kcpt export` and `kcpt export snapshot`: every CRD in the files, in order (`-` = stdin). */
import { readFileSync } from 'node:fs';
import { CliError, UsageError } from '../common/errors.js';
import { parseCrds, type SourcedCrd } from '../../client/crd-manifests.js';

export function readCrdFiles(files: string[] | undefined): SourcedCrd[] {
  if (!files || files.length === 0) throw new UsageError('--filename is required');
  const crds = files.flatMap((file) => {
    let text: string;
    try {
      text = readFileSync(file === '-' ? 0 : file, 'utf8');
    } catch (err) {
      throw new CliError(`error opening ${file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : (err as Error).message}`);
    }
    return parseCrds(text, file === '-' ? 'stdin' : file);
  });
  if (crds.length === 0) throw new CliError(`no CustomResourceDefinition in ${files.join(', ')}`);
  return crds;
}
