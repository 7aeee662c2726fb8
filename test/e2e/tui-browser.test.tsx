/**
 * The browser against a real server (bin/run.js start): ink-testing-library renders it, keys go in as a terminal
 * sends them, and the frames are what a user would see. Setup requests go through the same KubeClient the CLI uses.
 */
import { render } from 'ink-testing-library';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/cli/common/connection.js';
import { ApiError } from '../../src/cli/common/errors.js';
import { KubeClient } from '../../src/cli/common/http-client.js';
import type { Workspace } from '../../src/cli/ws/workspace-api.js';
import { useTenancyServer, users } from './tenancy-fixtures.js';
import { WorkspaceSource } from '../../src/tui/data/workspace-source.js';
import { WorkspaceBrowser } from '../../src/tui/components/WorkspaceBrowser.js';

const DOWN = '\u001B[B';
const RIGHT = '\u001B[C';
const LEFT = '\u001B[D';
const ENTER = '\r';
const WS = '/apis/tenancy.kcp.io/v1alpha1/workspaces';

// A server of its own: it makes workspaces with fixed names in root (and asserts on root's children).
const e2e = useTenancyServer({ private: true });
let admin: KubeClient;

function clientAs(token?: string): KubeClient {
  return new KubeClient(resolveConfig({ kubeconfig: e2e.server.kubeconfig, token }, {}).connection);
}

async function until<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function createReady(parent: string, name: string, type?: { name: string; path: string }): Promise<Workspace> {
  await admin.post(`/clusters/${parent}${WS}`, { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name }, spec: type ? { type } : {} });
  return until(`${parent}:${name} Ready`, async () => {
    const ws = await admin.get<Workspace>(`/clusters/${parent}${WS}/${name}`);
    return ws.status?.phase === 'Ready' && ws;
  });
}

/** Renders the browser at `path` and waits until its first level is on screen. */
async function open(path: string, client = admin, expectText = 'org-a') {
  const source = new WorkspaceSource(client);
  const selections: string[] = [];
  let quit = false;
  const app = render(
    <WorkspaceBrowser
      source={source}
      top={await source.topNode(path)}
      serverUrl={client.baseUrl}
      onSelect={(p) => selections.push(p)}
      onQuit={() => (quit = true)}
      size={{ rows: 30, columns: 100 }}
    />,
  );
  const frame = () => app.lastFrame() ?? '';
  await until(`"${expectText}" on screen`, () => frame().includes(expectText));
  // Effects subscribe to stdin after the first paint: give them a tick before typing.
  await new Promise((r) => setTimeout(r, 50));
  const see = (what: string | RegExp, timeoutMs?: number) =>
    until(`${String(what)} on screen`, () => (typeof what === 'string' ? frame().includes(what) : what.test(frame())), timeoutMs).then(
      () => frame(),
      (err: Error) => {
        throw new Error(`${err.message}; the screen:\n${frame()}`);
      },
    );
  const type = async (keys: string) => {
    app.stdin.write(keys);
    await new Promise((r) => setTimeout(r, 30));
  };
  return { app, frame, see, type, selections, quit: () => quit };
}

/** The tree pane's rows: `▸ name` markers and names, as on screen. */
const treeRow = (name: string) => new RegExp(`[▸▾·…◆] ${name}\\s`);

beforeAll(async () => {
  admin = clientAs();
  await createReady('root', 'org-a');
  await createReady('root:org-a', 'team');
  await createReady('root', 'org-b');
}, 60_000);

afterAll(() => admin?.close());

describe('workspace browser (ink) against a real server', () => {
  it('opens at root with its children, moves, expands lazily, collapses, and Enter selects', async () => {
    const ui = await open('root');
    expect(ui.frame()).toMatch(treeRow('org-a'));
    expect(ui.frame()).toMatch(treeRow('org-b'));
    expect(ui.frame()).not.toMatch(treeRow('team'));
    await ui.type(DOWN);
    await ui.see('root:org-a');
    await ui.see(/Objects\s+namespaces \d+/);
    await ui.type(RIGHT);
    const expanded = await ui.see(treeRow('team'));
    expect(expanded).toMatch(/▾ org-a/);
    await ui.type('j');
    await ui.see('Path         root:org-a:team');
    await ui.type(LEFT);
    await ui.see('Path         root:org-a ');
    await ui.type('h');
    await until('team hidden', () => !treeRow('team').test(ui.frame()));
    await ui.type(ENTER);
    expect(ui.selections).toEqual(['root:org-a']);
    ui.app.unmount();
  });

  it('shows phases change live: Initializing while an initializer holds the workspace, then Ready', async () => {
    await admin.post('/clusters/root/apis/tenancy.kcp.io/v1alpha1/workspacetypes', {
      apiVersion: 'tenancy.kcp.io/v1alpha1',
      kind: 'WorkspaceType',
      metadata: { name: 'held' },
      spec: { extend: { with: [{ name: 'universal', path: 'root' }] }, initializer: true },
    });
    const ui = await open('root');
    await admin.post(`/clusters/root${WS}`, { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name: 'slow' }, spec: { type: { name: 'held', path: 'root' } } });
    await ui.see(/slow\s+held\s+Initializing/);
    const ws = await admin.get<Workspace>(`/clusters/root${WS}/slow`);
    // The initializer removes itself through its virtual workspace, as a controller would.
    await until('initializer removed', async () => {
      try {
        await admin.request('PATCH', `/services/initializingworkspaces/root:held/clusters/${ws.spec?.cluster}/apis/core.kcp.io/v1alpha1/logicalclusters/cluster/status`, {
          body: JSON.stringify([{ op: 'remove', path: '/status/initializers/0' }]),
          contentType: 'application/json-patch+json',
        });
        return true;
      } catch (err) {
        if (err instanceof ApiError && (err.notFound || err.forbidden)) return false;
        throw err;
      }
    });
    await ui.see(/slow\s+held\s+Ready/);
    ui.app.unmount();
  });

  it('creates a child through the name and type prompts, then deletes it only after its name is typed', async () => {
    const ui = await open('root');
    await ui.type('jj');
    await ui.see('Path         root:org-b');
    await ui.type('c');
    await ui.see('New workspace in root:org-b:');
    await ui.type('fresh');
    await ui.type(ENTER);
    await ui.see('Type of root:org-b:fresh');
    expect(ui.frame()).toContain('root:universal');
    await ui.type(ENTER);
    await ui.see('Workspace "fresh" (type root:universal) created in root:org-b.');
    await ui.see(/fresh\s+universal\s+Ready/);
    expect((await admin.get<Workspace>(`/clusters/root:org-b${WS}/fresh`)).metadata.name).toBe('fresh');

    await ui.type('j');
    await ui.see('Path         root:org-b:fresh');
    await ui.type('d');
    await ui.see('Type "fresh" to delete root:org-b:fresh');
    await ui.type('fres');
    await ui.type(ENTER);
    await ui.see('"fres" does not match "fresh": nothing deleted');
    expect((await admin.get<Workspace>(`/clusters/root:org-b${WS}/fresh`)).metadata.name).toBe('fresh');
    await ui.type('d');
    await ui.type('fresh');
    await ui.type(ENTER);
    await ui.see('Workspace root:org-b:fresh is being deleted.');
    await until('fresh gone from the tree', () => !treeRow('fresh').test(ui.frame()));
    await until('fresh gone from the server', () =>
      admin.get(`/clusters/root:org-b${WS}/fresh`).then(
        () => false,
        (err: unknown) => err instanceof ApiError && err.notFound,
      ),
    );
    ui.app.unmount();
  });

  it('shows errors instead of failing: a name conflict in the status line, a 403 in the pane', async () => {
    const ui = await open('root');
    await ui.type('j');
    await ui.see('Path         root:org-a');
    await ui.type('c');
    await ui.type('team');
    await ui.type(ENTER);
    await ui.see('Type of root:org-a:team');
    await ui.type(ENTER);
    await ui.see(/Error from server \(AlreadyExists\): .*team.* already exists/);
    // Still alive: keys keep working.
    await ui.type('j');
    await ui.see('Path         root:org-b');
    ui.app.unmount();

    const stranger = clientAs(users.user1.token);
    try {
      // user-1 may not read root's APIBindings: the 403 shows where the bindings would be, the rest still works.
      const denied = await open('root', stranger, 'root');
      await denied.see(/Error from server \(Forbidden\): apibindings/);
      await denied.type('?');
      await denied.see('Keys');
      denied.app.unmount();
    } finally {
      stranger.close();
    }
  });

  it('says when the server is gone and resumes when it is back', async () => {
    const ui = await open('root');
    await e2e.server.restart();
    await until('the unreachable line', () => ui.app.frames.some((f) => f.includes('server unreachable')), 30_000);
    // Resumed: the level is listed and watched again, so a workspace created now shows up.
    await createReady('root', 'after-restart');
    await ui.see(treeRow('after-restart'), 30_000);
    expect(ui.frame()).not.toContain('server unreachable');
    ui.app.unmount();
  });
});
