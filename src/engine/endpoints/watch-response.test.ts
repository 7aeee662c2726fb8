import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { maxUnreadWatchBytes, WatchResponse } from './watch-response.js';

// JSON lines, as a watch of application/json writes them.
const jsonLines = { contentType: 'application/json', event: (type: string, json: string) => Buffer.from(`{"type":"${type}","object":${json}}\n`) };
const bigObject = JSON.stringify({ data: 'x'.repeat(1024 * 1024) });

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

/** A server whose one route hands its WatchResponse to `use`; resolves with its URL. */
async function serve(use: (sink: WatchResponse, watches: Set<() => void>) => void): Promise<string> {
  app = Fastify();
  const watches = new Set<() => void>();
  app.get('/watch', async (_req, reply) => use(new WatchResponse(reply, jsonLines, watches), watches));
  await app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/watch`;
}

/** The whole body of a response that ends. */
function readAll(url: string): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    http.get(url, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve(body));
    }).on('error', reject);
  });
}

describe('WatchResponse', () => {
  it('streams every event to a watcher that reads, then ends', async () => {
    const sent: boolean[] = [];
    const url = await serve((sink) => {
      // 10 MiB at once: under the allowance, however slowly the client reads.
      for (let i = 0; i < 10; i++) sent.push(sink.send('ADDED', bigObject));
      sink.end();
    });
    const lines = await new Promise<string[]>((resolve, reject) => {
      http.get(url, (res) => {
        expect(res.headers['content-type']).toBe('application/json');
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve(text.split('\n').filter(Boolean)));
      }).on('error', reject);
    });
    expect(sent).toEqual(Array(10).fill(true));
    expect(lines).toHaveLength(10);
    expect(JSON.parse(lines[9]!).type).toBe('ADDED');
  });

  it('ends the watch of a watcher that stops reading once more than 16 MiB wait for it', async () => {
    let written = 0;
    const cut = new Promise<{ written: number; ended: boolean; after: boolean }>((resolve) => {
      void serve((sink) => {
        // Events keep coming while the client reads nothing.
        const tick = () => {
          if (sink.send('MODIFIED', bigObject)) {
            written += bigObject.length;
            setImmediate(tick);
            return;
          }
          resolve({ written, ended: sink.ended, after: sink.send('MODIFIED', '{}') });
        };
        tick();
      }).then((url) => http.get(url, (res) => res.pause()));
    });
    const { written: bytes, ended, after } = await cut;
    expect(ended).toBe(true);
    expect(after).toBe(false);
    // More than the allowance went out before the cut (the socket's own buffers hold some), and not without bound.
    expect(bytes).toBeGreaterThan(maxUnreadWatchBytes);
    expect(bytes).toBeLessThan(maxUnreadWatchBytes * 4);
  });

  it('ends at shutdown: the server ends every running watch', async () => {
    const url = await serve((sink, watches) => {
      sink.send('ADDED', '{}');
      for (const end of watches) end();
    });
    const text = await readAll(url);
    expect(text).toBe('{"type":"ADDED","object":{}}\n');
  });

  it('delivers the events written in one turn in order, then a failure as the last event before the end', async () => {
    const url = await serve((sink) => {
      sink.send('ADDED', '{"n":1}');
      sink.send('MODIFIED', '{"n":2}');
      sink.sendLine('{"type":"BOOKMARK","object":{"n":3}}\n');
      sink.fail('{"kind":"Status","code":500}');
      expect(sink.send('MODIFIED', '{"n":4}')).toBe(false);
    });
    const text = await readAll(url);
    expect(text.split('\n').filter(Boolean).map((line) => JSON.parse(line))).toEqual([
      { type: 'ADDED', object: { n: 1 } },
      { type: 'MODIFIED', object: { n: 2 } },
      { type: 'BOOKMARK', object: { n: 3 } },
      { type: 'ERROR', object: { kind: 'Status', code: 500 } },
    ]);
  });

  it('cuts a stream whose write throws and still delivers the other watchers\' events of that turn', async () => {
    const sinks: WatchResponse[] = [];
    const url = await serve((sink) => {
      sinks.push(sink);
      if (sinks.length < 2) return;
      // The first stream's socket refuses the write; both have an event queued in this turn.
      const socket = (sinks[0] as unknown as { raw: { socket: { write: () => never } } }).raw.socket;
      socket.write = () => {
        throw new Error('refused');
      };
      for (const s of sinks) s.send('ADDED', '{}');
      setImmediate(() => sinks[1]!.end());
    });
    const first = new Promise<string>((resolve) => {
      http.get(url, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('error', () => resolve(`cut after ${JSON.stringify(body)}`));
        res.on('end', () => resolve(`ended after ${JSON.stringify(body)}`));
      }).on('error', () => resolve('cut'));
    });
    await vi.waitFor(() => expect(sinks).toHaveLength(1));
    const second = await readAll(url);
    expect(second).toBe('{"type":"ADDED","object":{}}\n');
    expect(await first).toMatch(/^cut/);
  });

  it('frames each turn as one HTTP/1.1 chunk, and writes HTTP/1.0 bodies unframed', async () => {
    const url = new URL(await serve((sink) => {
      sink.send('ADDED', '{"n":1}');
      sink.send('MODIFIED', '{"n":2}');
      setImmediate(() => {
        sink.send('DELETED', '{"n":3}');
        setImmediate(() => sink.end());
      });
    }));
    const wire = (version: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = net.connect(Number(url.port), url.hostname, () => socket.write(`GET /watch ${version}\r\nHost: x\r\nConnection: close\r\n\r\n`));
        let text = '';
        socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
        socket.on('end', () => resolve(text.slice(text.indexOf('\r\n\r\n') + 4)));
        socket.on('error', reject);
      });
    const first = '{"type":"ADDED","object":{"n":1}}\n{"type":"MODIFIED","object":{"n":2}}\n';
    const second = '{"type":"DELETED","object":{"n":3}}\n';
    expect(await wire('HTTP/1.1')).toBe(`${first.length.toString(16)}\r\n${first}\r\n${second.length.toString(16)}\r\n${second}\r\n0\r\n\r\n`);
    expect(await wire('HTTP/1.0')).toBe(first + second);
  });
});
