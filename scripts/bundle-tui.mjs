// Bundles the TUI (dist/src/tui: our components, Ink, React, yoga) into one ESM file, dist/tui-bundle/index.js, that
// `kcpt tui` loads through the CLI's fast path. Ink is ~150 small modules: loaded one by one they cost ~0.8 s of CPU
// on a cold start, bundled and minified a fraction of it, which is what lets the browser open within its 300 ms.
// React's production build is chosen at bundle time. react-devtools-core (Ink loads it only with DEV=true, and it
// is not installed) is replaced by an empty stand-in.
import { readFileSync, rmSync } from 'node:fs';
import { build } from 'esbuild';

rmSync('dist/tui-bundle', { recursive: true, force: true });

await build({
  entryPoints: ['dist/src/tui/index.js'],
  outfile: 'dist/tui-bundle/index.js',
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  minify: true,
  keepNames: true,
  sourcemap: 'linked',
  define: { 'process.env.NODE_ENV': '"production"' },
  // CommonJS dependencies (react, react-reconciler) call require(); ESM output needs one made for it.
  banner: { js: "import { createRequire as __kcptRequire } from 'node:module'; const require = __kcptRequire(import.meta.url);" },
  plugins: [
    {
      // yoga's Emscripten loader reads its own inline WASM (a data: URI) with fetch() whenever fetch exists, and on
      // Node the first fetch() loads undici: ~100 ms of CPU before the first frame, for a string already in memory.
      // Told fetch is missing, it decodes the base64 synchronously (its own fallback, the same bytes).
      name: 'yoga-without-fetch',
      setup(b) {
        b.onLoad({ filter: /yoga-layout[\\/]dist[\\/]binaries[\\/]yoga-wasm-base64-esm\.js$/ }, ({ path }) => {
          const source = readFileSync(path, 'utf8');
          const fetchTest = '"function"!=typeof fetch';
          const uses = source.split(fetchTest).length - 1;
          // Another yoga build: fail loudly rather than ship a loader that still fetches.
          if (uses !== 2) throw new Error(`${path}: expected 2 fetch tests in yoga's loader, found ${uses}`);
          return { contents: source.replaceAll(fetchTest, 'true'), loader: 'js' };
        });
      },
    },
    {
      name: 'no-react-devtools',
      setup(b) {
        b.onResolve({ filter: /^react-devtools-core$/ }, () => ({ path: 'react-devtools-core', namespace: 'stand-in' }));
        b.onLoad({ filter: /.*/, namespace: 'stand-in' }, () => ({ contents: 'export default { initialize() {}, connectToDevTools() {} };' }));
      },
    },
  ],
  logLevel: 'warning',
});
