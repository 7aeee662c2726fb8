// Preloaded into kcpt by the workspace benchmark and the profiler only (`node --expose-gc --import
// bench/lib/server-hook.js bin/run.js start ...`), so the server needs no debug endpoint. The bench writes a command
// to $KCPT_BENCH_HOOK_FILE and sends SIGUSR2; the hook answers in `<file>.out`:
//   gc                  full GCs (the event loop turns in between), then process.memoryUsage() as JSON
//   profile-start       starts the V8 CPU profiler (node:inspector)
//   profile-stop <path> stops it and writes the .cpuprofile to <path>
//   heap-snapshot <path> full GCs, then writes a V8 heap snapshot to <path> (what stays resident, and why)
//   heap-spaces         V8's heap spaces (size committed, used, available) after full GCs
//   alloc-start         starts V8's sampling heap profiler on every allocation, collected ones included (what a
//                       request allocates, not what stays)
//   alloc-stop <path>   stops it and writes the .heapprofile to <path>
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { getHeapSpaceStatistics, getHeapStatistics, writeHeapSnapshot } from 'node:v8';

const file = process.env.KCPT_BENCH_HOOK_FILE;
let session;
const post = (method, params) => new Promise((resolve, reject) => session.post(method, params, (err, res) => (err ? reject(err) : resolve(res))));

async function handle(command) {
  const [verb, arg] = command.trim().split(/\s+/);
  if (verb === 'gc') {
    for (let i = 0; i < 4; i++) {
      globalThis.gc?.();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return process.memoryUsage();
  }
  if (verb === 'heap-spaces') {
    for (let i = 0; i < 4; i++) globalThis.gc?.();
    return { heap: getHeapStatistics(), spaces: getHeapSpaceStatistics() };
  }
  if (verb === 'heap-snapshot') {
    for (let i = 0; i < 4; i++) globalThis.gc?.();
    return { written: writeHeapSnapshot(arg) };
  }
  if (verb === 'profile-start') {
    session ??= new Session();
    session.connect();
    await post('Profiler.enable');
    await post('Profiler.setSamplingInterval', { interval: 1000 });
    await post('Profiler.start');
    return { started: true };
  }
  if (verb === 'profile-stop') {
    const { profile } = await post('Profiler.stop');
    writeFileSync(arg, JSON.stringify(profile));
    session.disconnect();
    return { written: arg };
  }
  if (verb === 'alloc-start') {
    session ??= new Session();
    session.connect();
    await post('HeapProfiler.enable');
    await post('HeapProfiler.startSampling', { samplingInterval: 1024, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
    return { started: true };
  }
  if (verb === 'alloc-stop') {
    const { profile } = await post('HeapProfiler.stopSampling');
    writeFileSync(arg, JSON.stringify(profile));
    session.disconnect();
    return { written: arg };
  }
  throw new Error(`unknown command ${verb}`);
}

if (file) {
  // written aside and renamed, so the bench never reads half an answer
  const answer = (value) => {
    writeFileSync(`${file}.tmp`, JSON.stringify(value));
    renameSync(`${file}.tmp`, `${file}.out`);
  };
  process.on('SIGUSR2', () => {
    handle(readFileSync(file, 'utf8'))
      .then((value) => answer({ ok: true, ...value }))
      .catch((err) => answer({ ok: false, error: String(err) }));
  });
}
