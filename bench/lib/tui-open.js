// One cold open of the workspace browser, as `kcpt tui` does it (the KubeClient from the kubeconfig, the top level
// listed while Ink loads, the browser rendered), but drawn into ink-testing-library's in-memory terminal so it runs
// without a TTY. Prints one JSON line: times since this process started (Node's own start-up included) and the CPU
// it used, at the first frame that shows the top level's children; then the time to expand a child (a level of
// `fan-out` workspaces, listed and watched) and the median key → frame latency of moving the cursor.
// argv: <top path> <first child name> <name of a grandchild>
process.env.NODE_ENV ??= 'production';
const [top, firstChild, grandchild] = process.argv.slice(2);
const since = () => performance.now();
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const dist = new URL('../../dist/src/', import.meta.url);
const [{ render }, { createElement }, { resolveConfig }, { KubeClient }, { WorkspaceSource }, { WorkspaceBrowser }] = await Promise.all([
  import('ink-testing-library'),
  import('react'),
  import(new URL('cli/common/connection.js', dist).href),
  import(new URL('cli/common/http-client.js', dist).href),
  import(new URL('tui/data/workspace-source.js', dist).href),
  import(new URL('tui/components/WorkspaceBrowser.js', dist).href),
]);
const client = new KubeClient(resolveConfig({}).connection);
const source = new WorkspaceSource(client);
const [topNode, firstLevel] = await Promise.all([source.topNode(top), source.listLevel(top)]);
const app = render(
  createElement(WorkspaceBrowser, { source, top: topNode, firstLevel, serverUrl: client.baseUrl, onSelect() {}, onQuit() {}, size: { rows: 40, columns: 160 } }),
);
const frameHas = (re) => re.test(app.lastFrame() ?? '');
async function until(re) {
  while (!frameHas(re)) await new Promise((r) => setImmediate(r));
}
await until(new RegExp(`▸ ${firstChild}\\s`));
const open = { wallMs: since(), cpuMs: cpuMs(), rows: firstLevel.items.length };
await new Promise((r) => setTimeout(r, 50));

// Expand the first child: its level (fan-out workspaces) is listed and watched.
app.stdin.write('j');
await until(new RegExp(`Path\\s+${top}:${firstChild}\\s`));
const t0 = since();
const c0 = cpuMs();
app.stdin.write('l');
await until(new RegExp(`▸ ${grandchild}\\s`));
const expand = { wallMs: since() - t0, cpuMs: cpuMs() - c0 };

// Key → frame: move down through the expanded level, one key at a time.
const moves = [];
for (let i = 0; i < 30; i++) {
  const before = app.frames.length;
  const t = since();
  app.stdin.write('j');
  while (app.frames.length === before) await new Promise((r) => setImmediate(r));
  moves.push(since() - t);
}
moves.sort((a, b) => a - b);
console.log(JSON.stringify({ open, expand, keyMs: moves[Math.floor(moves.length / 2)] }));
app.unmount();
client.close();
process.exit(0);
