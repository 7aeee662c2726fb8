/**
 * API sharing across a restart of the server; the rest of each area is on the shared server (api-bindings,
 * default-api-bindings and apiexport-virtual-workspace .test.ts). Each area builds its world in an organization of its
 * own and takes its steps up to the restart; the server restarts once for all of them (a private server and its
 * restart are what this file costs, four processes and an etcd in the sharded run); then each case checks what
 * must hold after it:
 * - a binding rolled forward to a new schema serves its objects and that schema;
 * - a workspace still Initializing for a missing export finishes once the export appears;
 * - the APIExport virtual workspace serves the same consumers' objects, the endpoint slice keeps its URLs, and the
 *   provider writes into a consumer through it again.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { uniqueName } from '../helpers/kubectl.js';
import * as bindings from './api-bindings-fixtures.js';
import * as vw from './apiexport-virtual-workspace-fixtures.js';
import { defaultBindingsWorld } from './default-api-bindings-fixtures.js';
import { condition, create, createWorkspace, eventually, getJson, ownOrganization, useTenancyServer, waitForPhase } from './tenancy-fixtures.js';

// A server of its own: it restarts it.
const e2e = useTenancyServer({ private: true });

/** A provider's Widget export bound in c1, with an object, rolled forward to v2 (as in api-bindings.test.ts). */
const bindingsOrg = ownOrganization(e2e, 'api-bindings');
const bound = e2e.at(bindingsOrg.child('c1'));
async function rolledForwardBinding() {
  const p = bindingsOrg.child;
  await bindingsOrg.create();
  for (const ws of ['provider', 'c1']) await createWorkspace(e2e.at(bindingsOrg.path), ws);
  const provider = e2e.at(p('provider'));
  await bindings.apply(provider, bindings.schema('v1.widgets.example.com', 'How big the widget is.'));
  await bindings.apply(provider, bindings.exportOf('v1.widgets.example.com'));
  await bindings.apply(bound, bindings.binding(p('provider')));
  await bindings.waitBound(bound);
  await bindings.apply(bound, bindings.widget('one', 5));
  await bindings.apply(provider, bindings.schema('v2.widgets.example.com', 'Size in units.'));
  await bindings.apply(provider, bindings.exportOf('v2.widgets.example.com'));
  await eventually('c1 on v2', async () => {
    const b = await getJson(bound, ['apibinding', 'widgets']);
    return b.status.boundResources?.[0]?.schema.name === 'v2.widgets.example.com' ? b : undefined;
  });
}

/** A workspace of a type whose default binding names an export that does not exist yet (default-api-bindings.test.ts). */
const defaults = defaultBindingsWorld(e2e);
const laterExport = uniqueName('later');
let waiting: string;
async function waitingForDefaultBinding() {
  await defaults.setUp();
  const type = await defaults.defineType('with-later', { defaultAPIBindings: [{ path: defaults.providerPath, export: laterExport }] });
  [waiting] = await defaults.workspaceOf(type, 'Initializing');
}

/** A provider's export bound by c1 (claim accepted) and c2 (rejected), an object in each (apiexport-virtual-workspace.test.ts). */
const exportOrg = ownOrganization(e2e, 'apiexport-vw');
const world = vw.exportWorld(e2e, exportOrg);
let c1: vw.Consumer;
let c2: vw.Consumer;
const seenThroughVirtualWorkspace = async () =>
  (await world.everywhere(['widgets', '-A'])).map((i) => `${i.metadata.annotations['kcp.io/cluster']}/${i.metadata.name}`).sort();
/** What the virtual workspace served and its slice listed before the restart. */
let seenBefore: string[];
let endpointsBefore: string[];
async function servedThroughVirtualWorkspace() {
  await world.setUp();
  [c1, c2] = await Promise.all([world.consumer('c1'), world.consumer('c2')]);
  await world.bind(c1, 'widgets', [vw.accept()]);
  await world.bind(c2, 'widgets', [vw.reject()]);
  await create(c1.k, vw.widget('w1', 1));
  await create(c2.k, vw.widget('w2', 2));
  await eventually('an endpoint per shard hosting a binding', async () =>
    JSON.stringify(await world.endpointsOf('widgets')) === JSON.stringify(world.expectedEndpoints([c1, c2])) ? true : undefined,
  );
  seenBefore = await seenThroughVirtualWorkspace();
  endpointsBefore = await world.endpointsOf('widgets');
}

beforeAll(async () => {
  await Promise.all([rolledForwardBinding(), waitingForDefaultBinding(), servedThroughVirtualWorkspace()]);
  await e2e.server.restart();
}, 240_000);

describe('rolling the export forward and deleting bindings', () => {
  it('serves bound resources again after a restart', async () => {
    expect(await bindings.widgetRows(bound)).toEqual(['one 5']);
    expect(condition(await getJson(bound, ['apibinding', 'widgets']), 'Ready')).toBe('True');
    expect((await bound(['explain', 'widgets.spec.size'])).stdout).toContain('Size in units.');
  });
});

describe('after a restart', () => {
  it('a workspace still waiting for its default bindings finishes once the export appears', async () => {
    await defaults.exportAPI(laterExport, `${laterExport}.example.com`, 'sprockets', 'Sprocket');
    await waitForPhase(defaults.k, waiting);
    expect((await e2e.at(defaults.pathOf(waiting))(['get', 'sprockets', '-A'])).stderr).toMatch(/No resources found/);
  }, 120_000);

  it('serves the same consumers and keeps the published endpoint', async () => {
    expect(seenBefore).toEqual([`${c1.cluster}/w1`, `${c2.cluster}/w2`].sort());
    expect(endpointsBefore).toEqual(world.expectedEndpoints([c1, c2]));
    expect(await seenThroughVirtualWorkspace()).toEqual(seenBefore);
    expect(await world.endpointsOf('widgets')).toEqual(endpointsBefore);
    await create(world.at(c2), vw.widget('after-restart', 9));
    expect((await getJson(c2.k, ['widget', 'after-restart', '-n', 'default'])).spec.size).toBe(9);
  }, 90_000);
});
