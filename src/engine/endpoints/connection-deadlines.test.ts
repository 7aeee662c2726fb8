import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Deadline, installConnectionDeadlines } from './connection-deadlines.js';

const HEADER = 32_000;
const IDLE = 90_000;

describe('connection deadline', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const connection = (idle = IDLE, first = HEADER) => {
    const expired = vi.fn();
    return { deadline: new Deadline(idle, expired, first), expired };
  };

  it('closes a connection that sends no request within the header timeout', () => {
    const { expired } = connection();
    vi.advanceTimersByTime(HEADER - 100);
    expect(expired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(200);
    expect(expired).toHaveBeenCalledTimes(1);
  });

  it('never closes a connection while a request is in progress, and counts idle time from the last one', () => {
    const { deadline, expired } = connection();
    vi.advanceTimersByTime(10_000);
    deadline.started();
    vi.advanceTimersByTime(200_000); // past both deadlines
    expect(expired).not.toHaveBeenCalled();
    deadline.finished();
    vi.advanceTimersByTime(IDLE - 100);
    expect(expired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(200);
    expect(expired).toHaveBeenCalledTimes(1);
  });

  it('moves the idle deadline with every request: a steady client is never cut off', () => {
    const { deadline, expired } = connection();
    for (let i = 0; i < 50; i++) {
      deadline.started();
      vi.advanceTimersByTime(1_000);
      deadline.finished();
      vi.advanceTimersByTime(IDLE - 5_000);
    }
    expect(expired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(5_100);
    expect(expired).toHaveBeenCalledTimes(1);
  });

  it('waits for the last of overlapping requests (HTTP/2 streams)', () => {
    const { deadline, expired } = connection();
    deadline.started();
    deadline.started();
    vi.advanceTimersByTime(1_000);
    deadline.finished();
    vi.advanceTimersByTime(IDLE + 1_000);
    expect(expired).not.toHaveBeenCalled();
    deadline.finished();
    vi.advanceTimersByTime(IDLE + 100);
    expect(expired).toHaveBeenCalledTimes(1);
  });

  it('applies a shorter idle deadline than the pending one at once', () => {
    const { deadline, expired } = connection(1_000, HEADER);
    deadline.started();
    deadline.finished();
    vi.advanceTimersByTime(1_100);
    expect(expired).toHaveBeenCalledTimes(1);
  });

  it('does nothing once its connection closed', () => {
    const { deadline, expired } = connection();
    deadline.stop();
    vi.advanceTimersByTime(10 * IDLE);
    expect(expired).not.toHaveBeenCalled();
  });
});

describe('HTTP/2 session deadlines on a real server', () => {
  it('keeps a session open while a stream is in progress, then closes it once idle after its last stream', async () => {
    const server = http2.createServer();
    // Plain HTTP/2 (no TLS): sessions and streams are timed the same way as over TLS.
    installConnectionDeadlines(server as unknown as http2.Http2SecureServer, { headerTimeoutMs: 200, idleTimeoutMs: 300 });
    server.on('stream', (stream, headers) => {
      const wait = Number(headers['x-wait'] ?? 0);
      setTimeout(() => {
        stream.respond({ ':status': 200 });
        stream.end('ok');
      }, wait);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = http2.connect(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    const get = (wait: number) =>
      new Promise<number>((resolve, reject) => {
        const req = client.request({ ':path': '/', 'x-wait': String(wait) });
        req.on('response', (h) => resolve(h[':status'] as number));
        req.on('error', reject);
        req.resume();
        req.end();
      });
    const closed = new Promise<number>((resolve) => client.once('close', () => resolve(performance.now())));
    try {
      // Each answer takes longer than both deadlines: the streams in progress hold the session open.
      expect(await get(500)).toBe(200);
      expect(await get(500)).toBe(200);
      const idleFrom = performance.now();
      // Every stream's end was counted: the session is closed once idle, not kept open by a stream counted as active.
      expect(await closed).toBeGreaterThanOrEqual(idleFrom);
    } finally {
      client.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }, 15_000);
});

