/**
 * Default API bindings across a restart of the server (default-api-bindings.test.ts has the rest on the shared
 * server): a workspace still Initializing for a missing export finishes once the export appears after the restart.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { uniqueName } from '../helpers/kubectl.js';
import { defaultBindingsWorld } from './default-api-bindings-fixtures.js';
import { useTenancyServer, waitForPhase } from './tenancy-fixtures.js';

// A server of its own: it restarts it.
const e2e = useTenancyServer({ private: true });
const { k, providerPath, exportAPI, pathOf, defineType, workspaceOf, setUp } = defaultBindingsWorld(e2e);

beforeAll(setUp, 90_000);

describe('after a restart', () => {
  it('a workspace still waiting for its default bindings finishes once the export appears', async () => {
    const exportName = uniqueName('later');
    const type = await defineType('with-later', { defaultAPIBindings: [{ path: providerPath, export: exportName }] });
    const [name] = await workspaceOf(type, 'Initializing');
    await e2e.server.restart();
    await exportAPI(exportName, `${exportName}.example.com`, 'sprockets', 'Sprocket');
    await waitForPhase(k, name);
    expect((await e2e.at(pathOf(name))(['get', 'sprockets', '-A'])).stderr).toMatch(/No resources found/);
  }, 120_000);
});
