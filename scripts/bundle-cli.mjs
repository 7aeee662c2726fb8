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

await build({
  entryPoints: ['dist/src/cli/fast-path.js'],
  outfile: 'dist/cli-bundle/fast-path.cjs',
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  // Fully minified (176 → 114 KB): V8 pre-parses all of it on every command. keepNames keeps function and class
  // names for stack traces (KCPT_DEBUG), and the source map maps the rest back.
  minify: true,
  keepNames: true,
  sourcemap: 'linked',
  external: ['ora', '@inquirer/prompts'],
  plugins: [
    {
      name: 'tui-stays-outside',
      setup(b) {
        // From dist/cli-bundle/fast-path.cjs, the TUI's bundle is ../tui-bundle/index.js.
        b.onResolve({ filter: /(^|\/)tui\/index\.js$/ }, () => ({ path: '../tui-bundle/index.js', external: true }));
      },
    },
  ],
  logLevel: 'warning',
});
