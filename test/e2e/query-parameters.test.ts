/**
 * Query parameters mean what they mean to kube-apiserver, whichever client spells them: booleans false only as
 * `0`/`false` (any case), integers Go's int64 with Go's error text, out-of-range values neither a 500 nor a watch
 * that ends at once. Each test works in a logical cluster of its own.
 */
import { beforeAll, afterAll, describe, expect, it } from 'vitest';
import { apiRequest, openWatch, type WatchStream } from '../helpers/http.js';
import { cleanupTempFiles, uniqueClusterName } from '../helpers/kubectl.js';
import { createLogicalCluster } from '../helpers/api-setup.js';
import type { TestServer } from '../helpers/server.js';
import { e2eServer } from '../helpers/shared-server.js';
import { eventually } from '../helpers/eventually.js';

let server: TestServer;
beforeAll(async () => {
  server = await e2eServer();
}, 90_000);
afterAll(async () => {
  await server?.stop();
  await cleanupTempFiles();
}, 30_000);

const json = { 'content-type': 'application/json' };

async function freshCluster(): Promise<string> {
  const name = uniqueClusterName();
  await createLogicalCluster(server, name);
  return name;
}

async function createConfigMap(cluster: string, name: string, data: Record<string, string> = {}) {
  const res = await apiRequest(server, `/clusters/${cluster}/api/v1/namespaces/default/configmaps`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data }),
  });
  expect(res.status).toBe(201);
  return res.json();
}

async function expectStatus(path: string, code: number, reason: string, message: string, init: Parameters<typeof apiRequest>[2] = {}) {
  const res = await apiRequest(server, path, init);
  expect({ status: res.status, body: res.json() }).toMatchObject({ status: code, body: { kind: 'Status', code, reason, message } });
}

describe('booleans', () => {
  it.each(['True', 'TRUE', 't', 'yes', ''])('watch=%j starts a watch, as the Python client sends it', async (spelling) => {
    const cluster = await freshCluster();
    await createConfigMap(cluster, 'before');
    const watch = await openWatch(server, `/clusters/${cluster}/api/v1/namespaces/default/configmaps?watch=${spelling}`);
    try {
      expect(watch.status).toBe(200);
      await eventually('the ADDED event of the existing object', () => watch.events.some((e) => e.type === 'ADDED'), 20_000, 50);
      await createConfigMap(cluster, 'after');
      await eventually('the ADDED event of the new object', () => watch.events.some((e) => e.object?.metadata?.name === 'after'), 20_000, 50);
      expect(watch.hasEnded()).toBe(false);
    } finally {
      watch.close();
    }
  });

  it('watch=False and watch=0 are a plain LIST', async () => {
    const cluster = await freshCluster();
    for (const spelling of ['False', 'FALSE', '0']) {
      const res = await apiRequest(server, `/clusters/${cluster}/api/v1/namespaces/default/configmaps?watch=${spelling}`);
      expect(res.status).toBe(200);
      expect(res.json().kind).toBe('ConfigMapList');
    }
  });
});

describe('integers', () => {
  it("a limit that is not an int64 is a 400 with Go's message", async () => {
    const cluster = await freshCluster();
    const list = `/clusters/${cluster}/api/v1/namespaces/default/configmaps`;
    await expectStatus(`${list}?limit=abc`, 400, 'BadRequest', 'strconv.ParseInt: parsing "abc": invalid syntax');
    await expectStatus(`${list}?limit=9223372036854775808`, 400, 'BadRequest', 'strconv.ParseInt: parsing "9223372036854775808": value out of range');
    await expectStatus(`${list}?watch=true&timeoutSeconds=1.5`, 400, 'BadRequest', 'strconv.ParseInt: parsing "1.5": invalid syntax');
  });

  it('the largest int64 limit lists everything, in a workspace and across all of them', async () => {
    const cluster = await freshCluster();
    await createConfigMap(cluster, 'one');
    await createConfigMap(cluster, 'two');
    const max = '9223372036854775807';
    const inCluster = await apiRequest(server, `/clusters/${cluster}/api/v1/namespaces/default/configmaps?limit=${max}`);
    expect(inCluster.status).toBe(200);
    expect(inCluster.json().items.map((i: any) => i.metadata.name)).toEqual(['one', 'two']);
    expect(inCluster.json().metadata.continue).toBeUndefined();
    const everywhere = await apiRequest(server, `/clusters/*/api/v1/configmaps?limit=${max}`, { user: 'shard-admin' });
    expect(everywhere.status).toBe(200);
    // Other files' clusters share this server: this cluster's 'two', exactly once among all of them.
    expect(everywhere.json().items.filter((i: any) => i.metadata.name === 'two' && i.metadata.annotations?.['kcp.io/cluster'] === cluster)).toHaveLength(1);
    // Zero and negative limits are no limit, as in kube.
    const negative = await apiRequest(server, `/clusters/${cluster}/api/v1/namespaces/default/configmaps?limit=-1`);
    expect(negative.json().items).toHaveLength(2);
  });

  it('a watch with timeoutSeconds beyond a Node timer (2147484 s and the largest int64) stays open', async () => {
    const cluster = await freshCluster();
    const streams: WatchStream[] = [];
    try {
      for (const t of ['2147484', '9223372036']) {
        streams.push(await openWatch(server, `/clusters/${cluster}/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=${t}`));
      }
      await createConfigMap(cluster, 'seen');
      for (const s of streams) {
        expect(s.status).toBe(200);
        await eventually('the event', () => s.events.some((e) => e.object?.metadata?.name === 'seen'), 20_000, 50);
        expect(s.hasEnded()).toBe(false);
      }
    } finally {
      for (const s of streams) s.close();
    }
  });
});

describe('write options', () => {
  it("an unknown fieldValidation or dryRun is kube's 422 naming the options kind", async () => {
    const cluster = await freshCluster();
    const list = `/clusters/${cluster}/api/v1/namespaces/default/configmaps`;
    const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } });
    await expectStatus(`${list}?fieldValidation=Shout`, 422, 'Invalid', 'CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Shout": supported values: "", "Ignore", "Strict", "Warn"', { method: 'POST', headers: json, body });
    await createConfigMap(cluster, 'x');
    await expectStatus(`${list}/x?dryRun=Some`, 422, 'Invalid', 'UpdateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: "Some": supported values: "All"', {
      method: 'PUT',
      headers: json,
      body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, data: { a: 'b' } }),
    });
  });

  // Audit of 2026-11-29: every write path with dryRun=All is answered as if done and leaves no trace a watcher could see.
  it('dryRun=All on POST, PUT, apply, DELETE and delete-collection stores nothing and sends no watch event', async () => {
    const cluster = await freshCluster();
    const list = `/clusters/${cluster}/api/v1/namespaces/default/configmaps`;
    const kept = await createConfigMap(cluster, 'kept', { a: 'b' });
    const watch = await openWatch(server, `${list}?watch=1&resourceVersion=${kept.metadata.resourceVersion}`);
    try {
      const dry = async (path: string, init: Parameters<typeof apiRequest>[2], status: number) => {
        const res = await apiRequest(server, `${path}${path.includes('?') ? '&' : '?'}dryRun=All`, init);
        expect(res.status).toBe(status);
      };
      await dry(list, { method: 'POST', headers: json, body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dry' } }) }, 201);
      await dry(`${list}/kept`, { method: 'PUT', headers: json, body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kept' }, data: { a: 'changed' } }) }, 200);
      const apply = { 'content-type': 'application/apply-patch+yaml' };
      await dry(`${list}/applied?fieldManager=t`, { method: 'PATCH', headers: apply, body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied' } }) }, 201);
      await dry(`${list}/kept`, { method: 'DELETE' }, 200);
      await dry(list, { method: 'DELETE' }, 200);
      await dry(`/clusters/${cluster}/api/v1/namespaces`, { method: 'POST', headers: json, body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'dry' } }) }, 201);
      await createConfigMap(cluster, 'real');
      await eventually('the real create', () => watch.events.length > 0, 20_000, 50);
      expect(watch.events.map((e) => `${e.type} ${e.object?.metadata?.name}`)).toEqual(['ADDED real']);
    } finally {
      watch.close();
    }
    const kept2 = await apiRequest(server, `${list}/kept`);
    expect(kept2.json().data).toEqual({ a: 'b' });
    for (const path of [`${list}/dry`, `${list}/applied`, `/clusters/${cluster}/api/v1/namespaces/dry`]) expect((await apiRequest(server, path)).status).toBe(404);
  });

  it('DELETE reads its options from the query when there is no body (orphanDependents=True, gracePeriodSeconds=-1)', async () => {
    const cluster = await freshCluster();
    const list = `/clusters/${cluster}/api/v1/namespaces/default/configmaps`;
    await createConfigMap(cluster, 'gone');
    await expectStatus(`${list}/gone?gracePeriodSeconds=soon`, 400, 'BadRequest', 'strconv.ParseInt: parsing "soon": invalid syntax', { method: 'DELETE' });
    await expectStatus(`${list}/gone?orphanDependents=True&propagationPolicy=Background`, 422, 'Invalid', 'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Invalid value: "Background": orphanDependents and deletionPropagation cannot be both set', { method: 'DELETE' });
    const deleted = await apiRequest(server, `${list}/gone?orphanDependents=True&gracePeriodSeconds=-1`, { method: 'DELETE' });
    expect(deleted.status).toBe(200);
    expect((await apiRequest(server, `${list}/gone`)).status).toBe(404);
  });
});
