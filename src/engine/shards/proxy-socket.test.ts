import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { listenProxySocket, proxySocketPath } from './proxy-socket.js';

describe('proxySocketPath', () => {
  it('puts a relative path inside the root directory and keeps an absolute one that is inside', () => {
    expect(proxySocketPath('/var/kcp', 'proxy.sock')).toBe('/var/kcp/proxy.sock');
    expect(proxySocketPath('/var/kcp', '/var/kcp/run/p.sock')).toBe('/var/kcp/run/p.sock');
  });

  it('refuses a socket outside the root directory, the directory itself, and paths too long for a socket', () => {
    expect(() => proxySocketPath('/var/kcp', '/tmp/p.sock')).toThrow(/must be inside the root directory/);
    expect(() => proxySocketPath('/var/kcp', '../p.sock')).toThrow(/must be inside the root directory/);
    expect(() => proxySocketPath('/var/kcp', '.')).toThrow(/must be inside the root directory/);
    expect(() => proxySocketPath('/var/kcp', 'x'.repeat(120))).toThrow(/longer than the 107 bytes/);
  });
});

describe('listenProxySocket', () => {
  it('serves the handler on a 0600 socket, replaces a stale socket and refuses to remove another file', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'kcpt-proxy-socket-'));
    const socket = path.join(dir, 'proxy.sock');
    const handler: http.RequestListener = (_req, res) => res.end('hello');
    const first = await listenProxySocket(socket, handler);
    expect(statSync(socket).mode & 0o777).toBe(0o600);
    let keepAlive: string | string[] | undefined;
    const body = await new Promise<string>((resolve, reject) => {
      http.get({ socketPath: socket, path: '/' }, (res) => {
        keepAlive = res.headers['keep-alive'];
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve(text));
      }).on('error', reject);
    });
    expect(body).toBe('hello');
    // Idle connections outlive the proxy's own 30 s limit (the proxy closes first), not Node's 5 s default.
    expect(keepAlive).toBe('timeout=90');
    await first.close();
    // A crashed shard leaves its socket file behind: the next start takes the path over.
    const stale = http.createServer();
    await new Promise<void>((resolve) => stale.listen(path.join(dir, 'stale.sock'), resolve));
    stale.unref();
    const second = await listenProxySocket(path.join(dir, 'stale.sock'), handler);
    await second.close();
    stale.close();
    writeFileSync(path.join(dir, 'regular'), 'data');
    await expect(listenProxySocket(path.join(dir, 'regular'), handler)).rejects.toThrow(/not a socket is in the way/);
  });
});
