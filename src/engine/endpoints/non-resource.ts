/** Endpoints outside the API groups: /version, health checks. */
import { methodNotAllowed } from '../machinery/status.js';

export const serverVersion = {
  major: '1',
  // kubectl's version-skew dispatcher picks a kubectl binary from `minor`: it must say 32.
  minor: '32',
  gitVersion: 'v1.32.4+kcpt',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2026-11-22T00:00:00Z',
  goVersion: 'go1.23.8',
  compiler: 'gc',
  platform: `${process.platform}/${process.arch === 'x64' ? 'amd64' : process.arch}`,
};

export const healthPaths = new Set(['/healthz', '/livez', '/readyz']);

/** `/healthz/`, `/livez/`, `/readyz/`: built once, as every request's path is tested against them. */
const healthPrefixes = [...healthPaths].map((p) => `${p}/`);

export function isHealthPath(path: string): boolean {
  if (healthPaths.has(path)) return true;
  for (const prefix of healthPrefixes) if (path.startsWith(prefix)) return true;
  return false;
}

/** Paths anyone may read without credentials (kube's system:public-info-viewer). */
export function isPublicPath(path: string): boolean {
  return path === '/version' || path === '/version/' || isHealthPath(path);
}

/** The methods kube-apiserver routes; any other (PROPFIND, TRACE, …) is a 405 on every path, once the caller is known. */
const ROUTED_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

export function refuseUnroutedMethod(method: string): void {
  if (!ROUTED_METHODS.has(method)) throw methodNotAllowed(`the server does not allow the method ${method.slice(0, 32)}`);
}
