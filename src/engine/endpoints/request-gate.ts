/**
 * Authentication before anything else is spent on a request: before an in-flight slot is taken and before a byte
 * of its body is read (fastify reads bodies after the onRequest hooks). A request with a bad token, or without
 * one anywhere but the public health and version endpoints, is answered 401 at once; nobody reaches the server's
 * budgets or memory without credentials. The user found here is what the router serves the request as.
 */
import type { FastifyRequest } from 'fastify';
import { unauthorized } from '../machinery/status.js';
import { isPublicPath } from './non-resource.js';
import type { Authenticator, UserInfo } from '../auth/user.js';

export const ANONYMOUS: UserInfo = Object.freeze({ username: 'system:anonymous', groups: ['system:unauthenticated'] });

/** Where the gate leaves the user on the request: a property, as a WeakMap entry per request cost ~0.9 µs with GC. */
const USER = Symbol('authenticated user');
type Gated = { [USER]?: UserInfo };

/** The user the gate authenticated `request` as (undefined for a request the gate did not see). */
export function authenticatedUser(request: FastifyRequest): UserInfo | undefined {
  return (request.raw as Gated)[USER];
}

/**
 * Who a request is: its bearer token's user; anonymous for a public read without credentials. Throws 401 for a
 * token nobody issued and for an anonymous request anywhere else (kube's anonymous user may read only these paths).
 */
export function authenticateRequest(authenticator: Authenticator, method: string, path: string, authorization: string | undefined): UserInfo | Promise<UserInfo> {
  if (!authorization) {
    if ((method === 'GET' || method === 'HEAD') && isPublicPath(publicPathOf(path))) return ANONYMOUS;
    throw unauthorized();
  }
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  const user = match ? authenticator.authenticate(match[1]!) : undefined;
  return user instanceof Promise ? user.then(knownOr401) : knownOr401(user);
}

function knownOr401(user: UserInfo | undefined): UserInfo {
  if (!user) throw unauthorized();
  return user;
}

/**
 * Authenticates a request and records its user for authenticatedUser(); a promise when the token is answered
 * asynchronously. Throws (or rejects with) the 401 StatusError.
 */
export function gateRequest(authenticator: Authenticator, request: FastifyRequest): UserInfo | Promise<UserInfo> {
  const user = authenticateRequest(authenticator, request.method, request.url, request.headers.authorization);
  if (user instanceof Promise) {
    return user.then((known) => {
      (request.raw as Gated)[USER] = known;
      return known;
    });
  }
  (request.raw as Gated)[USER] = user;
  return user;
}

/** The path without its query, and without a `/clusters/<name>` prefix (health checks answer under it too). */
function publicPathOf(url: string): string {
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  const inCluster = /^\/clusters\/[^/]+(\/.*)$/.exec(path);
  return inCluster ? inCluster[1]! : path;
}
