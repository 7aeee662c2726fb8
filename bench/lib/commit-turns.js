// Preloaded into kcpt by bench/group-commit-probe.js only (`node --import bench/lib/commit-turns.js bin/run.js start
// ...`): counts the object-row inserts (one per committed create) of each event-loop turn, and on exit appends
// {commits, turns, histogram} as one JSON line to $KCPT_BENCH_TURNS_FILE. It wraps better-sqlite3's Statement#run,
// the same module instance the server loads.
import { appendFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const file = process.env.KCPT_BENCH_TURNS_FILE;
if (file) {
  const Database = createRequire(import.meta.url)('better-sqlite3');
  const probe = new Database(':memory:');
  const Statement = Object.getPrototypeOf(probe.prepare('SELECT 1'));
  probe.close();
  const run = Statement.run;
  const histogram = new Map();
  let inTurn = 0;
  const endTurn = () => {
    histogram.set(inTurn, (histogram.get(inTurn) ?? 0) + 1);
    inTurn = 0;
  };
  Statement.run = function countedRun(...args) {
    if (this.source.startsWith('INSERT INTO objects')) {
      if (inTurn === 0) setImmediate(endTurn);
      inTurn++;
    }
    return run.apply(this, args);
  };
  process.on('exit', () => {
    let turns = 0;
    let commits = 0;
    for (const [n, times] of histogram) {
      turns += times;
      commits += n * times;
    }
    appendFileSync(file, `${JSON.stringify({ commits, turns, histogram: [...histogram].sort((a, b) => a[0] - b[0]) })}\n`);
  });
}
