/**
 * Bound resources across a restart of the server (api-bindings.test.ts has the rest on the shared server): a binding
 * rolled forward to a new schema serves its objects and that schema after the restart.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { apply, binding, exportOf, schema, waitBound, widget, widgetRows } from './api-bindings-fixtures.js';
import { condition, eventually, getJson, ownOrganization, useTenancyServer, workspaceByApi } from './tenancy-fixtures.js';

// A server of its own: it restarts it.
const e2e = useTenancyServer({ private: true });
const at = (path: string) => e2e.at(path);
const org = ownOrganization(e2e, 'api-bindings');
const p = org.child;

beforeAll(async () => {
  await org.create();
  for (const ws of ['provider', 'c1']) await workspaceByApi(e2e, org.path, ws);
  const provider = at(p('provider'));
  await apply(provider, schema('v1.widgets.example.com', 'How big the widget is.'));
  await apply(provider, exportOf('v1.widgets.example.com'));
  await apply(at(p('c1')), binding(p('provider')));
  await waitBound(at(p('c1')));
  await apply(at(p('c1')), widget('one', 5));
  // Rolled forward to v2 before the restart, as in api-bindings.test.ts.
  await apply(provider, schema('v2.widgets.example.com', 'Size in units.'));
  await apply(provider, exportOf('v2.widgets.example.com'));
  await eventually('c1 on v2', async () => {
    const b = await getJson(at(p('c1')), ['apibinding', 'widgets']);
    return b.status.boundResources?.[0]?.schema.name === 'v2.widgets.example.com' ? b : undefined;
  });
}, 120_000);

describe('rolling the export forward and deleting bindings', () => {
  it('serves bound resources again after a restart', async () => {
    await e2e.server.restart();
    expect(await widgetRows(at(p('c1')))).toEqual(['one 5']);
    expect(condition(await getJson(at(p('c1')), ['apibinding', 'widgets']), 'Ready')).toBe('True');
    expect((await at(p('c1'))(['explain', 'widgets.spec.size'])).stdout).toContain('Size in units.');
  });
});
