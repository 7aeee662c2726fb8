/**
 * A foreground deletion that outlives a server restart: the owner keeps its foregroundDeletion finalizer across the
 * restart, and the collector finishes once the blocking dependent is released. A server of its own: it restarts it.
 */
import { describe, expect, it } from 'vitest';
import { uniqueName } from '../helpers/kubectl.js';
import { expectNotFound, useE2EServer } from '../helpers/suite.js';
import { ownedObjects } from './gc-fixtures.js';

const e2e = useE2EServer({ private: true });

describe('a server restart during a foreground deletion', () => {
  const ns = uniqueName('gcr');
  const t = () => ownedObjects(e2e, 'root', ns);

  it('still completes it once the blocking dependent is released', async () => {
    await t().k(['create', 'namespace', ns]);
    await t().cm('owner');
    const blocking = await t().refTo('ConfigMap', 'owner', { blockOwnerDeletion: true });
    await t().cm('held', { ownerReferences: [blocking], finalizers: ['example.com/hold'] });
    await t().cm('plain', { ownerReferences: [blocking] });
    await t().k(['delete', 'cm', 'owner', '-n', ns, '--cascade=foreground', '--wait=false']);
    await t().waitGone('cm/plain');

    await e2e.server.restart();

    const owner = await t().getJson('cm', 'owner');
    expect(owner.metadata.finalizers).toEqual(['foregroundDeletion']);
    await t().release('cm', 'held');
    await t().waitGone('cm/held', 'cm/owner');
    await expectNotFound(t().k, 'cm', 'owner', ns);
  }, 120_000);
});
