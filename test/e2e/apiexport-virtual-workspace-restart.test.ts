/**
 * The APIExport virtual workspace across a restart of the server (apiexport-virtual-workspace.test.ts has the rest on
 * the shared server): it serves the same consumers' objects, the endpoint slice keeps its URLs, and the provider
 * writes into a consumer through it again.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { accept, exportWorld, reject, widget, type Consumer } from './apiexport-virtual-workspace-fixtures.js';
import { create, eventually, getJson, ownOrganization, useTenancyServer } from './tenancy-fixtures.js';

// A server of its own: it restarts it.
const e2e = useTenancyServer({ private: true });
const org = ownOrganization(e2e, 'apiexport-vw');
const world = exportWorld(e2e, org);
const { consumer, bind, endpointsOf, at, everywhere, expectedEndpoints } = world;

let c1: Consumer;
let c2: Consumer;

beforeAll(async () => {
  await world.setUp();
  [c1, c2] = await Promise.all([consumer('c1'), consumer('c2')]);
  // As in apiexport-virtual-workspace.test.ts: c1 accepts the export's configmaps claim, c2 rejects it.
  await bind(c1, 'widgets', [accept()]);
  await bind(c2, 'widgets', [reject()]);
  await create(c1.k, widget('w1', 1));
  await create(c2.k, widget('w2', 2));
  await eventually('an endpoint per shard hosting a binding', async () =>
    JSON.stringify(await endpointsOf('widgets')) === JSON.stringify(expectedEndpoints([c1, c2])) ? true : undefined,
  );
}, 120_000);

describe('after a restart', () => {
  it('serves the same consumers and keeps the published endpoint', async () => {
    const seen = async () => (await everywhere(['widgets', '-A'])).map((i) => `${i.metadata.annotations['kcp.io/cluster']}/${i.metadata.name}`).sort();
    const before = await seen();
    expect(before).toEqual([`${c1.cluster}/w1`, `${c2.cluster}/w2`].sort());
    const endpoints = await endpointsOf('widgets');
    expect(endpoints).toEqual(expectedEndpoints([c1, c2]));
    await e2e.server.restart();
    expect(await seen()).toEqual(before);
    expect(await endpointsOf('widgets')).toEqual(endpoints);
    await create(at(c2), widget('after-restart', 9));
    expect((await getJson(c2.k, ['widget', 'after-restart', '-n', 'default'])).spec.size).toBe(9);
  }, 90_000);
});
