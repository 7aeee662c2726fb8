#!/usr/bin/env node
// `kcpt start` takes a fast path that skips loading oclif (start-up time is a feature of a dev server);
// everything else, and any start invocation the fast path does not understand, goes through oclif.
if (process.argv[2] === 'start') {
  const fast = await import('../dist/src/cli/start/fast-path.js').catch(() => undefined);
  if (fast && (await fast.tryFastStart(process.argv.slice(3)))) process.exit(process.exitCode ?? 0);
}

const { execute } = await import('@oclif/core');
await execute({ dir: import.meta.url });
