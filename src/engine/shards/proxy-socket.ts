/**
 * `kcpt start --proxy-socket PATH`: the shard also serves its API in plaintext HTTP/1.1 on a unix domain socket, for
 * a front-proxy on the same machine. The proxy → shard hop then costs no TLS on either side (about half of a
 * proxied GET's CPU was the TLS writes of the two hops). Requests on the socket go through exactly the same
 * handler as the HTTPS listener: identity still comes from the forwarded `Authorization` header, which the shard
 * authenticates itself, so nothing is trusted because of where a request came from.
 *
 * Who may connect is decided by the file system: the socket is mode 0600 (only the shard's user) inside the
 * shard's root directory (0700), so only processes of the user running the shard can open it — the same user
 * who can read the shard's admin.kubeconfig and database anyway.
 */
import { chmodSync, lstatSync, unlinkSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { IDLE_TIMEOUT_MS } from '../endpoints/connection-deadlines.js';

/** Linux's limit for a socket path (sun_path is 108 bytes, one for the terminating NUL). */
const MAX_SOCKET_PATH_BYTES = 107;

export interface ProxySocket {
  path: string;
  close(): Promise<void>;
}

/** Where the socket goes: a relative PATH is inside the root directory, an absolute one must be too. */
export function proxySocketPath(rootDirectory: string, socket: string): string {
  const root = path.resolve(rootDirectory);
  const full = path.resolve(root, socket);
  const relative = path.relative(root, full);
  if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) {
    throw new Error(`--proxy-socket ${socket}: the socket must be inside the root directory ${root} (only its owner may open it)`);
  }
  if (!fitsSocketPath(full)) {
    throw new Error(`--proxy-socket ${socket}: ${full} is longer than the ${MAX_SOCKET_PATH_BYTES} bytes a unix socket path may have; use a shorter root directory`);
  }
  return full;
}

/** Whether a unix socket can have this path (Linux refuses longer ones). */
export function fitsSocketPath(socketPath: string): boolean {
  return Buffer.byteLength(socketPath) <= MAX_SOCKET_PATH_BYTES;
}

/**
 * Listens on `socketPath` with `handler` (the HTTPS server's request handler). A socket file left by a shard that
 * did not stop cleanly is replaced (the root directory's lock says no other process owns it); any other kind of
 * file there is an error, not something to delete.
 */
export async function listenProxySocket(socketPath: string, handler: http.RequestListener): Promise<ProxySocket> {
  removeStaleSocket(socketPath);
  const server = http.createServer({ keepAlive: true }, handler);
  // As on the HTTPS listener: watches last as long as their clients want.
  server.requestTimeout = 0;
  server.headersTimeout = 60_000;
  // Idle connections outlive the proxy's own idle limit (forwarder.ts), so the proxy always closes first: with Node's
  // 5 s default a busy proxy could reuse a connection the shard was closing and lose a forwarded request.
  server.keepAliveTimeout = IDLE_TIMEOUT_MS;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => {
      server.off('error', reject);
      resolve();
    });
  });
  // The root directory is 0700, so nobody else could reach the socket before this either.
  chmodSync(socketPath, 0o600);
  let closing: Promise<void> | undefined;
  return {
    path: socketPath,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        // The proxy keeps connections alive (and watches open): end them so close() does not wait on them.
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

function removeStaleSocket(socketPath: string): void {
  let stat;
  try {
    stat = lstatSync(socketPath);
  } catch {
    return;
  }
  if (!stat.isSocket()) throw new Error(`--proxy-socket ${socketPath}: a file that is not a socket is in the way`);
  unlinkSync(socketPath);
}
