// Compiles src/ to dist/ file by file (no bundling), as tsc would emit them, in about a second:
// esbuild only strips the types. tsc checks them, beside it: `npm run typecheck` (and `npm test`, which runs it in
// parallel with the tests); `npm run build` adds the declaration files the package ships. The tree compiles under
// isolatedModules (tsconfig.json), which is what makes a file-by-file transpiler emit what tsc emits.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

/** The .ts/.tsx files under `dir`, tests left out (tsconfig.build.json's include and exclude). */
function sources(dir) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.tsx?$/.test(e.name) && !/\.d\.ts$/.test(e.name) && !/\.test\.tsx?$/.test(e.name))
    .map((e) => join(e.parentPath ?? e.path, e.name));
}

await build({
  entryPoints: sources('src'),
  outdir: 'dist',
  outbase: '.',
  bundle: false,
  format: 'esm',
  platform: 'node',
  // tsconfig.json's target.
  target: 'es2022',
  jsx: 'automatic',
  sourcemap: 'linked',
  logLevel: 'warning',
});
