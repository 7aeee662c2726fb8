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

/** A server whose route /watch hands its WatchResponse to `use` (`routes` adds others); resolves with its URL. */
async function serve(use: (sink: WatchResponse, watches: Set<() => void>) => void, routes?: (app: FastifyInstance) => void): Promise<string> {
  app = Fastify();
  const watches = new Set<() => void>();
  app.get('/watch', async (_req, reply) => use(new WatchResponse(reply, jsonLines, watches), watches));
  routes?.(app);
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

  it('drops the watch of a watcher that stops reading once more than 16 MiB wait for it, freeing its backlog', async () => {
    let written = 0;
    let responseClosed = false;
    const cut = new Promise<{ written: number; ended: boolean; after: boolean }>((resolve) => {
      void serve((sink) => {
        sink.onClose(() => (responseClosed = true));
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
      }).then((url) => http.get(url, (res) => res.pause()).on('error', () => {}));
    });
    const { written: bytes, ended, after } = await cut;
    expect(ended).toBe(true);
    expect(after).toBe(false);
    // The response is closed although its client never read: nothing of the 16 MiB stays buffered for it. (An end
    // would wait behind the backlog for as long as the client kept its connection.)
    for (let i = 0; i < 100 && !responseClosed; i++) await new Promise((r) => setTimeout(r, 10));
    expect(responseClosed).toBe(true);
    // More than the allowance went out before the cut (the socket's own buffers hold some), and not without bound.
    expect(bytes).toBeGreaterThan(maxUnreadWatchBytes);
    expect(bytes).toBeLessThan(maxUnreadWatchBytes * 4);
  });

  it("drops a watch once its user's watches together leave more than 64 MiB unread; another user's are not counted", async () => {
    // A tenant's client opened 100 watches of a 12 MB namespace and never read: 1.2 GB held (8 GB at the watch cap).
    const accepted: Record<string, boolean[]> = {};
    const watches = new Set<() => void>();
    app = Fastify();
    app.get('/w', async (req, reply) => {
      const { id, holder } = req.query as { id: string; holder: string };
      const sink = new WatchResponse(reply, jsonLines, watches, holder);
      // 15 MiB at once: under one watch's allowance.
      accepted[id] = Array.from({ length: 15 }, () => sink.send('ADDED', bigObject));
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const port = (app.server.address() as AddressInfo).port;
    const clients: http.ClientRequest[] = [];
    const open = (id: string, holder: string) =>
      new Promise<void>((resolve, reject) => {
        const req = http.get({ host: '127.0.0.1', port, path: `/w?id=${id}&holder=${holder}` }, (res) => {
          res.pause(); // never read
          resolve();
        });
        req.on('error', reject);
        clients.push(req);
      });
    try {
      for (let i = 0; i < 8; i++) await open(`a${i}`, 'tenant-a');
      await open('b0', 'tenant-b');
      const whole = (id: string) => accepted[id]!.every(Boolean);
      // Four fit (60 MiB at most, less what the sockets took in); by the eighth the user's backlog is past 64 MiB.
      expect(['a0', 'a1', 'a2', 'a3'].map(whole)).toEqual([true, true, true, true]);
      expect(['a4', 'a5', 'a6', 'a7'].map(whole)).toContain(false);
      expect(whole('b0')).toBe(true);
    } finally {
      for (const req of clients) req.destroy();
      for (const end of watches) end();
    }
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

  // flush() writes a chunked HTTP/1.1 turn to the socket itself after reading node's private response fields
  // (chunkedEncoding, _headerSent, outputData, socket._httpMessage). A Node release that renames them would silently
  // lose the direct path (the next two tests fail: node's write is used); one that changes what they mean would
  // corrupt streams (the third fails: it checks each field against what node does with the response).
  it('writes a chunked HTTP/1.1 watch straight to its socket, the very bytes node\'s own chunked res.write sends', async () => {
    const turns = ['{"type":"ADDED","object":{"n":1}}\n', '{"type":"MODIFIED","object":{"n":2}}\n{"type":"DELETED","object":{"n":3}}\n'];
    let calls: WriteCalls | undefined;
    await serve(
      (sink) => {
        calls = countWrites(sink);
        for (const line of turns[0]!.split('\n').filter(Boolean)) sink.sendLine(`${line}\n`);
        setImmediate(() => {
          for (const line of turns[1]!.split('\n').filter(Boolean)) sink.sendLine(`${line}\n`);
          setImmediate(() => sink.end());
        });
      },
      // The same response written by node alone: the head as WatchResponse sends it, then each turn by res.write.
      (app) =>
        app.get('/node', async (_req, reply) => {
          reply.hijack();
          const raw = reply.raw;
          raw.writeHead(200, { 'content-type': jsonLines.contentType, 'cache-control': 'no-cache, private' });
          raw.flushHeaders();
          raw.write(Buffer.from(turns[0]!));
          setImmediate(() => {
            raw.write(Buffer.from(turns[1]!));
            setImmediate(() => raw.end());
          });
        }),
    );
    const { port } = app!.server.address() as AddressInfo;
    const body = (path: string) => onTheWire(port, `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`).then((text) => text.slice(text.indexOf('\r\n\r\n') + 4));
    const direct = await body('/watch');
    // One framed socket write per turn, nothing through node's write (node ends the stream: `0\r\n\r\n`).
    expect(calls).toEqual({ resWrite: 0, framed: turns.map((t) => `${t.length.toString(16)}\r\n${t}\r\n`) });
    expect(direct).toBe(await body('/node'));
    expect(direct).toBe(`${turns.map((t) => `${t.length.toString(16)}\r\n${t}\r\n`).join('')}0\r\n\r\n`);
  });

  it('leaves a watch answered behind another on its connection (pipelined) to node until it is at the head', async () => {
    const calls: WriteCalls[] = [];
    let secondWrote!: () => void;
    const second = new Promise<void>((resolve) => (secondWrote = resolve));
    await serve((sink) => {
      const n = calls.push(countWrites(sink, calls[0]));
      const turns = (from: number) => {
        sink.sendLine(`{"watch":${n},"turn":${from}}\n`);
        setImmediate(() => (from < 3 ? turns(from + 1) : sink.end()));
      };
      sink.sendLine(`{"watch":${n},"turn":1}\n`);
      // The first response stays open until the second, queued behind it, has written its first turn.
      if (n === 1) void second.then(() => turns(2));
      else setImmediate(() => (secondWrote(), turns(2)));
    });
    const { port } = app!.server.address() as AddressInfo;
    const request = 'GET /watch HTTP/1.1\r\nHost: x\r\n\r\n';
    const wire = await onTheWire(port, `${request}${request.replace('\r\n\r\n', '\r\nConnection: close\r\n\r\n')}`);
    const chunked = (watch: number) => [1, 2, 3].map((turn) => `{"watch":${watch},"turn":${turn}}\n`).map((t) => `${t.length.toString(16)}\r\n${t}\r\n`).join('') + '0\r\n\r\n';
    const bodies = wire.split(/HTTP\/1\.1 200 OK\r\n(?:[^\r]+\r\n)*\r\n/).slice(1);
    expect(bodies).toEqual([chunked(1), chunked(2)]);
    // The first wrote every turn itself; the second went through node while it waited (its socket was not its own).
    const framedOf = (watch: number) => calls[0]!.framed.filter((text) => text.includes(`{"watch":${watch},`)).length;
    expect([calls[0]!.resWrite, framedOf(1)]).toEqual([0, 3]);
    expect(calls[1]!.resWrite).toBeGreaterThan(0);
    expect(calls[1]!.resWrite + framedOf(2)).toBe(3);
  });

  it('reads node\'s response fields as node means them: head sent, output held back, whose turn the socket is', async () => {
    type Fields = { chunkedEncoding?: boolean; _headerSent?: boolean; outputData?: unknown[]; socket: { _httpMessage?: unknown } | null };
    const seen: Record<string, unknown> = {};
    const holdsOutput = (fields: Fields) => (Array.isArray(fields.outputData) ? fields.outputData.length > 0 : 'no outputData');
    const responses: http.ServerResponse[] = [];
    let markSecondWrote!: () => void;
    const secondWrote = new Promise<void>((resolve) => (markSecondWrote = resolve));
    const server = http.createServer((_req, res) => {
      const fields = res as unknown as Fields;
      const n = responses.push(res);
      res.writeHead(200, { 'content-type': 'application/json' });
      seen[`${n}: before the head is flushed`] = { headerSent: fields._headerSent };
      res.flushHeaders();
      res.write('{"a":1}\n');
      seen[`${n}: head flushed, one write`] = {
        chunked: fields.chunkedEncoding,
        headerSent: fields._headerSent,
        holdsOutput: holdsOutput(fields),
        socketIsItsTurn: fields.socket ? fields.socket._httpMessage === res : 'no socket',
      };
      if (n === 1) void secondWrote.then(() => res.end());
      else {
        markSecondWrote();
        // Queued behind the first: its bytes wait in outputData until node hands it the socket.
        res.once('finish', () => server.close());
        const check = () => {
          if (!fields.socket) return void setImmediate(check);
          seen['2: once at the head'] = { holdsOutput: holdsOutput(fields), socketIsItsTurn: fields.socket._httpMessage === res };
          res.end();
        };
        check();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const request = 'GET / HTTP/1.1\r\nHost: x\r\n\r\n';
    await onTheWire(port, `${request}${request.replace('\r\n\r\n', '\r\nConnection: close\r\n\r\n')}`);
    expect(seen).toEqual({
      '1: before the head is flushed': { headerSent: false },
      '1: head flushed, one write': { chunked: true, headerSent: true, holdsOutput: false, socketIsItsTurn: true },
      '2: before the head is flushed': { headerSent: false },
      '2: head flushed, one write': { chunked: true, headerSent: true, holdsOutput: true, socketIsItsTurn: 'no socket' },
      '2: once at the head': { holdsOutput: false, socketIsItsTurn: true },
    });
  });
});

/** What a watch's flushes wrote: through node's response (its chunked framing), and straight to the socket. */
interface WriteCalls {
  resWrite: number;
  /** The socket writes that were one whole framed chunk (`<size>\r\n<bytes>\r\n`): node sends its pieces apart. */
  framed: string[];
}

/** Counts a watch's writes through node's response, and the framed chunks written to its socket (shared by `also`). */
function countWrites(sink: WatchResponse, also?: WriteCalls): WriteCalls {
  const calls: WriteCalls = { resWrite: 0, framed: also?.framed ?? [] };
  const raw = (sink as unknown as { raw: http.ServerResponse }).raw;
  const resWrite = raw.write.bind(raw);
  raw.write = ((...args: Parameters<typeof raw.write>) => (calls.resWrite++, resWrite(...args))) as typeof raw.write;
  const socket = raw.socket;
  // A pipelined response has no socket until the ones before it are done: `also` counts on the shared one.
  if (!socket || also) return calls;
  const socketWrite = socket.write.bind(socket);
  socket.write = ((data: unknown, ...rest: unknown[]) => {
    if (Buffer.isBuffer(data)) {
      const text = data.toString('latin1');
      const size = /^([0-9a-f]+)\r\n/.exec(text);
      if (size && Number.parseInt(size[1]!, 16) > 0 && text.length === size[0].length + Number.parseInt(size[1]!, 16) + 2) calls.framed.push(text);
    }
    return (socketWrite as (...args: unknown[]) => boolean)(data, ...rest);
  }) as typeof socket.write;
  return calls;
}

/** Everything a server sends back for `request` (raw bytes, as latin1) until it closes the connection. */
function onTheWire(port: number, request: string): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(request));
    let text = '';
    socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
  });
}
