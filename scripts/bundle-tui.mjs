// Bundles the TUI (dist/src/tui: our components, Ink, React, yoga) into one CommonJS file, dist/tui-bundle/index.cjs,
// that `kcpt tui` loads with a V8 code cache (src/cli/code-cache.ts, as bin/run.js loads the CLI's bundle). Ink is ~150
// small modules: loaded one by one they cost ~0.8 s of CPU on a cold start; bundled, minified and with the bytecode of
// an earlier run, a fraction of it, which is what lets the browser open within its 300 ms. CommonJS because a code
// cache needs a script compiled through node:vm, and Node 20 runs ES modules that way only behind a flag.
// React's production build is chosen at bundle time.
import { readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { build } from 'esbuild';

rmSync('dist/tui-bundle', { recursive: true, force: true });

/**
 * A plugin that loads the module whose path matches `filter` with each [text, replacement] applied, failing the build
 * unless every text occurs exactly `times` times: another version of the package fails loudly instead of shipping
 * unpatched.
 */
function patchModule(name, filter, replacements) {
  return {
    name,
    setup(b) {
      b.onLoad({ filter }, ({ path }) => {
        let source = readFileSync(path, 'utf8');
        for (const [text, replacement, times = 1] of replacements) {
          const found = source.split(text).length - 1;
          if (found !== times) throw new Error(`${name}: expected ${times} × ${JSON.stringify(text)} in ${path}, found ${found}`);
          source = source.replaceAll(text, replacement);
        }
        return { contents: source, loader: 'js' };
      });
    },
  };
}

await build({
  entryPoints: ['dist/src/tui/index.js'],
  outfile: 'dist/tui-bundle/index.cjs',
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  minify: true,
  keepNames: true,
  sourcemap: 'linked',
  // yoga's Emscripten loader names its own URL (unused: its WASM is inline); CommonJS has no import.meta.
  define: { 'process.env.NODE_ENV': '"production"', 'import.meta.url': 'undefined', 'Intl.Segmenter': 'GraphemeSegmenter' },
  // Every Intl.Segmenter in the bundle (string-width, slice-ansi, @alcalzone/ansi-tokenize build one as they load) is
  // src/tui/text/grapheme-segmenter.ts: the first real one loads ICU's break-iterator data (~12–18 ms of CPU) before
  // the first frame, though the browser's own text (ASCII, arrows, box drawing) needs no ICU to be split into
  // graphemes. It makes a real one the first time a string needs it (emoji, combining marks, CJK…).
  inject: ['dist/src/tui/text/grapheme-segmenter.js'],
  plugins: [
    {
      // yoga-layout's entry loads its WASM with a top-level await, which CommonJS cannot express. Ink gets a yoga
      // object filled in once the WASM is instantiated (Ink reaches into it only when it lays out, never while its
      // modules load), and src/tui/layout-engine.ts, which the browser awaits before its first render, gets a
      // version that waits for that load.
      name: 'yoga-without-top-level-await',
      setup(b) {
        b.onResolve({ filter: /^yoga-layout$/ }, () => ({ path: 'yoga-layout', namespace: 'yoga-loaded-later' }));
        b.onResolve({ filter: /^\.\/layout-engine\.js$/ }, ({ importer }) =>
          /[\\/]dist[\\/]src[\\/]tui[\\/]/.test(importer) ? { path: 'layout-engine', namespace: 'yoga-loaded-later' } : undefined,
        );
        b.onLoad({ filter: /^yoga-layout$/, namespace: 'yoga-loaded-later' }, () => ({
          resolveDir: process.cwd(),
          contents: [
            "import { loadYoga } from 'yoga-layout/load';",
            "export * from 'yoga-layout/load';",
            'const Yoga = {};',
            'export default Yoga;',
            'export const yogaLoaded = loadYoga().then((loaded) => { Object.assign(Yoga, loaded); });',
          ].join('\n'),
        }));
        b.onLoad({ filter: /^layout-engine$/, namespace: 'yoga-loaded-later' }, () => ({
          resolveDir: process.cwd(),
          contents: "import { yogaLoaded } from 'yoga-layout'; export function layoutEngineLoaded() { return yogaLoaded; }",
        }));
      },
    },
    // yoga's Emscripten loader reads its own inline WASM (a data: URI) with fetch() whenever fetch exists, and on
    // Node the first fetch() loads undici: ~100 ms of CPU before the first frame, for a string already in memory.
    // Told fetch is missing, it decodes the base64 synchronously (its own fallback, the same bytes), and it does so
    // with Node's native base64 decoder instead of atob() and a byte-by-byte copy of the ~90 KB (~5 ms of CPU).
    patchModule('yoga-without-fetch', /yoga-layout[\\/]dist[\\/]binaries[\\/]yoga-wasm-base64-esm\.js$/, [
      ['"function"!=typeof fetch', 'true', 2],
      ['var b=xa(a.slice(37)),c=new Uint8Array(b.length);for(a=0;a<b.length;++a)c[a]=b.charCodeAt(a);var d=c', 'var d=Buffer.from(a.slice(37),"base64")'],
    ]),
    {
      // Every copy of string-width 8 in the bundle (Ink's, cli-truncate's) gets src/tui/text/narrow-width.ts
      // in front: text of one-column characters (the browser's ASCII, box drawing, arrows), colour codes aside, is
      // measured by counting, the rest by string-width as before.
      name: 'string-width-narrow-first',
      setup(b) {
        b.onResolve({ filter: /^string-width$/ }, async ({ importer, resolveDir, kind, pluginData }) => {
          if (pluginData?.original || !/[\\/]node_modules[\\/]/.test(importer)) return undefined;
          const original = await b.resolve('string-width', { resolveDir, kind, pluginData: { original: true } });
          if (original.errors.length > 0) return { errors: original.errors };
          // string-width 7 counts some text-style symbols (© ® ‼ ⚠…) as emoji, two columns: those copies stay as they are.
          const { version } = JSON.parse(readFileSync(join(dirname(original.path), 'package.json'), 'utf8'));
          if (Number(version.split('.')[0]) < 8) return original;
          return { path: original.path, namespace: 'string-width-narrow-first' };
        });
        b.onLoad({ filter: /.*/, namespace: 'string-width-narrow-first' }, ({ path }) => ({
          resolveDir: process.cwd(),
          contents: [
            `import stringWidth from ${JSON.stringify(path)};`,
            "import { withNarrowFastPath } from './dist/src/tui/text/narrow-width.js';",
            'export default withNarrowFastPath(stringWidth);',
          ].join('\n'),
        }));
      },
    },
    {
      // The browser's REST client loads node:http (a plain-http server) through src/cli's importExternal, whose
      // import() has no loader in a script compiled with a code cache. The bundle is CommonJS: Node's own modules
      // come from require.
      name: 'external-import-by-require',
      setup(b) {
        b.onResolve({ filter: /[\\/]external-import\.js$/ }, () => ({ path: 'external-import', namespace: 'external-import-by-require' }));
        b.onLoad({ filter: /.*/, namespace: 'external-import-by-require' }, () => ({
          contents: [
            'export function importExternal(specifier) { return Promise.resolve().then(() => require(specifier)); }',
            'export function lendImporter() {}',
          ].join('\n'),
        }));
      },
    },
    // Ink's reconciler awaits, at the top level, React DevTools and its own package.json when DEV=true. Neither is
    // in the bundle (react-devtools-core is not installed) and CommonJS has no top-level await, so DEV=true is a
    // no-op here, as it was when the stand-in for the devtools did nothing.
    patchModule('ink-without-devtools', /ink[\\/]build[\\/]reconciler\.js$/, [
      ["await import('./devtools.js');", 'void 0;'],
      ['await loadPackageJson()', '{ name: undefined, version: undefined }'],
    ]),
    // Ink turns every cell of the screen (160 × 40 = 6,400 in the benchmark) back into a string by diffing each
    // cell's styles with the previous cell's: three Sets and four arrays per cell, most of them blank cells with no
    // style at all, ~20 ms of CPU per frame. The diff of two equal style lists is empty (every code of `from` is kept
    // by `to`, and `to` adds none), which is what most neighbouring cells are: answered at once.
    patchModule('ansi-diff-of-equal-styles', /@alcalzone[\\/]ansi-tokenize[\\/]build[\\/]diff\.js$/, [
      [
        'export function diffAnsiCodes(from, to) {',
        'export function diffAnsiCodes(from, to) {\n    if (from === to || (from.length === to.length && from.every((code, i) => code.code === to[i].code && code.endCode === to[i].endCode))) return [];',
      ],
    ]),
    // Ink's screen is a grid of cells, each with its list of styles: a new empty list for every blank cell and a copy
    // of the current list for every character drawn (6,400+ arrays a frame, a large part of the first frame's garbage).
    // Nothing changes a cell's list once made (Ink and ansi-tokenize only read them, and every reduction makes a new
    // list), so cells share them: frozen, so that anything writing to one fails loudly instead of restyling other
    // cells. Sharing also lets the diff above see equal neighbours by identity.
    patchModule('ansi-styles-shared-by-cells', /@alcalzone[\\/]ansi-tokenize[\\/]build[\\/]styledChars\.js$/, [
      ['let codes = [];', 'let codes = Object.freeze([]);'],
      ['codes = reduceAnsiCodesIncremental(codes, [token]);', 'codes = Object.freeze(reduceAnsiCodesIncremental(codes, [token]));'],
      ['styles: [...codes],', 'styles: codes,'],
    ]),
    patchModule('ink-blank-cells-share-styles', /ink[\\/]build[\\/]output\.js$/, [
      ['export default class Output {', 'const blankCellStyles = Object.freeze([]);\nexport default class Output {'],
      ['styles: [],', 'styles: blankCellStyles,'],
    ]),
    // The string-width of Ink and of cli-truncate builds /^\p{RGI_Emoji}$/v as it loads (~30 ms: the set of every
    // emoji sequence) and tests each non-ASCII character against it. Every RGI emoji contains an Extended_Pictographic
    // character, a skin-tone modifier, a regional indicator (flags) or U+20E3 (keycaps), so characters with none of
    // these (the browser's arrows and box drawing) skip it, and it is built the first time an emoji shows up.
    patchModule('string-width-emoji-on-demand', /(ink|cli-truncate)[\\/]node_modules[\\/]string-width[\\/]index\.js$/, [
      [
        'const rgiEmojiRegex = /^\\p{RGI_Emoji}$/v;',
        'let rgiEmojiRegex; const mayBeRgiEmoji = /[\\p{Extended_Pictographic}\\p{Emoji_Modifier}\\p{Regional_Indicator}\\u20E3]/u;',
      ],
      ['rgiEmojiRegex.test(segment)', '(mayBeRgiEmoji.test(segment) && (rgiEmojiRegex ??= /^\\p{RGI_Emoji}$/v).test(segment))'],
    ]),
  ],
  logLevel: 'warning',
});
