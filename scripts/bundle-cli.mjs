// Bundles the CLI's fast path (src/cli/fast-path.ts and the command specs it runs) into dist/cli-bundle, so a
// command that talks to the server loads a handful of files instead of yaml's ~70 CommonJS modules and ours:
// commands have a 150 ms wall budget and module loading was most of it. Each command's implementation stays in
// its own chunk (the specs import it dynamically). ora and @inquirer/prompts load only in a terminal.
import { rmSync } from 'node:fs';
import { build } from 'esbuild';

rmSync('dist/cli-bundle', { recursive: true, force: true });

await build({
  entryPoints: ['dist/src/cli/fast-path.js'],
  outdir: 'dist/cli-bundle',
  entryNames: '[name]',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: false,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  minifyWhitespace: true,
  minifySyntax: true,
  keepNames: true,
  sourcemap: 'linked',
  external: ['ora', '@inquirer/prompts'],
  // yaml (CommonJS) requires 'process' and 'buffer'; both are globals, so map them to the globals instead of
  // paying for createRequire (~10 ms) in every command.
  plugins: [
    {
      name: 'node-globals',
      setup(b) {
        b.onResolve({ filter: /^(process|buffer)$/ }, (args) => ({ path: args.path, namespace: 'node-globals' }));
        b.onLoad({ filter: /.*/, namespace: 'node-globals' }, (args) => ({
          contents: args.path === 'process' ? 'module.exports = process;' : 'module.exports = { Buffer };',
          loader: 'js',
        }));
      },
    },
  ],
  logLevel: 'warning',
});
