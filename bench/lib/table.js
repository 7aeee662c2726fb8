// The summary table every benchmark row ends up in: `benchmark | kcpt | baseline | kcp published | kcpt/base | target |
// result` (kcp's figure from bench/lib/kcp-published.js).
// Row: {name, unit: 'rate'|'ms'|'bytes', kcpt, baseline, baselineName?, target: {kind, min?, max?}, note?, failed?,
//   noVerdict? (why the run cannot decide an 'over' target: its result is 'n/a' and the reason goes to the note),
//   cpuUs?: {kcpt, baseline}} (server CPU per operation, µs; read from extra.kcptCpuUs / rawCpuUs when absent),
//   ratio? (the kcpt/baseline the verdict takes, e.g. the median of per-round ratios; kcpt / baseline when absent).
//   target kinds: 'ratio' (kcpt/baseline >= min), 'min' (kcpt >= min), 'max' (kcpt <= max), 'over' (kcpt - baseline
//   <= max: a latency allowed this much above the same run's floor), 'info', 'info-ratio'.
import { kcpCitations, kcpPublishedFor } from './kcp-published.js';
import { fmtMs, fmtNum, fmtRate } from './util.js';

export function fmtValue(row, v) {
  if (row.unit === 'ms') return v >= 10_000 ? `${fmtNum(v / 1000, 1)} s` : fmtMs(v);
  if (row.unit === 'bytes') return Number.isFinite(v) ? (v >= 2 ** 20 ? `${fmtNum(v / 2 ** 20, 1)} MiB` : v >= 1024 ? `${fmtNum(v / 1024, 2)} KiB` : `${fmtNum(v)} B`) : 'n/a';
  return fmtRate(v);
}

export function verdict(row) {
  if (row.failed) return { ratio: '-', target: '-', status: 'FAIL' };
  const ratio = row.ratio ?? row.kcpt / row.baseline;
  const t = row.target;
  if (t.kind === 'ratio') {
    return { ratio: `${fmtNum(ratio * 100)} %`, target: `>= ${t.min * 100} % of baseline`, status: ratio >= t.min ? 'PASS' : 'MISS' };
  }
  if (t.kind === 'over') {
    const over = row.kcpt - row.baseline;
    return {
      ratio: `+${fmtValue(row, over)}`,
      target: `<= baseline + ${fmtValue(row, t.max)}`,
      status: row.noVerdict ? 'n/a' : Number.isFinite(over) && over <= t.max ? 'PASS' : 'MISS',
    };
  }
  if (t.kind === 'info-ratio') return { ratio: `${fmtNum(ratio * 100)} %`, target: '(info)', status: '-' };
  // rates are compared as a share of the baseline, latencies, sizes and times as "times the baseline"
  const ratioText = !Number.isFinite(ratio) ? 'n/a' : row.unit === 'rate' ? `${fmtNum(ratio * 100)} %` : `${fmtNum(ratio, 1)}x`;
  if (t.kind === 'max') return { ratio: ratioText, target: `<= ${fmtValue(row, t.max)}`, status: row.kcpt <= t.max ? 'PASS' : 'MISS' };
  if (t.kind === 'min') return { ratio: ratioText, target: `>= ${fmtValue(row, t.min)}`, status: row.kcpt >= t.min ? 'PASS' : 'MISS' };
  return { ratio: ratioText, target: '(info)', status: '-' };
}

/** Server CPU per operation, kcpt / baseline in µs, or undefined when the row has none. */
export function cpuOf(row) {
  if (row.cpuUs) return row.cpuUs;
  const e = row.extra ?? {};
  if (Number.isFinite(e.kcptCpuUs)) return { kcpt: e.kcptCpuUs, baseline: e.rawCpuUs };
  if (Number.isFinite(e.kcptCpuUsPerWrite)) return { kcpt: e.kcptCpuUsPerWrite, baseline: e.rawCpuUsPerWrite };
  return undefined;
}

function fmtCpu(row) {
  const c = cpuOf(row);
  if (!c || !Number.isFinite(c.kcpt)) return '';
  return `${fmtNum(c.kcpt)} / ${Number.isFinite(c.baseline) ? fmtNum(c.baseline) : '-'}`;
}

/** The table as lines of text. */
export function tableLines(rows) {
  const table = rows.map((row) => {
    const v = verdict(row);
    return {
      name: row.name,
      kcpt: row.failed && !Number.isFinite(row.kcpt) ? 'failed' : fmtValue(row, row.kcpt),
      baseline: row.failed && !Number.isFinite(row.kcpt) ? '-' : `${Number.isFinite(row.baseline) ? fmtValue(row, row.baseline) : ''} ${row.baselineName ?? ''}`.trim(),
      kcp: kcpPublishedFor(row.name),
      ratio: v.ratio,
      cpu: fmtCpu(row),
      target: v.target,
      status: v.status,
      note: row.failed ? `${row.note ? `${row.note}; ` : ''}${row.failed}` : row.noVerdict ? `not a verdict: ${row.noVerdict}` : (row.note ?? ''),
    };
  });
  const cols = [
    ['name', 'benchmark'],
    ['kcpt', 'kcpt'],
    ['baseline', 'baseline (same run)'],
    ['kcp', 'kcp published'],
    ['ratio', 'kcpt/base'],
    ['cpu', 'CPU µs/op kcpt / base'],
    ['target', 'target'],
    ['status', 'result'],
    ['note', 'note'],
  ];
  const width = Object.fromEntries(cols.map(([k, h]) => [k, Math.max(h.length, ...table.map((r) => String(r[k]).length))]));
  const line = (r) => `| ${cols.map(([k]) => String(r[k]).padEnd(width[k])).join(' | ')} |`;
  const citations = kcpCitations(rows);
  return [
    line(Object.fromEntries(cols.map(([k, h]) => [k, h]))),
    `|${cols.map(([k]) => '-'.repeat(width[k] + 2)).join('|')}|`,
    ...table.map(line),
    ...(citations.length ? ['kcp published figures:', ...citations] : []),
  ];
}

export function printTable(rows, title) {
  process.stdout.write(`\n${title}\n${tableLines(rows).join('\n')}\n`);
}
