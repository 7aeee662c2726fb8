/**
 * The HTTP response a watch streams into, whatever produces its events (a resource's watch, the workspace index):
 * it takes the reply over from fastify, sends the head, writes each event as the negotiated frame, and ends the stream
 * when the server shuts down or the producer is done. A watcher that stops reading would otherwise make the server
 * buffer every event for it without end: once it falls too far behind, its stream is dropped (reset, its backlog
 * freed), and it relists and resumes from its last resourceVersion, as client-go's reflector does after any dropped
 * watch.
 *
 * Events are queued and written once per turn of the event loop (setImmediate): every commit handled in one turn
 * reaches a watcher as one socket write, one chunk and one TLS record, where each event used to cost its own. Under
 * load, when several writes land per turn, that write is most of a delivery's cost.
 */
import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';
import type { WatchEventType, WatchSink } from '../registry/watch-stream.js';
import { budgetKey, shareOf } from './inflight-limit.js';
import type { WatchEventWriter } from './render.js';
import { authenticatedUser } from './request-gate.js';

/** How much a watcher may leave unread (bytes buffered for its connection) before its watch is ended. */
export const maxUnreadWatchBytes = 16 * 1024 * 1024;

/**
 * How much one user's watches may leave unread together before the one being written to is dropped. Each of the 500
 * watches a user may open could otherwise hold its own 16 MiB: 100 watches of a tenant's 12 MB namespace that its
 * client never read held 1.2 GB of the server (2026-11-29), 8 GB per identity at the watch cap.
 */
export const maxUnreadWatchBytesPerUser = 4 * maxUnreadWatchBytes;

/** A backlog counted toward its user's: below it a watch is keeping up (a reading watcher's is about a turn's events). */
const COUNTED_BACKLOG_BYTES = 64 * 1024;

/** Per user (their budget key): their watches whose backlog was over COUNTED_BACKLOG_BYTES when last written to. */
const backlogged = new Map<string, Set<WatchResponse>>();

/** Watch responses with queued frames, written out together once the current turn's callbacks are done. */
let due: WatchResponse[] = [];
function flushDue(): void {
  const now = due;
  due = [];
  for (const response of now) {
    try {
      response.flush();
    } catch {
      // A stream that cannot take a write is cut (its client resumes from its last resourceVersion); the rest go on.
      response.abandon();
    }
  }
  lastJoined = undefined;
  lastFramed = undefined;
}

/**
 * The last run of frames joined into one write: the watchers of one turn's commits mostly queue the very same frames
 * (the writer shares them), so the next one reuses the join instead of copying them again.
 */
let lastJoined: { frames: Buffer[]; joined: Buffer } | undefined;
function join(frames: Buffer[], bytes: number): Buffer {
  if (frames.length === 1) return frames[0]!;
  const last = lastJoined;
  if (last && last.frames.length === frames.length && last.frames.every((frame, i) => frame === frames[i])) return last.joined;
  const joined = Buffer.concat(frames, bytes);
  lastJoined = { frames, joined };
  return joined;
}

/**
 * The last joined write wrapped as one HTTP/1.1 chunk (`<size hex>\r\n<bytes>\r\n`): the watchers of a turn mostly
 * write the very same bytes, so the framing is built once between them rather than once per stream.
 */
let lastFramed: { chunk: Buffer; framed: Buffer } | undefined;
const crlf = Buffer.from('\r\n');
function framedChunk(chunk: Buffer): Buffer {
  if (lastFramed?.chunk === chunk) return lastFramed.framed;
  const framed = Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`, 'latin1'), chunk, crlf]);
  lastFramed = { chunk, framed };
  return framed;
}

/** The parts of node's HTTP/1 response that say whether a write may go straight to the socket. */
interface Http1Response {
  chunkedEncoding?: boolean;
  _headerSent?: boolean;
  outputData?: unknown[];
  socket: (NodeJS.WritableStream & { _httpMessage?: unknown; writable: boolean }) | null;
}

/**
 * The socket a chunked HTTP/1.1 watch may write its framed bytes to directly, or undefined (HTTP/2, HTTP/1.0, a
 * response not yet at the head of its connection, or with output node still holds): the same test node's own
 * response applies before it writes to the socket. Writing one pre-framed buffer spares, per watcher and turn, node's
 * four-part chunk (size, CRLF, bytes, CRLF), its cork until the next tick and the gathering write that follows.
 * These are node's private fields: watch-response.test.ts checks each against what node does with a real response,
 * and that this path is taken and sends node's very bytes; a field that is missing leaves the write to node.
 */
function directSocket(raw: ServerResponse): Http1Response['socket'] | undefined {
  const res = raw as unknown as Http1Response;
  if (res.chunkedEncoding !== true || res._headerSent !== true) return undefined;
  if (!Array.isArray(res.outputData) || res.outputData.length !== 0) return undefined;
  const socket = res.socket;
  if (!socket || socket._httpMessage !== raw || !socket.writable) return undefined;
  return socket;
}

export class WatchResponse implements WatchSink {
  private readonly raw: ServerResponse;
  /** Frames not yet handed to the socket, in order, and their size. */
  private queued: Buffer[] = [];
  private queuedBytes = 0;
  private closed = false;

  /**
   * `watches`: the server's running watches, each ended at shutdown so that the server can close. `holder`: whose
   * backlog this watch counts toward (default: the request's user, as the watch budget keys them).
   */
  constructor(
    reply: FastifyReply,
    private readonly writer: Pick<WatchEventWriter, 'contentType' | 'event'>,
    watches?: Set<() => void>,
    private readonly holder: string = holderOf(reply),
  ) {
    // The reply's headers stay behind with fastify once hijacked: its warnings go out with the stream's head.
    const warning = reply.getHeader('warning');
    reply.hijack();
    this.raw = reply.raw;
    const head: Record<string, string | string[]> = { 'content-type': writer.contentType, 'cache-control': 'no-cache, private' };
    if (warning !== undefined) head.warning = warning as string | string[];
    this.raw.writeHead(200, head);
    this.raw.flushHeaders();
    // Frames still queued when the client goes away have nowhere to go.
    this.raw.on('close', () => {
      this.closed = true;
      this.queued = [];
      this.queuedBytes = 0;
      const mine = backlogged.get(this.holder);
      if (mine?.delete(this) && mine.size === 0) backlogged.delete(this.holder);
    });
    if (watches) {
      watches.add(this.end);
      this.raw.on('close', () => watches.delete(this.end));
    }
  }

  /** Ended or dropped: nothing more goes out. */
  get ended(): boolean {
    return this.closed || this.raw.writableEnded;
  }

  /** Writes one event; false once the stream has ended (now, because the watcher fell too far behind, or before). */
  send(type: WatchEventType, objectJson: string): boolean {
    if (this.ended) return false;
    return this.write(this.writer.event(type, objectJson));
  }

  /** Writes a line as it is, outside the negotiated form (the workspace index's references for the front proxy). */
  sendLine(line: string): boolean {
    if (this.ended) return false;
    return this.write(Buffer.from(line));
  }

  /** A failure once the stream has started: reported as an ERROR event (a Status), then the end. */
  fail(statusJson: string): void {
    if (this.raw.writableEnded) return;
    this.queue(this.writer.event('ERROR', statusJson));
    this.end();
  }

  end = (): void => {
    if (this.ended) return;
    this.flush();
    this.raw.end();
  };

  /** Hands the queued frames to the socket as one write. */
  flush(): void {
    const frames = this.queued;
    if (frames.length === 0) return;
    const bytes = this.queuedBytes;
    this.queued = [];
    this.queuedBytes = 0;
    if (this.raw.writableEnded) return;
    const chunk = join(frames, bytes);
    const socket = directSocket(this.raw);
    if (socket) socket.write(framedChunk(chunk));
    else this.raw.write(chunk);
  }

  /** Drops what is queued and closes the connection. */
  abandon(): void {
    this.closed = true;
    this.queued = [];
    this.queuedBytes = 0;
    this.raw.destroy();
  }

  onClose(callback: () => void): void {
    this.raw.on('close', callback);
  }

  /** Bytes written for this watch that its client has not taken yet. */
  private get unread(): number {
    return this.raw.writableLength + this.queuedBytes;
  }

  /** The backlog of the holder's watches, this one's included, forgetting those that caught up or closed. */
  private holderBacklog(): number {
    let mine = backlogged.get(this.holder);
    if (!mine) backlogged.set(this.holder, (mine = new Set()));
    mine.add(this);
    let total = 0;
    for (const watch of mine) {
      const unread = watch.closed ? 0 : watch.unread;
      if (unread <= COUNTED_BACKLOG_BYTES) mine.delete(watch);
      else total += unread;
    }
    return total;
  }

  private write(frame: Buffer): boolean {
    this.queue(frame);
    const unread = this.unread;
    if (unread <= COUNTED_BACKLOG_BYTES) return true;
    if (unread <= maxUnreadWatchBytes && this.holderBacklog() <= maxUnreadWatchBytesPerUser) return true;
    // Dropped, not ended: an end waits behind the 16 MiB its client is not reading, which stayed buffered (and the
    // stream open) for as long as the client kept its connection, one such backlog per watch it had opened.
    this.abandon();
    return false;
  }

  private queue(frame: Buffer): void {
    if (this.closed) return;
    if (this.queued.length === 0) {
      if (due.length === 0) setImmediate(flushDue);
      due.push(this);
    }
    this.queued.push(frame);
    this.queuedBytes += frame.length;
  }
}

function holderOf(reply: FastifyReply): string {
  const counted = reply.request ? shareOf(reply.request) : undefined;
  if (counted !== undefined) return counted;
  const user = reply.request ? authenticatedUser(reply.request) : undefined;
  return user ? budgetKey(user) : '';
}
