// `npm test` and `npm run test:unit` after the build: the typecheck of the whole tree (sources, tests, benchmarks) and
// `vitest run <arguments>` side by side. The typecheck keeps its state in node_modules/.cache (tsc --incremental), so
// after a small change it takes seconds. Its errors are printed after vitest's report; either failing fails the run.
// KCPT_TEST_SUMMARY names a JSON file that receives the typecheck's result and both wall times (.ci/run reads it).
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
// A package's own executable, from its package.json's `bin` (vitest's `exports` do not list its bin file).
function bin(pkg, name) {
  const manifest = require.resolve(`${pkg}/package.json`);
  const { bin: bins } = require(manifest);
  return join(dirname(manifest), typeof bins === 'string' ? bins : bins[name]);
}

function run(command, args, { capture }) {
  const started = Date.now();
  const child = spawn(process.execPath, [command, ...args], { stdio: capture ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
  let output = '';
  child.stdout?.on('data', (c) => (output += c));
  child.stderr?.on('data', (c) => (output += c));
  return new Promise((resolve) => {
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), output, seconds: (Date.now() - started) / 1000 }));
  });
}

const typecheck = run(
  bin('typescript', 'tsc'),
  ['--noEmit', '-p', 'tsconfig.json', '--incremental', '--tsBuildInfoFile', 'node_modules/.cache/kcpt/typecheck.tsbuildinfo'],
  { capture: true },
).then((result) => {
  console.log(`typecheck: ${result.code === 0 ? 'passed' : 'FAILED'} in ${result.seconds.toFixed(0)} s`);
  return result;
});
const vitest = await run(bin('vitest', 'vitest'), ['run', ...process.argv.slice(2)], { capture: false });
const checked = await typecheck;
if (checked.code !== 0) process.stdout.write(`\ntypecheck (tsc --noEmit) failed:\n${checked.output}\n`);

if (process.env.KCPT_TEST_SUMMARY) {
  writeFileSync(
    process.env.KCPT_TEST_SUMMARY,
    JSON.stringify({ typecheck: { passed: checked.code === 0, seconds: checked.seconds }, vitest: { code: vitest.code, seconds: vitest.seconds } }),
  );
}
process.exitCode = vitest.code !== 0 ? vitest.code : checked.code;
