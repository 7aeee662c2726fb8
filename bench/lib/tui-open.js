// The workspace browser drawn into ink-testing-library's in-memory terminal (no TTY needed), as `kcpt tui` sets it
// up (the KubeClient from the kubeconfig, the top level listed first). Prints one JSON line: the time to expand a
// child (a level of `fan-out` workspaces, listed and watched) and the median key → frame latency of moving the
// cursor. (The cold open is measured on the real command in a terminal: tui-terminal.js.)
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
  import(new URL('client/http-client.js', dist).href),
  import(new URL('tui/data/workspace-source.js', dist).href),
  import(new URL('tui/components/WorkspaceBrowser.js', dist).href),
]);
const client = new KubeClient(resolveConfig({}).connection);
const source = new WorkspaceSource(client);
const [topNode, firstLevel] = await Promise.all([source.topNode(top), source.listLevel(top)]);
const app = render(
  createElement(WorkspaceBrowser, { source, top: topNode, firstLevel, serverUrl: client.baseUrl, onSelect() {}, onQuit() {}, size: { rows: 40, columns: 100 } }),
);
const frameHas = (re) => re.test(app.lastFrame() ?? '');
// Polled every 2 ms: a setImmediate spin would burn the CPU this measures.
const tick = () => new Promise((r) => setTimeout(r, 2));
async function until(re) {
  const deadline = Date.now() + 30_000;
  while (!frameHas(re)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${re}; the screen:\n${app.lastFrame()}`);
    await tick();
  }
}
await until(new RegExp(`▸ ${firstChild}\\s`));
// Ink subscribes to input in an effect after the first frame: until then a key is lost, so press again until it
// lands (the cursor is on the top row until it does).
for (let tries = 0; !frameHas(new RegExp(`Path\\s+${top}:${firstChild}(?![\\w:-])`)); tries++) {
  if (tries > 100) throw new Error(`the cursor never moved; the screen:\n${app.lastFrame()}`);
  if (!frameHas(new RegExp(`Path\\s+${top}:`))) app.stdin.write('j');
  await new Promise((r) => setTimeout(r, 100));
}
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
  while (app.frames.length === before) await tick();
  moves.push(since() - t);
}
moves.sort((a, b) => a - b);
console.log(JSON.stringify({ expand, keyMs: moves[Math.floor(moves.length / 2)] }));
app.unmount();
client.close();
process.exit(0);
