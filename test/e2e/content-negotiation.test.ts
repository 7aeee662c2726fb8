/**
 * Content negotiation as kube-apiserver does it, over the wire: built-in kinds in protobuf when the client prefers it
 * (objects, lists, error Statuses, watch streams), custom resources in JSON even then (406 only when JSON is not
 * acceptable), and LIST items of built-in kinds without apiVersion/kind as kube's typed lists write them.
 * One server for the file; each test in a fresh logical cluster.
 */
import protobufjs from 'protobufjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubeProtobuf } from '../../src/engine/builtin/protobuf.js';
import { crdManifest } from '../helpers/custom-resources.js';
import { apiRequest } from '../helpers/http.js';
import { cleanupTempFiles, inCluster, tempFile, uniqueClusterName } from '../helpers/kubectl.js';
import { createLogicalCluster } from '../helpers/api-setup.js';
import type { TestServer } from '../helpers/server.js';
import { e2eServer } from '../helpers/shared-server.js';

const PB = 'application/vnd.kubernetes.protobuf';

let server: TestServer;
beforeAll(async () => {
  server = await e2eServer();
}, 90_000);
afterAll(async () => {
  await server?.stop();
  await cleanupTempFiles();
}, 30_000);

async function freshCluster(): Promise<string> {
  const name = uniqueClusterName();
  await createLogicalCluster(server, name);
  await inCluster(server, name)(['create', 'configmap', 'settings', '--from-literal=greeting=hello']);
  return name;
}

async function createWidgets(cluster: string): Promise<void> {
  const crd = crdManifest('example.com', 'widgets', 'Widget', [{ name: 'v1', storage: true }]);
  const k = inCluster(server, cluster);
  await k(['apply', '-f', await tempFile('crd.json', JSON.stringify(crd))]);
  await k(['wait', '--for=condition=Established', 'crd/widgets.example.com', '--timeout=30s']);
  const widget = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1', namespace: 'default' }, spec: { size: 1 } };
  await k(['apply', '-f', await tempFile('widget.json', JSON.stringify(widget))]);
}

/**
 * The runtime.Unknown envelope of a protobuf answer (`k8s\0`, typeMeta, raw). Kinds only ever answered (lists,
 * Status) have no decoder here: their bytes are checked against Go's in the encoder's golden tests, and client-go
 * decodes them in the Go peers; here it is enough that the envelope names the kind and carries the content.
 */
function envelope(body: Buffer): { apiVersion: string; kind: string; raw: string } {
  expect(body.subarray(0, 4).toString('latin1')).toBe('k8s\0');
  const reader = protobufjs.Reader.create(body.subarray(4));
  const out = { apiVersion: '', kind: '', raw: '' };
  while (reader.pos < reader.len) {
    const tag = reader.uint32();
    if (tag >>> 3 === 1) {
      const meta = protobufjs.Reader.create(reader.bytes());
      while (meta.pos < meta.len) {
        const t = meta.uint32();
        if (t >>> 3 === 1) out.apiVersion = meta.string();
        else if (t >>> 3 === 2) out.kind = meta.string();
        else meta.skipType(t & 7);
      }
    } else if (tag >>> 3 === 2) out.raw = Buffer.from(reader.bytes()).toString('latin1');
    else reader.skipType(tag & 7);
  }
  return out;
}

/** The events of a protobuf watch stream: 4-byte length, WatchEvent{type, object: RawExtension{raw}}. */
function watchFrames(body: Buffer): { type: string; object: Record<string, unknown> }[] {
  const events: { type: string; object: Record<string, unknown> }[] = [];
  for (let at = 0; at < body.length; ) {
    const length = body.readUInt32BE(at);
    const reader = protobufjs.Reader.create(body.subarray(at + 4, at + 4 + length));
    at += 4 + length;
    let type = '';
    let raw: Uint8Array | undefined;
    while (reader.pos < reader.len) {
      const tag = reader.uint32();
      if (tag >>> 3 === 1) type = reader.string();
      else if (tag >>> 3 === 2) {
        const inner = protobufjs.Reader.create(reader.bytes());
        while (inner.pos < inner.len) {
          const t = inner.uint32();
          if (t >>> 3 === 1) raw = inner.bytes();
          else inner.skipType(t & 7);
        }
      } else reader.skipType(tag & 7);
    }
    events.push({ type, object: kubeProtobuf.decode(raw!).object });
  }
  return events;
}

describe('protobuf for built-in kinds', () => {
  it('answers an object, a list and an error Status in protobuf when the client prefers it', async () => {
    const cluster = await freshCluster();
    const base = `/clusters/${cluster}/api/v1/namespaces/default/configmaps`;
    const headers = { accept: `${PB}, application/json` };

    const got = await apiRequest(server, `${base}/settings`, { headers });
    expect(got.status).toBe(200);
    expect(got.headers['content-type']).toBe(PB);
    const cm = kubeProtobuf.decode(got.raw).object as { kind: string; metadata: { name: string }; data: Record<string, string> };
    expect(cm).toMatchObject({ kind: 'ConfigMap', metadata: { name: 'settings' }, data: { greeting: 'hello' } });

    const list = await apiRequest(server, base, { headers });
    expect(list.headers['content-type']).toBe(PB);
    const decoded = envelope(list.raw);
    expect([decoded.apiVersion, decoded.kind]).toEqual(['v1', 'ConfigMapList']);
    expect(decoded.raw).toContain('settings');
    expect(decoded.raw).toContain('greeting');

    const missing = await apiRequest(server, `${base}/nothing`, { headers });
    expect(missing.status).toBe(404);
    expect(missing.headers['content-type']).toBe(PB);
    const status = envelope(missing.raw);
    expect([status.apiVersion, status.kind]).toEqual(['v1', 'Status']);
    for (const part of ['Failure', 'NotFound', 'configmaps "nothing" not found']) expect(status.raw).toContain(part);
  });

  it('streams a watch as length-prefixed protobuf events with ;stream=watch', async () => {
    const cluster = await freshCluster();
    const path = `/clusters/${cluster}/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=0&timeoutSeconds=1`;
    const answer = await apiRequest(server, path, { headers: { accept: `${PB};stream=watch, application/json` } });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe(`${PB};stream=watch`);
    const events = watchFrames(answer.raw);
    expect(events.map((e) => [e.type, e.object.kind, (e.object.metadata as { name: string }).name])).toEqual([['ADDED', 'ConfigMap', 'settings']]);
  });

  it('refuses a YAML watch (no stream form) with 406', async () => {
    const cluster = await freshCluster();
    const path = `/clusters/${cluster}/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=1`;
    const answer = await apiRequest(server, path, { headers: { accept: 'application/yaml' } });
    expect(answer.status).toBe(406);
  });
});

describe('custom resources', () => {
  it('are answered in JSON when protobuf is preferred, and 406 (a protobuf Status) when only protobuf is acceptable', async () => {
    const cluster = await freshCluster();
    await createWidgets(cluster);
    const path = `/clusters/${cluster}/apis/example.com/v1/namespaces/default/widgets/w1`;

    const preferred = await apiRequest(server, path, { headers: { accept: `${PB}, application/json` } });
    expect(preferred.status).toBe(200);
    expect(preferred.headers['content-type']).toBe('application/json');
    expect(preferred.json()).toMatchObject({ kind: 'Widget', metadata: { name: 'w1' } });

    const only = await apiRequest(server, path, { headers: { accept: PB } });
    expect(only.status).toBe(406);
    expect(only.headers['content-type']).toBe(PB);
    const status = envelope(only.raw);
    expect(status.kind).toBe('Status');
    expect(status.raw).toContain('NotAcceptable');

    // PartialObjectMetadata is a built-in kind: served in protobuf for custom resources too.
    const meta = await apiRequest(server, path, { headers: { accept: `${PB};as=PartialObjectMetadata;g=meta.k8s.io;v=v1` } });
    expect(meta.headers['content-type']).toBe(PB);
    const partial = envelope(meta.raw);
    expect([partial.apiVersion, partial.kind]).toEqual(['meta.k8s.io/v1', 'PartialObjectMetadata']);
    expect(partial.raw).toContain('w1');
  });
});

describe('LIST items', () => {
  it('leave out apiVersion and kind for built-in kinds and keep them for custom resources', async () => {
    const cluster = await freshCluster();
    await createWidgets(cluster);
    const k = inCluster(server, cluster);
    const configmaps = JSON.parse((await k(['get', '--raw', `/clusters/${cluster}/api/v1/namespaces/default/configmaps`])).stdout);
    expect(configmaps.kind).toBe('ConfigMapList');
    expect(configmaps.items).toHaveLength(1);
    expect(configmaps.items[0].kind).toBeUndefined();
    expect(configmaps.items[0].apiVersion).toBeUndefined();
    expect(configmaps.items[0].metadata.name).toBe('settings');

    const widgets = JSON.parse((await k(['get', '--raw', `/clusters/${cluster}/apis/example.com/v1/namespaces/default/widgets`])).stdout);
    expect(widgets.items.map((i: { kind: string; apiVersion: string }) => `${i.apiVersion} ${i.kind}`)).toEqual(['example.com/v1 Widget']);
  });
});
