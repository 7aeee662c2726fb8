/**
 * Watches of a custom resource served in two versions at once: each watcher gets every event in the version it
 * asked for (apiVersion, the served schema's defaults), however the watchers of the two versions interleave. One
 * server for the file; each test in a fresh logical cluster.
 */
import { describe, expect, it } from 'vitest';
import { waitFor } from '../../src/testing/wait-for.js';
import { createLogicalCluster } from '../helpers/api-setup.js';
import { crdManifest } from '../helpers/custom-resources.js';
import { apiRequest, openWatch, type WatchStream } from '../helpers/http.js';
import { uniqueClusterName } from '../helpers/kubectl.js';
import { useE2EServer } from '../helpers/suite.js';

const e2e = useE2EServer();

async function freshClusterWithGadgets(): Promise<string> {
  const cluster = uniqueClusterName();
  await createLogicalCluster(e2e.server, cluster);
  // v1 is stored; v2 is served with a default v1 does not have, so what a v2 watcher sees differs from what is stored.
  const crd = crdManifest('example.com', 'gadgets', 'Gadget', [
    { name: 'v1', storage: true, specProperties: { size: { type: 'integer' } } },
    { name: 'v2', storage: false, specProperties: { size: { type: 'integer' }, color: { type: 'string', default: 'blue' } } },
  ]);
  const posted = await apiRequest(e2e.server, `/clusters/${cluster}/apis/apiextensions.k8s.io/v1/customresourcedefinitions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(crd),
  });
  expect(posted.status).toBe(201);
  await waitFor(async () => (await apiRequest(e2e.server, gadgets(cluster, 'v2'))).status === 200, {
    timeout: 30_000,
    message: 'gadgets served in v1 and v2',
  });
  return cluster;
}

const gadgets = (cluster: string, version: string) => `/clusters/${cluster}/apis/example.com/${version}/namespaces/default/gadgets`;

describe('watching a custom resource in two served versions', () => {
  it('every watcher gets every event converted to its own version, whichever version the write used', async () => {
    const cluster = await freshClusterWithGadgets();
    const rv = (await apiRequest(e2e.server, gadgets(cluster, 'v1'))).json().metadata.resourceVersion as string;
    // Opened alternately, so the store hands each event to v1 and v2 watchers in turn.
    const watches: { version: string; stream: WatchStream }[] = [];
    for (let i = 0; i < 6; i++) {
      const version = i % 2 === 0 ? 'v1' : 'v2';
      watches.push({ version, stream: await openWatch(e2e.server, `${gadgets(cluster, version)}?watch=true&resourceVersion=${rv}`) });
    }
    try {
      for (const [version, name] of [
        ['v1', 'a'],
        ['v2', 'b'],
      ] as const) {
        const created = await apiRequest(e2e.server, gadgets(cluster, version), {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ apiVersion: `example.com/${version}`, kind: 'Gadget', metadata: { name }, spec: { size: 1 } }),
        });
        expect(created.status).toBe(201);
      }
      const patched = await apiRequest(e2e.server, `${gadgets(cluster, 'v1')}/a`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/merge-patch+json' },
        body: JSON.stringify({ spec: { size: 2 } }),
      });
      expect(patched.status).toBe(200);

      for (const { version, stream } of watches) {
        expect(stream.status).toBe(200);
        await waitFor(() => stream.events.length >= 3, { timeout: 10_000, message: `three events on a ${version} watch` });
        const seen = stream.events.map((e) => ({
          type: e.type,
          apiVersion: e.object.apiVersion,
          name: e.object.metadata.name,
          spec: e.object.spec,
        }));
        // Stored as v1, whose schema has no color (b's, defaulted through v2, is pruned): only v2 readers default it.
        const color = (_name: string) => (version === 'v2' ? { color: 'blue' } : {});
        expect(seen).toEqual([
          { type: 'ADDED', apiVersion: `example.com/${version}`, name: 'a', spec: { size: 1, ...color('a') } },
          { type: 'ADDED', apiVersion: `example.com/${version}`, name: 'b', spec: { size: 1, ...color('b') } },
          { type: 'MODIFIED', apiVersion: `example.com/${version}`, name: 'a', spec: { size: 2, ...color('a') } },
        ]);
      }
      // Every watcher of one version got the same bytes for one event.
      const [firstV1, firstV2] = [watches[0]!, watches[1]!];
      for (const { version, stream } of watches) {
        expect(stream.events).toEqual((version === 'v1' ? firstV1 : firstV2).stream.events);
      }
    } finally {
      for (const { stream } of watches) stream.close();
    }
  });
});
