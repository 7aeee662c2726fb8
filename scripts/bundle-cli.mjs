// Bundles the CLI's fast path (src/cli/fast-path.ts and the command specs it runs) into one CommonJS file,
// dist/cli-bundle/fast-path.cjs, so a command that talks to the server loads one file instead of js-yaml's and
// our ~40 modules: commands have a 150 ms wall budget and module loading was most of it. CommonJS rather than ESM
// because bin/run.js require()s it: Node's builtins then load as plain require()s, only when a command's code
// first runs (esbuild keeps each module's initialisation lazy), instead of one ESM facade per builtin built before
// anything runs (node:crypto, node:util, node:tty… cost ~10 ms that way). ora and @inquirer/prompts (ESM only)
// stay external and load with import(), only in a terminal. So does the TUI (src/tui: Ink, React, yoga's wasm): it
// is its own bundle (scripts/bundle-tui.mjs), imported only when a browser is opened in a terminal.
import { rmSync } from 'node:fs';
import { build } from 'esbuild';

rmSync('dist/cli-bundle', { recursive: true, force: true });

// Fully minified (176 → 114 KB): V8 pre-parses all of it on every command. keepNames keeps function and class
// names for stack traces (KCPT_DEBUG), and the source map maps the rest back.
// import.meta is empty in CommonJS: src/cli/server/package-root.ts checks for __filename first, so esbuild's warning
// about it is expected and silenced.
const commonJs = {
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  minify: true,
  keepNames: true,
  logLevel: 'warning',
  logOverride: { 'empty-import-meta': 'silent' },
};

await build({
  ...commonJs,
  entryPoints: ['dist/src/cli/fast-path.js'],
  outfile: 'dist/cli-bundle/fast-path.cjs',
  sourcemap: 'linked',
  // Imported through src/client/external-import.ts, never bundled.
  external: ['ora', '@inquirer/prompts'],
  plugins: [
    {
      // src/cli/ws/browse.ts loads dist/tui-bundle/index.cjs by its absolute path; this keeps src/tui out of the
      // bundle should anything name it directly.
      name: 'tui-stays-outside',
      setup(b) {
        b.onResolve({ filter: /(^|\/)tui\/index\.js$/ }, () => ({ path: '../tui-bundle/index.js', external: true }));
      },
    },
  ],
});

// bin/run.js loads the bundle through this (a V8 code cache kept per command; see src/cli/code-cache.ts).
await build({ ...commonJs, entryPoints: ['dist/src/cli/code-cache.js'], outfile: 'dist/cli-bundle/code-cache.cjs' });
