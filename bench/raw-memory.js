// The floor of "one resident record per workspace" in Node (baseline B.3 in docs/benchmarks.md): RSS and heap growth of a Map of
// N small plain objects (name, cluster id, path, type, phase, uid, rv, created, one label), after forced GCs.
// Usage: node --expose-gc bench/raw-memory.js <N>. Prints one JSON line.
const n = Number(process.argv[2] ?? 100_000);
const settle = async () => {
  for (let i = 0; i < 4; i++) {
    globalThis.gc();
    await new Promise((r) => setTimeout(r, 20));
  }
};
await settle();
const before = process.memoryUsage();
const map = new Map();
for (let i = 0; i < n; i++) {
  const cluster = i.toString(36).padStart(16, '0');
  map.set(cluster, {
    name: `ws-${i}`,
    cluster,
    path: `root:org-${i % 100}:ws-${i}`,
    type: 'universal',
    phase: 'Ready',
    uid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    rv: i + 1,
    created: 1735689600000 + i,
    labels: { team: `team-${i % 50}` },
  });
}
await settle();
const after = process.memoryUsage();
process.stdout.write(`${JSON.stringify({ n: map.size, rssPerRecord: (after.rss - before.rss) / n, heapPerRecord: (after.heapUsed - before.heapUsed) / n, rss: after.rss })}\n`);
