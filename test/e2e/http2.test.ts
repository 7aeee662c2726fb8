/**
 * kcpt serves HTTP/2 to clients that offer it (ALPN `h2`: kubectl, client-go) and HTTP/1.1 to the rest
 * (client-node, curl --http1.1). Over HTTP/2 one connection carries every request and watch of a client.
 */
import { connect, constants, type ClientHttp2Session } from 'node:http2';
import { request as httpsRequest } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, readKubeconfig } from '../helpers/http.js';
import { kubectl, kubectlBackground, sleep, uniqueName } from '../helpers/kubectl.js';
import { startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let ca: Buffer;
let token: string;

beforeAll(async () => {
  server = await startServer();
  const kc = readKubeconfig(server);
  ca = Buffer.from(kc.clusters[0]!.cluster['certificate-authority-data']!, 'base64');
  token = adminToken(server.kubeconfig);
});
afterAll(async () => server?.stop());

interface H2Answer {
  status: number;
  headers: Record<string, unknown>;
  body: string;
}

function h2Request(session: ClientHttp2Session, method: string, path: string, body?: string): Promise<H2Answer> {
  return new Promise((resolve, reject) => {
    const stream = session.request({
      ':method': method,
      ':path': path,
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    });
    let headers: Record<string, unknown> = {};
    let text = '';
    stream.setEncoding('utf8');
    stream.on('response', (h) => (headers = h));
    stream.on('data', (chunk: string) => (text += chunk));
    stream.on('end', () => resolve({ status: Number(headers[':status']), headers, body: text }));
    stream.on('error', reject);
    stream.end(body);
  });
}

function h2Session(): Promise<ClientHttp2Session> {
  return new Promise((resolve, reject) => {
    const session = connect(server.url, { ca });
    session.once('connect', () => resolve(session));
    session.once('error', reject);
  });
}

describe('HTTP/2', () => {
  it('negotiates h2 with a client that offers it and answers requests as streams of one connection', async () => {
    const session = await h2Session();
    try {
      expect(session.alpnProtocol).toBe('h2');
      const name = uniqueName('h2');
      const created = await h2Request(
        session,
        'POST',
        '/clusters/root/api/v1/namespaces/default/configmaps',
        JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: '1' } }),
      );
      expect(created.status).toBe(201);
      // No connection-specific headers on an HTTP/2 answer (RFC 9113 §8.2.2).
      expect(created.headers['transfer-encoding']).toBeUndefined();
      expect(created.headers['connection']).toBeUndefined();
      const got = await h2Request(session, 'GET', `/clusters/root/api/v1/namespaces/default/configmaps/${name}`);
      expect(got.status).toBe(200);
      expect(JSON.parse(got.body).data).toEqual({ a: '1' });
      const missing = await h2Request(session, 'GET', '/clusters/root/api/v1/namespaces/default/configmaps/not-there');
      expect(missing.status).toBe(404);
      expect(JSON.parse(missing.body)).toMatchObject({ kind: 'Status', reason: 'NotFound', code: 404 });
    } finally {
      session.close();
    }
  });

  it('streams a watch on one stream while other requests share the connection, and cancels it cleanly', async () => {
    const session = await h2Session();
    try {
      const list = await h2Request(session, 'GET', '/clusters/root/api/v1/namespaces/default/configmaps');
      const rv = JSON.parse(list.body).metadata.resourceVersion as string;
      const watch = session.request({
        ':method': 'GET',
        ':path': `/clusters/root/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${rv}`,
        authorization: `Bearer ${token}`,
      });
      watch.setEncoding('utf8');
      let lines = '';
      let status = 0;
      watch.on('response', (h) => (status = Number(h[':status'])));
      watch.on('data', (chunk: string) => (lines += chunk));
      const names = [uniqueName('w'), uniqueName('w'), uniqueName('w')];
      for (const name of names) {
        const res = await h2Request(
          session,
          'POST',
          '/clusters/root/api/v1/namespaces/default/configmaps',
          JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } }),
        );
        expect(res.status).toBe(201);
      }
      for (let i = 0; i < 100 && lines.split('\n').filter(Boolean).length < names.length; i++) await sleep(50);
      expect(status).toBe(200);
      const events = lines.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { type: string; object: { metadata: { name: string } } });
      expect(events.map((e) => [e.type, e.object.metadata.name])).toEqual(names.map((n) => ['ADDED', n]));
      watch.close(constants.NGHTTP2_CANCEL);
      // The connection outlives the cancelled watch.
      const after = await h2Request(session, 'GET', '/clusters/root/api/v1/namespaces/default/configmaps?limit=1');
      expect(after.status).toBe(200);
    } finally {
      session.close();
    }
  });

  // Node's https client offers no ALPN protocol, as client-node: the server falls back to HTTP/1.1.
  it('still serves HTTP/1.1 clients, chunking a watch as HTTP/1.1 does', async () => {
    const answer = await new Promise<{ version: string; status: number; encoding: unknown; first: string }>((resolve, reject) => {
      const req = httpsRequest(
        `${server.url}/clusters/root/api/v1/namespaces/default/configmaps?watch=true`,
        { ca, headers: { authorization: `Bearer ${token}` } },
        (res) => {
          res.setEncoding('utf8');
          res.once('data', (chunk: string) => {
            resolve({ version: res.httpVersion, status: res.statusCode ?? 0, encoding: res.headers['transfer-encoding'], first: chunk });
            req.destroy();
          });
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(answer).toMatchObject({ version: '1.1', status: 200, encoding: 'chunked' });
    expect(JSON.parse(answer.first.split('\n')[0]!).type).toBe('ADDED');
  });

  it('kubectl talks HTTP/2 to it: a watch and writes from the same kubeconfig', async () => {
    // Go's HTTP/2 transport says when it opens a connection (GODEBUG=http2debug=1).
    const get = await kubectl(server, ['get', 'namespaces', '-o', 'name'], { env: { GODEBUG: 'http2debug=1' } });
    expect(get.stdout).toContain('namespace/default');
    expect(get.stderr).toMatch(/http2: Transport creating client conn/);

    const name = uniqueName('kw');
    const watch = kubectlBackground(server, ['get', 'configmaps', '-n', 'default', '--watch', '-o', 'name']);
    try {
      await sleep(500);
      await kubectl(server, ['create', 'configmap', name, '-n', 'default', '--from-literal=k=v']);
      await watch.waitForLine(new RegExp(`configmap/${name}`));
    } finally {
      await watch.stop();
    }
  });
});
