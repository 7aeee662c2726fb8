#!/usr/bin/env node
// `kcpt start` and the commands in src/cli/registry.ts take a fast path that skips loading oclif (start-up time
// is a feature: a command that talks to the server has a 150 ms budget); help, usage errors and anything the
// fast path does not understand go through oclif.
if (process.argv[2] === 'start') {
  const fast = await import('../dist/src/cli/start/fast-path.js').catch(() => undefined);
  if (fast && (await fast.tryFastStart(process.argv.slice(3)))) process.exit(process.exitCode ?? 0);
} else {
  const fast = await loadFastPath();
  // kcp's `kubectl ws --context x use y`: connection flags before the subcommand, for the fast path and oclif alike.
  if (fast) process.argv.splice(2, Infinity, ...fast.reorderFlags(process.argv.slice(2)));
  if (fast && (await fast.tryFastPath(process.argv.slice(2)))) process.exit(process.exitCode ?? 0);
}

const { execute } = await import('@oclif/core');
await execute({ dir: import.meta.url });

/**
 * The bundled fast path (scripts/bundle-cli.mjs, CommonJS: see there why) compiled with a V8 code cache
 * (src/cli/code-cache.ts), else the compiled modules.
 */
async function loadFastPath() {
  const { createRequire } = await import('node:module');
  const require = createRequire(import.meta.url);
  let fast;
  try {
    const { requireWithCodeCache } = require('../dist/cli-bundle/code-cache.cjs');
    fast = requireWithCodeCache(require.resolve('../dist/cli-bundle/fast-path.cjs'), process.argv.slice(2));
  } catch (err) {
    if (err?.code !== 'MODULE_NOT_FOUND') throw err;
    return import('../dist/src/cli/fast-path.js').catch(() => undefined);
  }
  // Code compiled through node:vm cannot import() on Node 20: the bundle imports its ESM-only packages through ours.
  fast.lendImporter((specifier) => import(specifier));
  return fast;
}
