/**
 * `/kcpt/snapshot`: the server's side of `kcpt snapshot`. Only the server may read its store while it runs (it holds
 * the SQLite file exclusively, with a WAL), so it takes the copies:
 *
 *   GET  /kcpt/snapshot                    the whole store: a SQLite backup file (SQLite) or JSON lines (memory)
 *   GET  /kcpt/snapshot?workspace=<path>   one workspace subtree as JSON lines, at one revision
 *   POST /kcpt/snapshot/restore?as=<path>  a subtree snapshot (JSON lines body) recreated under a new path
 *
 * A snapshot holds every Secret of every workspace, so these are for `system:masters` only (the shard admin of
 * admin.kubeconfig), whatever RBAC says; impersonation is refused rather than evaluated.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { MASTERS_GROUP } from '../authorization/groups.js';
import { badRequest, StatusError, unauthorized } from '../machinery/status.js';
import type { GenericStore } from '../registry/generic-store.js';
import { exportStore, exportSubtree } from '../snapshot/export.js';
import { entryLine, headerLine, type Snapshot } from '../snapshot/format.js';
import { restoreSubtree } from '../snapshot/restore.js';
import type { Store } from '../storage/store.js';
import type { Authenticator } from './api-router.js';
import type { UserInfo } from './resource-handler.js';
import { sendJson } from './responses.js';

export const SNAPSHOT_PATH = '/kcpt/snapshot';
export const SNAPSHOT_RESTORE_PATH = '/kcpt/snapshot/restore';
/** A restore body is read whole; subtree snapshots of test fixtures and bug reports are far below this. */
export const MAX_RESTORE_BYTES = 512 * 1024 * 1024;
export const SQLITE_CONTENT_TYPE = 'application/vnd.sqlite3';
export const JSON_LINES_CONTENT_TYPE = 'application/jsonl';

export interface SnapshotRouteDeps {
  authenticator: Authenticator;
  store: Store;
  generic: GenericStore;
  resolvePath(path: string): string | undefined;
  externalUrl(): string;
  /** Where a SQLite backup is written before it is streamed (same file system as the database). */
  rootDirectory: string;
}

export function registerSnapshotRoutes(app: FastifyInstance, deps: SnapshotRouteDeps): void {
  app.get(SNAPSHOT_PATH, async (request, reply) => {
    await requireMasters(deps, request);
    const workspace = new URL(request.url, 'https://placeholder').searchParams.get('workspace');
    if (workspace !== null) return sendSnapshot(reply, exportSubtree(deps, workspace));
    if (!deps.store.backup) return sendSnapshot(reply, exportStore(deps.store));
    return sendBackup(deps, reply);
  });
  app.post(SNAPSHOT_RESTORE_PATH, { bodyLimit: MAX_RESTORE_BYTES }, async (request, reply) => {
    const user = await requireMasters(deps, request);
    const as = new URL(request.url, 'https://placeholder').searchParams.get('as');
    if (!as) throw badRequest('say where to restore the workspace: ?as=<new workspace path>');
    const body = request.body;
    if (!Buffer.isBuffer(body) || body.length === 0) throw badRequest('the request has no snapshot in its body');
    return sendJson(reply, 201, restoreSubtree(deps, body.toString('utf8'), as, user));
  });
}

async function requireMasters(deps: SnapshotRouteDeps, request: FastifyRequest): Promise<UserInfo> {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
  const user = match ? await deps.authenticator.authenticate(match[1]!) : undefined;
  if (!user) throw unauthorized();
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
