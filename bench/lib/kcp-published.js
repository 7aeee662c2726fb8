// kcp's own published figure for each benchmark row, with its citation, in one place so figures and sources stay
// together (anchors K1–K16). A row whose name matches no entry has none:
// kcp publishes no request-level throughput or latency (GET, LIST, CREATE, watch, apply), nor CLI, TUI or
// test-harness timings. The anchors were measured on kcp's own hardware and set-ups (3 shards, etcd), so they sit
// beside kcpt's figure as a reference point, not as a same-machine baseline.

export const KCP_PUBLISHED = [
  {
    match: /^(START|RESTART .*-> \/readyz|WS restart|testing: startControlPlane)/,
    anchor: 'K12',
    figure: '7.2 s boot (median of 10; 12.2 s before PR #4346)',
    source: 'kcp-dev/kcp PR #4346, hack/measure-boot.bash',
  },
  {
    match: /^WS create, flat/,
    anchor: 'K4',
    figure: '2 ws/s (10k directly under root)',
    source: 'kcp docs/content/developers/investigations/loadtest-report-apr-2026.md',
  },
  {
    match: /^WS create, tree/,
    anchor: 'K4',
    figure: '8 ws/s (tree depth 5, fan-out 7)',
    source: 'kcp loadtest-report-apr-2026.md',
  },
  {
    match: /^(WS create -> Ready|CLI kcpt ws create|testing: workspaces)/,
    anchor: 'K14',
    figure: 'no direct p50/p99; < 1 s per ws inferred (org + child in 0.65 s)',
    source: 'kcp-dev/kcp PR #1232 CI log',
  },
  {
    match: /^WS RSS per workspace/,
    anchor: 'K3',
    figure: '7.4 MiB/ws after Go GC (9.8 MiB under load)',
    source: 'kcp loadtest-report-apr-2026.md, Sizing Considerations',
  },
  {
    match: /^RESTART .*RSS at ready/,
    anchor: 'K3',
    figure: 'none for a restart; 7.4 MiB per empty ws resident',
    source: 'kcp loadtest-report-apr-2026.md',
  },
  {
    match: /^WS disk per workspace/,
    anchor: 'K11',
    figure: 'no bytes published; 9 etcd keys per universal ws (2022)',
    source: 'kcp-dev/kcp#2430',
  },
  {
    match: /^WS delete a/,
    anchor: 'K5',
    figure: '~1 hour for a 10,000-ws tree, stalls',
    source: 'kcp loadtest-report-apr-2026.md; kcp-dev/kcp#4072',
  },
];

/** "<figure> [Kn]" for a row name, or "none published". */
export function kcpPublishedFor(rowName) {
  const hit = KCP_PUBLISHED.find((p) => p.match.test(rowName.trim()));
  return hit ? `${hit.figure} [${hit.anchor}]` : 'none published';
}

/** The citations of the anchors that appear in `rows`, one line each, for under the table. */
export function kcpCitations(rows) {
  const seen = new Map();
  for (const row of rows) {
    const hit = KCP_PUBLISHED.find((p) => p.match.test(row.name.trim()));
    if (hit && !seen.has(hit.anchor)) seen.set(hit.anchor, hit.source);
  }
  return [...seen].map(([anchor, source]) => `  [${anchor}] ${source} (docs/benchmarks.md, kcp's published figures)`);
}
