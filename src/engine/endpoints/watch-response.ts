/**
 * The HTTP response a watch streams into, whatever produces its events (a resource's watch, the workspace index):
 * it takes the reply over from fastify, sends the head, writes each event as the negotiated frame, and ends the stream
 * when the client falls too far behind, when the server shuts down, or when the producer is done. A watcher that
 * stops reading would otherwise make the server buffer every event for it without end; cut, it relists and resumes
 * from its last resourceVersion, as client-go's reflector does after any dropped watch.
 */
import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';
import type { WatchEventType, WatchSink } from '../registry/watch-stream.js';
import type { WatchEventWriter } from './render.js';

/** How much a watcher may leave unread (bytes buffered for its connection) before its watch is ended. */
export const maxUnreadWatchBytes = 16 * 1024 * 1024;

export class WatchResponse implements WatchSink {
  private readonly raw: ServerResponse;

  /** `watches`: the server's running watches, each ended at shutdown so that the server can close. */
  constructor(
    reply: FastifyReply,
    private readonly writer: Pick<WatchEventWriter, 'contentType' | 'event'>,
    watches?: Set<() => void>,
  ) {
    reply.hijack();
    this.raw = reply.raw;
    this.raw.writeHead(200, { 'content-type': writer.contentType, 'cache-control': 'no-cache, private' });
    this.raw.flushHeaders();
    if (watches) {
      watches.add(this.end);
      this.raw.on('close', () => watches.delete(this.end));
    }
  }

  get ended(): boolean {
    return this.raw.writableEnded;
  }

  /** Writes one event; false once the stream has ended (now, because the watcher fell too far behind, or before). */
  send(type: WatchEventType, objectJson: string): boolean {
    if (this.raw.writableEnded) return false;
    return this.write(this.writer.event(type, objectJson));
  }

  /** Writes a line as it is, outside the negotiated form (the workspace index's references for the front proxy). */
  sendLine(line: string): boolean {
    if (this.raw.writableEnded) return false;
    return this.write(line);
  }

  /** A failure once the stream has started: reported as an ERROR event (a Status), then the end. */
  fail(statusJson: string): void {
    if (this.raw.writableEnded) return;
    this.raw.write(this.writer.event('ERROR', statusJson));
    this.end();
  }

  end = (): void => {
    if (!this.raw.writableEnded) this.raw.end();
  };

  onClose(callback: () => void): void {
    this.raw.on('close', callback);
  }

  private write(frame: string | Buffer): boolean {
    this.raw.write(frame);
    if (this.raw.writableLength <= maxUnreadWatchBytes) return true;
    this.end();
    return false;
  }
}
