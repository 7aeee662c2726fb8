#!/usr/bin/env node
// `kcpt start` and the commands in src/cli/registry.ts take a fast path that skips loading oclif (start-up time
// is a feature: a command that talks to the server has a 150 ms budget); help, usage errors and anything the
// fast path does not understand go through oclif.
// CommonJS (bin/package.json): an ES module as the entry costs Node's ES module loader ~7 ms before anything runs.
const path = require('node:path');

main().catch((err) => {
  process.exitCode = 1;
  throw err;
});

async function main() {
  if (process.argv[2] === 'start') {
    const fast = await import('../dist/src/cli/start/fast-path.js').catch(() => undefined);
    if (fast && (await fast.tryFastStart(process.argv.slice(3)))) process.exit(process.exitCode ?? 0);
  } else if (process.argv[2] === '__complete') {
    // Shell completion (kcpt completion, kubectl_complete-ws): the words go through untouched, flags included.
    const fast = await loadFastPath();
    if (fast) await fast.complete(process.argv.slice(3));
    return;
  } else {
    const fast = await loadFastPath();
    // kcp's `kubectl ws --context x use y`: connection flags before the subcommand, for the fast path and oclif alike.
    if (fast) process.argv.splice(2, Infinity, ...fast.reorderFlags(process.argv.slice(2)));
    if (fast && (await fast.tryFastPath(process.argv.slice(2)))) process.exit(process.exitCode ?? 0);
  }
  const { execute } = await import('@oclif/core');
  // The package's root: oclif would take bin/ (it has a package.json) for it if given this file.
  await execute({ dir: path.join(__dirname, '..') });
}

/**
 * The bundled fast path (scripts/bundle-cli.mjs, CommonJS: see there why) compiled with a V8 code cache
 * (src/cli/code-cache.ts), else the compiled modules.
 */
async function loadFastPath() {
  let fast;
  try {
    const { requireWithCodeCache } = require('../dist/cli-bundle/code-cache.cjs');
    fast = requireWithCodeCache(require.resolve('../dist/cli-bundle/fast-path.cjs'), process.argv.slice(2));
  } catch (err) {
    if (err?.code !== 'MODULE_NOT_FOUND') throw err;
    return import('../dist/src/cli/fast-path.js').catch(() => undefined);
  }
  // Code compiled through node:vm cannot import() on Node 20: the bundle imports its ESM-only packages through ours.
  fast.setImporter((specifier) => import(specifier));
  return fast;
}
