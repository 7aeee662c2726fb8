// Bundles the compiled engine into dist/engine-bundle so `kcpt start` loads a few files instead of hundreds:
// module resolution and compilation of fastify's and our many small modules dominated start-up time.
// Dynamic imports (protobuf, patch, certificate generation) stay in separate chunks and load on first use.
// kcpt/testing (and its vitest flavour) are entry points of the same build, so a test process loads the engine from
// the same few files and the chunks shared with it.
import { build } from 'esbuild';

await build({
  entryPoints: {
    server: 'dist/src/engine/server/index.js',
    testing: 'dist/src/testing/index.js',
    'testing-vitest': 'dist/src/testing/vitest.js',
  },
  outdir: 'dist/engine-bundle',
  entryNames: '[name]',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  minifyWhitespace: true,
  minifySyntax: true,
  // No keepNames: it wraps every named inner function in a `__name()` call each time it is created (~2-4 % of the
  // CPU of creating and deleting workspaces). Classes and functions keep their names anyway through the
  // declarations minifySyntax leaves (`const X = class …`); only a renamed duplicate (`get2`) shows in a trace.
  keepNames: false,
  sourcemap: 'linked',
  // better-sqlite3 is a native addon that must find its .node binary; @peculiar/x509 (and reflect-metadata,
  // which must run before it) are loaded only when
  // certificates are generated and its CommonJS/ESM interop must stay exactly as Node resolves it. synckit finds
  // its worker preload next to its own files, and etcd3 runs only in the etcd store's worker (dist/src/…).
  // @kubernetes/client-node and vitest are the user's (optional peer dependencies of kcpt/testing).
  external: ['better-sqlite3', '@peculiar/x509', 'reflect-metadata', 'synckit', 'etcd3', '@kubernetes/client-node', 'vitest'],
  // fastify and friends are CommonJS; give the ESM bundle a `require` they can use.
  banner: { js: "import { createRequire as __kcptCreateRequire } from 'node:module'; const require = __kcptCreateRequire(import.meta.url);" },
  logLevel: 'warning',
});
