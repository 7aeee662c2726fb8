import http2 from 'node:http2';
import https from 'node:https';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo, Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureServingCertificates } from '../auth/certificates.js';
import { HEADER_TIMEOUT_MS } from '../endpoints/connection-deadlines.js';
import { httpsOptions } from './http-app.js';

/**
 * Whether node turned Nagle's algorithm off on the TCP socket under an accepted TLS connection: node records it on
 * the socket (net.js's kSetNoDelay) when the server's noDelay option makes it call setNoDelay. undefined when the
 * record is not where this node keeps it, so that a node which moved it fails this test loudly instead of passing.
 */
function nagleOff(tlsSocket: TLSSocket): boolean | undefined {
  const tcp = (tlsSocket as unknown as { _parent?: Socket })._parent;
  if (!tcp) return undefined;
  const record = Object.getOwnPropertySymbols(tcp).find((symbol) => symbol.description === 'kSetNoDelay');
  return record ? (tcp as unknown as Record<symbol, boolean>)[record] : undefined;
}

describe("the TLS listener's connections", () => {
  let dir: string;
  let app: FastifyInstance;
  let port: number;
  const accepted: TLSSocket[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'kcpt-http-app-'));
    const certs = await ensureServingCertificates(dir, { hosts: [] });
    app = Fastify({ http2: true, https: httpsOptions({ key: certs.keyPem, cert: certs.certPem }) }) as unknown as FastifyInstance;
    app.get('/', async () => 'ok');
    await app.listen({ port: 0, host: '127.0.0.1' });
    app.server.on('secureConnection', (socket: TLSSocket) => accepted.push(socket));
    port = (app.server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await app.close();
    await rm(dir, { recursive: true, force: true });
  });

  // With Nagle on, an event written to a watch stream while the previous one is unacknowledged waits for the client's
  // delayed ACK (up to ~40 ms on Linux): node's HTTP/2 server leaves it on unless told.
  it('send small writes at once, over HTTP/1.1 and HTTP/2 alike', async () => {
    const http1 = await new Promise<string>((resolve, reject) => {
      https
        .get({ host: '127.0.0.1', port, path: '/', rejectUnauthorized: false, ALPNProtocols: ['http/1.1'] } as https.RequestOptions, (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (body += chunk));
          res.on('end', () => resolve(body));
        })
        .on('error', reject);
    });
    const session = http2.connect(`https://127.0.0.1:${port}`, { rejectUnauthorized: false });
    const h2 = await new Promise<string>((resolve, reject) => {
      const stream = session.request({ ':path': '/' });
      let body = '';
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => (body += chunk));
      stream.on('end', () => resolve(body));
      stream.on('error', reject);
    });
    session.close();
    expect([http1, h2]).toEqual(['ok', 'ok']);
    expect(accepted.map((socket) => socket.alpnProtocol).sort()).toEqual(['h2', 'http/1.1']);
    expect(accepted.map(nagleOff)).toEqual([true, true]);
  });

  // An unauthenticated client may open connections and never send a ClientHello: each held a socket for node's
  // default 120 s (measured live), where kube's Go server gives the handshake its 32 s header deadline.
  it("give the TLS handshake the header deadline, not node's 120 s", () => {
    expect(httpsOptions({ key: '', cert: '' }).handshakeTimeout).toBe(HEADER_TIMEOUT_MS);
    expect(HEADER_TIMEOUT_MS).toBe(32_000);
  });
});
