/**
 * The browser against a real server (bin/run.js start): ink-testing-library renders it, keys go in as a terminal
 * sends them, and the frames are what a user would see. Setup requests go through the same KubeClient the CLI uses.
 */
import { randomBytes } from 'node:crypto';
import { render } from 'ink-testing-library';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/cli/common/connection.js';
import { ApiError } from '../../src/client/errors.js';
import { KubeClient } from '../../src/client/http-client.js';
import type { Workspace } from '../../src/client/workspace-api.js';
import { apiExport, resourceSchema } from './apis-fixtures.js';
import { useTenancyServer, users } from './tenancy-fixtures.js';
import { WorkspaceSource } from '../../src/tui/data/workspace-source.js';
import type { TerminalSize } from '../../src/tui/hooks/useTerminalSize.js';
import { keyHelp } from '../../src/tui/components/HelpPane.js';
import { WorkspaceBrowser } from '../../src/tui/components/WorkspaceBrowser.js';
import { eventually } from '../helpers/eventually.js';

const DOWN = '\u001B[B';
const RIGHT = '\u001B[C';
const LEFT = '\u001B[D';
const ENTER = '\r';
const BACKSPACE = '\u007F';
const WS = '/apis/tenancy.kcp.io/v1alpha1/workspaces';

// A server of its own: it makes workspaces with fixed names in root (and asserts on root's children).
const e2e = useTenancyServer({ private: true });
let admin: KubeClient;

function clientAs(token?: string): KubeClient {
  return new KubeClient(resolveConfig({ kubeconfig: e2e.server.kubeconfig, token }, {}).connection);
}

async function createReady(parent: string, name: string, type?: { name: string; path: string }): Promise<Workspace> {
  await admin.post(`/clusters/${parent}${WS}`, { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name }, spec: type ? { type } : {} });
  return eventually(`${parent}:${name} Ready`, async () => {
    const ws = await admin.get<Workspace>(`/clusters/${parent}${WS}/${name}`);
    return ws.status?.phase === 'Ready' && ws;
  }, 20_000, 25);
}

/** `prefix-<random>`: a workspace name no other test uses. */
const fresh = (prefix: string) => `${prefix}-${randomBytes(3).toString('hex')}`;

/**
 * Renders the browser at `path` and waits until its first level is on screen. `size`: a fixed size (the default), or
 * 'terminal' to follow the test's stdout as a terminal is followed (resize() changes it).
 */
async function open(path: string, client = admin, expectText = 'org-a', size: TerminalSize | 'terminal' = { rows: 30, columns: 100 }) {
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
      size={size === 'terminal' ? undefined : size}
    />,
  );
  const frame = () => app.lastFrame() ?? '';
  await eventually(`"${expectText}" on screen`, () => frame().includes(expectText), 20_000, 25);
  // Effects subscribe to stdin after the first paint: give them a tick before typing.
  await new Promise((r) => setTimeout(r, 50));
  const see = (what: string | RegExp, timeoutMs?: number) =>
    eventually(`${String(what)} on screen`, () => (typeof what === 'string' ? frame().includes(what) : what.test(frame())), timeoutMs, 25).then(
      () => frame(),
      (err: Error) => {
        throw new Error(`${err.message}; the screen:\n${frame()}`);
      },
    );
  const type = async (keys: string) => {
    app.stdin.write(keys);
    await new Promise((r) => setTimeout(r, 30));
  };
  /** The terminal is now `columns` × `rows`, as a terminal says it: new sizes, then a resize event. */
  const resize = (columns: number, rows: number) => {
    Object.defineProperty(app.stdout, 'columns', { value: columns, configurable: true });
    Object.defineProperty(app.stdout, 'rows', { value: rows, configurable: true });
    app.stdout.emit('resize');
  };
  return { app, frame, see, type, resize, selections, quit: () => quit };
}

/** Whether `frame` is the browser drawn at `columns` × `rows`: that many lines, none wider, the panes closed at the right edge. */
function drawnAt(frame: string, columns: number, rows: number): boolean {
  const lines = frame.split('\n');
  if (lines.length !== rows || lines.some((l) => [...l].length > columns)) return false;
  const top = lines[1] ?? '';
  return top.startsWith('╭') && top.endsWith('╮') && [...top].length === columns;
}

/** The URL line as it reads on screen: `URL  ` and the URL, joined back where the screen's width cut it. */
function urlOnScreen(frame: string, columns: number, url: string): string {
  const lines = frame.split('\n');
  const at = lines.findIndex((l) => l.startsWith('URL  '));
  if (at < 0) return '';
  return lines.slice(at, at + Math.ceil(`URL  ${url}`.length / columns)).join('');
}

/** A ClusterRole and its binding to `user` in `path`: `rules`, plus entering the workspace. */
async function grant(path: string, user: string, name: string, rules: unknown[]): Promise<void> {
  const rbac = '/apis/rbac.authorization.k8s.io/v1';
  await admin.post(`/clusters/${path}${rbac}/clusterroles`, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name },
    rules: [{ nonResourceURLs: ['/'], verbs: ['access'] }, ...rules],
  });
  await admin.post(`/clusters/${path}${rbac}/clusterrolebindings`, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
  });
}

/** An APIExport `name` of `plural`.example.io in `path`, with its schema. */
async function exportIn(path: string, name: string, plural: string): Promise<void> {
  const group = 'example.io';
  await admin.post(`/clusters/${path}/apis/apis.kcp.io/v1alpha1/apiresourceschemas`, resourceSchema({ group, plural, kind: plural[0].toUpperCase() + plural.slice(1, -1) }));
  await admin.post(`/clusters/${path}/apis/apis.kcp.io/v1alpha2/apiexports`, apiExport({ name, group, plural }));
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
    await eventually('team hidden', () => !treeRow('team').test(ui.frame()), 20_000, 25);
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
    await eventually('initializer removed', async () => {
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
    }, 20_000, 25);
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
    await eventually('fresh gone from the tree', () => !treeRow('fresh').test(ui.frame()), 20_000, 25);
    await eventually('fresh gone from the server', () =>
      admin.get(`/clusters/root:org-b${WS}/fresh`).then(
        () => false,
        (err: unknown) => err instanceof ApiError && err.notFound,
      ), 20_000, 25);
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

  it('says it is reconnecting while the server is gone and relists when it is back', async () => {
    const ui = await open('root');
    await e2e.server.restart();
    await eventually('the reconnecting line', () => ui.app.frames.some((f) => f.includes('⚠ Reconnecting to the server (try ')), 30_000, 25);
    // Resumed: the level is listed and watched again, so a workspace created now shows up.
    await createReady('root', 'after-restart');
    await ui.see(treeRow('after-restart'), 30_000);
    await ui.see('The server answers again');
    // Settles clean: each watched level may retry once more while the restarted server finishes its start.
    await eventually('a frame without a reconnecting line or an error', () => !/Reconnecting|error|Unable to connect/.test(ui.frame()), 30_000, 25);
    ui.app.unmount();
  });

  it('lays out at 60 to 200 columns and short heights: names whole before type and phase, the URL whole, every key', async () => {
    const top = fresh('layout');
    await createReady('root', top);
    await createReady(`root:${top}`, 'development-environment');
    await createReady(`root:${top}:development-environment`, 'backend-services');
    const ui = await open(`root:${top}`, admin, 'development-environment', 'terminal');
    await ui.type(`j${RIGHT}`);
    await ui.see(treeRow('backend-services'));
    await ui.type('j');
    const path = `root:${top}:development-environment:backend-services`;
    await ui.see(`Path         ${path.slice(0, 20)}`);
    const url = (await admin.get<Workspace>(`/clusters/root:${top}:development-environment${WS}/backend-services`)).spec?.URL ?? '';
    expect(url).toMatch(new RegExp(`/clusters/${path}$`));

    for (const [columns, rows] of [
      [60, 24],
      [80, 24],
      [100, 30],
      [120, 30],
      [200, 50],
      [80, 12],
      [120, 10],
    ] as const) {
      ui.resize(columns, rows);
      const frame = await eventually(`a ${columns}×${rows} frame`, () => drawnAt(ui.frame(), columns, rows) && ui.frame(), 20_000, 25);
      const at = `${columns}×${rows}:\n${frame}`;
      // Every name whole and the phase beside it; the type too from 80 columns (cut, `organizat…`, where it is the
      // only thing that does not fit), whole from 100.
      const type = columns >= 100 ? '(organization|universal)\\s+' : columns >= 80 ? '(organiza\\S*|universal)\\s+' : '';
      for (const name of [top, 'development-environment', 'backend-services']) {
        expect(frame, at).toMatch(new RegExp(`[▸▾·] ${name}(\\s|│)`));
        expect(frame, at).toMatch(new RegExp(`[▸▾·] ${name}\\s+${type}Ready`));
      }
      expect(urlOnScreen(frame, columns, url), at).toBe(`URL  ${url}`);
      for (const k of ['↑↓ move', 'c create', 'b bind', 'r refresh', '? help', 'q quit']) expect(frame, at).toContain(k);

      // The help: every key, scrolled to where the screen is short.
      await ui.type('?');
      await ui.see(/Keys/);
      const seen = new Set<string>();
      for (let i = 0; i <= keyHelp.length; i++) {
        for (const [keys] of keyHelp) if (ui.frame().includes(keys)) seen.add(keys);
        if (!/Keys \d+-(\d+) of/.exec(ui.frame()) || ui.frame().includes(`-${keyHelp.length} of`)) break;
        await ui.type('j');
      }
      // Every key at some scroll position (a key whose line wraps can come into view after the ones below it).
      expect(seen, at).toEqual(new Set(keyHelp.map(([keys]) => keys)));
      expect(drawnAt(ui.frame(), columns, rows), `help at ${at}`).toBe(true);
      await ui.type('x');
      await eventually('help closed', () => !ui.frame().includes('Keys'), 20_000, 25);
    }
    ui.app.unmount();
  });

  it('redraws at the new size as soon as the terminal is resized, without a key press', async () => {
    const top = fresh('resize');
    await createReady('root', top);
    await createReady(`root:${top}`, 'development-environment');
    const ui = await open(`root:${top}`, admin, 'development-environment', 'terminal');
    await ui.see(/Objects\s+namespaces \d+/);
    ui.resize(64, 20);
    await eventually('a 64×20 frame', () => drawnAt(ui.frame(), 64, 20), 20_000, 25).catch((err: Error) => {
      throw new Error(`${err.message}; the screen:\n${ui.frame()}`);
    });
    expect(ui.frame()).toMatch(/[▸·] development-environment\s+Ready/);
    ui.resize(150, 40);
    await eventually('a 150×40 frame', () => drawnAt(ui.frame(), 150, 40), 20_000, 25);
    expect(ui.frame()).toMatch(/[▸·] development-environment\s+universal\s+Ready/);
    ui.app.unmount();
  });

  it('b offers the APIExports of every workspace the user may enter, siblings too, and narrows them as one types', async () => {
    const top = fresh('bind');
    await createReady('root', top);
    for (const ws of ['provider', 'team-b', 'other']) await createReady(`root:${top}`, ws);
    await exportIn(`root:${top}:provider`, 'widgets', 'widgets');
    await exportIn(`root:${top}:provider`, 'gadgets', 'gadgets');
    await exportIn(`root:${top}:other`, 'tools', 'hammers');

    const ui = await open(`root:${top}`, admin, 'team-b');
    await ui.type('jjj');
    await ui.see(`Path         root:${top}:team-b`);
    await ui.type('b');
    await ui.see(`Bind into root:${top}:team-b`);
    for (const e of [`root:${top}:provider:widgets`, `root:${top}:provider:gadgets`, `root:${top}:other:tools`]) await ui.see(e);
    // Type to narrow: by name, then by what the export brings.
    await ui.type('gadg');
    await ui.see(/filter: gadg\s+1 of \d+/);
    expect(ui.frame()).not.toContain(`root:${top}:provider:widgets`);
    await ui.type(`${BACKSPACE.repeat(4)}hammers`);
    await ui.see(`root:${top}:other:tools  hammers.example.io`);
    expect(ui.frame()).not.toContain(`root:${top}:provider:gadgets`);
    await ui.type(ENTER);
    await ui.see(`apibinding tools created in root:${top}:team-b`);
    const binding = await admin.get<{ spec: { reference: { export: { path: string; name: string } } } }>(`/clusters/root:${top}:team-b/apis/apis.kcp.io/v1alpha2/apibindings/tools`);
    expect(binding.spec.reference.export).toEqual({ path: `root:${top}:other`, name: 'tools' });
    await ui.see(/tools Bound ← root:.*:other:tools/);
    ui.app.unmount();
  });

  it('b offers a user only the APIExports they may see and bind', async () => {
    const top = fresh('bind-user');
    await createReady('root', top);
    for (const ws of ['provider', 'team-b', 'other']) await createReady(`root:${top}`, ws);
    await exportIn(`root:${top}:provider`, 'widgets', 'widgets');
    await exportIn(`root:${top}:provider`, 'gadgets', 'gadgets');
    await exportIn(`root:${top}:other`, 'tools', 'hammers');
    await grant(`root:${top}:team-b`, users.user1.name, 'team-admin', [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }]);
    await grant(`root:${top}:provider`, users.user1.name, 'widget-binder', [
      { apiGroups: ['apis.kcp.io'], resources: ['apiexports'], verbs: ['get', 'list'] },
      { apiGroups: ['apis.kcp.io'], resources: ['apiexports'], resourceNames: ['widgets'], verbs: ['bind'] },
    ]);

    const user = clientAs(users.user1.token);
    try {
      const ui = await open(`root:${top}:team-b`, user, 'team-b');
      await ui.type('b');
      await ui.see(`root:${top}:provider:widgets`);
      await ui.see(/1 more you may not bind/);
      expect(ui.frame()).not.toContain('gadgets');
      expect(ui.frame()).not.toContain(`root:${top}:other`);
      await ui.type(ENTER);
      await ui.see(`apibinding widgets created in root:${top}:team-b`);
      await ui.see(/widgets Bound ← root:.*:provider:widgets/);
      ui.app.unmount();
    } finally {
      user.close();
    }
  });
});
