// Sides measured in interleaved rounds (the GET and CREATE rows of bench/run.js): every side runs once per round,
// the order reversed every other round, and a row's verdict is the median of the per-round ratios.
import { log, median, withServerCpu } from './util.js';

/**
 * Connections each side is warmed up with, one second each. Node deoptimises its own stream code on a server's first
 * new connections and re-optimises it on a background thread (~0.4–1.6 s of compiling per connection, kcpt's more
 * than the bare server's) until the third or fourth; a round's load opens a new connection, so a single warm-up left
 * the first rounds measuring that for both sides.
 */
const WARMUP_CONNECTIONS = 3;

/**
 * Every side once per round, for `seconds` each, the order reversed every other round (A B C, C B A, …) so no side
 * always runs right after another's load; warmed up first. `sides` maps a name to {pid, load(seconds)}, the load
 * resolving a load-generator result. The ratios are taken within a round (the same minute of a shared box, whose
 * bare server alone moved 1.5–1.8× between runs minutes apart) and the verdict is their median, so one noisy window
 * moves one ratio, not the row. Each round is printed with every side's rate and server CPU per request (`unit`).
 * Resolves {[side]: results[]} in round order.
 */
export async function interleavedRounds({ label, rounds, seconds, unit = 'req' }, sides) {
  const names = Object.keys(sides);
  for (const name of names) for (let i = 0; i < WARMUP_CONNECTIONS; i++) await sides[name].load(1);
  const out = Object.fromEntries(names.map((n) => [n, []]));
  for (let i = 0; i < rounds; i++) {
    const order = i % 2 === 0 ? names : [...names].reverse();
    for (const name of order) out[name].push(await withServerCpu(sides[name].pid, () => sides[name].load(seconds)));
    log(`  ${label} round ${i + 1} (${order.join(', ')}): ${names.map((n) => `${n} ${out[n].at(-1).rps.toFixed(0)} ${unit}/s (${out[n].at(-1).cpuUsPerReq.toFixed(0)} us CPU per ${unit})`).join(', ')}`);
  }
  return out;
}

/** Per-round ratios of rate `a` to rate `b` (and of b's CPU per request to a's), with their medians, printed. */
export function roundRatios(label, a, b) {
  const rates = a.map((x, i) => x.rps / b[i].rps);
  const cpu = a.map((x, i) => b[i].cpuUsPerReq / x.cpuUsPerReq);
  const pct = (v) => `${(v * 100).toFixed(0)} %`;
  log(`  ${label}: per-round rate ratios [${rates.map(pct).join(', ')}], median ${pct(median(rates))} (range ${pct(Math.min(...rates))}–${pct(Math.max(...rates))}); CPU-normalised [${cpu.map(pct).join(', ')}], median ${pct(median(cpu))}`);
  return { rates, cpu, median: median(rates), cpuMedian: median(cpu) };
}

/** A summary row whose verdict is the median of the per-round ratios of side `k` to side `r`. */
export function ratioRow({ name, baselineName, min, k, r, ratios, rawCpuLabel, requests = 'requests' }) {
  const bad = k.reduce((a, x) => a + x.non2xx + x.errors, 0);
  if (bad) log(`  WARNING: ${name}: ${bad} ${requests} answered with errors`);
  return {
    name,
    unit: 'rate',
    kcpt: median(k.map((x) => x.rps)),
    baseline: median(r.map((x) => x.rps)),
    ratio: ratios.median,
    note: `kcpt/base: median of ${ratios.rates.length} per-round ratios, ${ratios.rates.filter((x) => x >= min).length} of them >= ${min * 100} %`,
    baselineName,
    target: { kind: 'ratio', min },
    runs: { kcpt: k.map((x) => x.rps), baseline: r.map((x) => x.rps), ratios: ratios.rates },
    extra: {
      kcptP50: median(k.map((x) => x.p50)),
      kcptP99: median(k.map((x) => x.p99)),
      rawP50: median(r.map((x) => x.p50)),
      rawP99: median(r.map((x) => x.p99)),
      kcptCpuUs: median(k.map((x) => x.cpuUsPerReq)),
      rawCpuUs: median(r.map((x) => x.cpuUsPerReq)),
      cpuRatio: ratios.cpuMedian,
      rawCpuLabel,
      errors: bad,
    },
  };
}
