/** The directory of kcpt's own package.json, found from this module (works from dist/ and from src/ with tsx). */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export function kcptPackageRoot(): string {
  const here = thisFile();
  let dir = path.dirname(here);
  for (;;) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'kcpt') return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`cannot find kcpt's package.json above ${here}`);
    dir = parent;
  }
}

/** `bin/run.js`, the entry a child `kcpt` process is started with. */
export function kcptEntry(): string {
  return path.join(kcptPackageRoot(), 'bin', 'run.js');
}

/**
 * This module's file: from import.meta when it runs as ESM (dist/src), from __filename inside the CommonJS fast-path
 * bundle (dist/cli-bundle), where esbuild leaves import.meta empty. Either lies inside the package.
 */
function thisFile(): string {
  return typeof __filename === 'string' ? __filename : fileURLToPath(import.meta.url);
}
