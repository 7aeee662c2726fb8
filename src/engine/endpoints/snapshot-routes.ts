/**
 * `/kcpt/snapshot`: the server's side of `kcpt snapshot`. Only the server may read its store while it runs (it holds
 * the SQLite file exclusively, with a WAL), so it takes the copies:
 *
 *   GET  /kcpt/snapshot                    the whole store: a SQLite backup file (SQLite) or JSON lines (memory)
 *   GET  /kcpt/snapshot?workspace=<path>   one workspace subtree as JSON lines, at one revision
 *   POST /kcpt/snapshot/restore?as=<path>  a subtree snapshot (JSON lines body) recreated under a new path
 *
 * A snapshot holds every Secret of every workspace, so these are for `system:masters` only (the shard admin of
 * admin.kubeconfig), whatever RBAC says; impersonation is refused rather than evaluated. The caller is known (the
 * request gate) and checked before an upload's first byte is read.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { StringDecoder } from 'node:string_decoder';
import { MASTERS_GROUP } from '../machinery/user-groups.js';
import { badRequest, requestEntityTooLarge, StatusError, unauthorized } from '../machinery/status.js';
import type { GenericStore } from '../registry/generic-store.js';
import { exportStore, exportSubtree } from '../snapshot/export.js';
import { entryLine, headerLine, SnapshotFormatError, SnapshotParser, type Snapshot } from '../snapshot/format.js';
import { invalidSnapshot, restoreSubtree } from '../snapshot/restore.js';
import type { Store } from '../storage/store.js';
import { ANONYMOUS, authenticatedUser } from './request-gate.js';
import type { UserInfo } from '../auth/user.js';
import { sendJson } from './responses.js';

export const SNAPSHOT_PATH = '/kcpt/snapshot';
export const SNAPSHOT_RESTORE_PATH = '/kcpt/snapshot/restore';
/** The largest restore upload; subtree snapshots of test fixtures and bug reports are far below this. */
export const MAX_RESTORE_BYTES = 512 * 1024 * 1024;
export const SQLITE_CONTENT_TYPE = 'application/vnd.sqlite3';
export const JSON_LINES_CONTENT_TYPE = 'application/jsonl';

export interface SnapshotRouteDeps {
  store: Store;
  generic: GenericStore;
  resolvePath(path: string): string | undefined;
  externalUrl(): string;
  /** Where a SQLite backup is written before it is streamed (same file system as the database). */
  rootDirectory: string;
}

export function registerSnapshotRoutes(app: FastifyInstance, deps: SnapshotRouteDeps): void {
  app.get(SNAPSHOT_PATH, async (request, reply) => {
    requireMasters(request);
    const workspace = new URL(request.url, 'https://placeholder').searchParams.get('workspace');
    if (workspace !== null) return sendSnapshot(reply, exportSubtree(deps, workspace));
    if (!deps.store.backup) return sendSnapshot(reply, exportStore(deps.store));
    return sendBackup(deps, reply);
  });
  // Its own context: the body reaches the handler as a stream, read a line at a time, never buffered whole.
  void app.register(async (restore) => {
    restore.removeAllContentTypeParsers();
    restore.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    // Who may restore is decided before a byte of the upload is read.
    restore.post(SNAPSHOT_RESTORE_PATH, { onRequest: async (request) => void admitUpload(request) }, async (request, reply) => {
      const user = requireMasters(request);
      const as = new URL(request.url, 'https://placeholder').searchParams.get('as');
      if (!as) throw badRequest('say where to restore the workspace: ?as=<new workspace path>');
      const body = request.body as Readable | undefined;
      if (!body) throw badRequest('the request has no snapshot in its body');
      return sendJson(reply, 201, restoreSubtree(deps, await readSnapshot(body), as, user));
    });
  });
}

/** Longest line a restore reads (an object line is at most the object limit plus its envelope; a header lists clusters). */
const MAX_SNAPSHOT_LINE_BYTES = 16 * 1024 * 1024;

/** Parses an uploaded snapshot as it arrives, within MAX_RESTORE_BYTES. */
async function readSnapshot(body: Readable): Promise<Snapshot> {
  const parser = new SnapshotParser();
  const decoder = new StringDecoder('utf8');
  // The line being read, in pieces (joined once it ends: no rescans of a long line as it grows).
  let parts: string[] = [];
  let partLength = 0;
  let total = 0;
  const take = (text: string) => {
    let start = 0;
    for (let newline = text.indexOf('\n'); newline >= 0; newline = text.indexOf('\n', start)) {
      parts.push(text.slice(start, newline));
      parser.line(parts.join(''));
      parts = [];
      partLength = 0;
      start = newline + 1;
    }
    if (start < text.length) {
      parts.push(text.slice(start));
      partLength += text.length - start;
    }
    if (partLength > MAX_SNAPSHOT_LINE_BYTES) throw badRequest(`invalid snapshot: a line is longer than ${MAX_SNAPSHOT_LINE_BYTES} bytes`);
  };
  try {
    // A refusal mid-upload must not destroy the request (that resets the connection before the Status is written):
    // the unread rest is left to the unread-body cutoff, which answers first and then closes.
    for await (const chunk of body.iterator({ destroyOnReturn: false })) {
      const bytes = chunk as Buffer;
      total += bytes.length;
      if (total > MAX_RESTORE_BYTES) throw tooLarge();
      take(decoder.write(bytes));
    }
    take(decoder.end());
    if (total === 0) throw badRequest('the request has no snapshot in its body');
    if (parts.length > 0) parser.line(parts.join(''));
    return parser.finish();
  } catch (error) {
    if (error instanceof SnapshotFormatError) throw invalidSnapshot(error);
    throw error;
  }
}

const tooLarge = () => requestEntityTooLarge(`Request entity too large: a snapshot upload is limited to ${MAX_RESTORE_BYTES} bytes`);

/** The caller may restore, and the upload announces no more than MAX_RESTORE_BYTES (a chunked one is counted as it arrives). */
function admitUpload(request: FastifyRequest): void {
  requireMasters(request);
  const length = Number(request.headers['content-length']);
  if (length > MAX_RESTORE_BYTES) throw tooLarge();
}

function requireMasters(request: FastifyRequest): UserInfo {
  const user = authenticatedUser(request);
  if (!user || user.username === ANONYMOUS.username) throw unauthorized();
  if (request.headers['impersonate-user'] !== undefined || request.headers['impersonate-group'] !== undefined) {
    throw new StatusError(403, 'Forbidden', 'snapshots do not support impersonation: use a system:masters identity directly');
  }
  if (!user.groups.includes(MASTERS_GROUP)) {
    throw new StatusError(
      403,
      'Forbidden',
      `User "${user.username}" cannot take or restore snapshots: only members of ${MASTERS_GROUP} may (for example the system:admin context of admin.kubeconfig)`,
    );
  }
  return user;
}

function sendSnapshot(reply: FastifyReply, snapshot: Snapshot): FastifyReply {
  function* lines(): Generator<string> {
    yield headerLine(snapshot.header);
    for (const entry of snapshot.entries) yield entryLine(entry);
  }
  reply.header('x-kcpt-snapshot-revision', String(snapshot.header.revision));
  return reply.code(200).header('content-type', JSON_LINES_CONTENT_TYPE).send(Readable.from(lines()));
}

/** The online backup into a private file beside the database, streamed, then removed. */
async function sendBackup(deps: SnapshotRouteDeps, reply: FastifyReply): Promise<FastifyReply> {
  const file = join(deps.rootDirectory, `.snapshot-${randomBytes(6).toString('hex')}.db`);
  try {
    await deps.store.backup!(file);
  } catch (error) {
    await unlink(file).catch(() => undefined);
    throw error;
  }
  // Commits are synchronous and the backup's last step runs just before this continuation: this is its revision.
  reply.header('x-kcpt-snapshot-revision', String(deps.store.currentRevision()));
  const stream = createReadStream(file);
  stream.on('close', () => void unlink(file).catch(() => undefined));
  return reply.code(200).header('content-type', SQLITE_CONTENT_TYPE).send(stream);
}
