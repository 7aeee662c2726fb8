/**
 * Turns a URL into what the request is about, like k8s.io/apiserver's RequestInfoFactory plus kcp's
 * `/clusters/<path>` prefix: which logical cluster, whether it is a resource request, and which verb,
 * group, version, namespace, resource, name and subresource.
 */
import { isWatchQuery } from '../machinery/query-params.js';
import { badRequest } from '../machinery/status.js';

export interface ClusterTarget {
  /** `''` for the bare URL (no /clusters/ prefix), `'*'` for the wildcard, else the path as written. */
  path: string;
  wildcard: boolean;
}

export interface RequestInfo {
  cluster: ClusterTarget;
  /** The request path with the /clusters/<path> prefix removed. */
  path: string;
  isResourceRequest: boolean;
  /** get list watch create update patch delete deletecollection, or the HTTP method lowercased for non-resource. */
  verb: string;
  apiPrefix: 'api' | 'apis' | '';
  group: string;
  version: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
}

// A path segment of a workspace path: DNS-1123 label, or `system:` names, or `*`. kcp's regex for paths.
const clusterPathPattern = /^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?:)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
const systemClusterPattern = /^system:[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/** Splits `/clusters/<path>/rest` into the cluster path and the rest; validates the cluster path like kcp. */
export function splitClusterPrefix(urlPath: string): { cluster: ClusterTarget; rest: string } {
  if (!urlPath.startsWith('/clusters/')) return { cluster: { path: '', wildcard: false }, rest: urlPath };
  const after = urlPath.slice('/clusters/'.length);
  const slash = after.indexOf('/');
  const raw = slash === -1 ? after : after.slice(0, slash);
  const rest = slash === -1 ? '/' : after.slice(slash);
  let path = raw;
  // Decoding text without an escape gives it back unchanged: most paths have none.
  if (raw.includes('%')) {
    try {
      path = decodeURIComponent(raw);
    } catch {
      throw badRequest(`invalid cluster: ${JSON.stringify(raw)} does not match the regex`);
    }
  }
  if (path === '*') return { cluster: { path, wildcard: true }, rest };
  if (!clusterPathPattern.test(path) && !systemClusterPattern.test(path) && !isUserHomePath(path)) {
    throw badRequest(`invalid cluster: ${JSON.stringify(path)} does not match the regex`);
  }
  return { cluster: { path, wildcard: false }, rest };
}

/** `user:<name>[:child…]`: kcp's home alias; usernames may hold characters a path segment may not. */
function isUserHomePath(path: string): boolean {
  return /^user:[^/:]+(:[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/.test(path);
}

const namespaceSubresources = new Set(['status', 'finalize']);

export function parseRequestInfo(method: string, urlPath: string, query: URLSearchParams): RequestInfo {
  const { cluster, rest } = splitClusterPrefix(urlPath);
  const info: RequestInfo = {
    cluster,
    path: rest,
    isResourceRequest: false,
    verb: lowerMethods.get(method) ?? method.toLowerCase(),
    apiPrefix: '',
    group: '',
    version: '',
    namespace: '',
    resource: '',
    subresource: '',
    name: '',
  };
  // One array of segments, read from index `at` on (every request parses its path: no copies of it).
  const parts = pathSegments(rest);
  if (parts[0] !== 'api' && parts[0] !== 'apis') return info;
  info.apiPrefix = parts[0];
  let at = 1;
  if (info.apiPrefix === 'apis') {
    if (parts.length - at < 2) {
      if (parts.length - at === 1) info.group = parts[at]!;
      return info; // /apis or /apis/<group>: discovery
    }
    info.group = parts[at]!;
    info.version = parts[at + 1]!;
    at += 2;
  } else {
    if (parts.length - at < 1) return info; // /api: discovery
    info.version = parts[at]!;
    at += 1;
  }
  if (parts.length === at) return info; // /api/v1 or /apis/g/v: discovery

  info.isResourceRequest = true;
  // Deprecated `watch` path prefix: /api/v1/watch/namespaces/x/configmaps
  let watchPrefix = false;
  if (parts[at] === 'watch') {
    watchPrefix = true;
    at += 1;
  }
  const left = parts.length - at;
  if (parts[at] === 'namespaces' && left >= 3) {
    // /namespaces/<ns>/<resource>[/<name>[/<sub>]], except /namespaces/<name>/status|finalize
    if (left === 3 && namespaceSubresources.has(parts[at + 2]!)) {
      // kube names the namespace too (a RoleBinding in it may grant its status), as for /namespaces/<name> below.
      info.resource = 'namespaces';
      info.namespace = parts[at + 1]!;
      info.name = parts[at + 1]!;
      info.subresource = parts[at + 2]!;
    } else {
      info.namespace = parts[at + 1]!;
      info.resource = parts[at + 2]!;
      info.name = parts[at + 3] ?? '';
      info.subresource = joinedFrom(parts, at + 4);
    }
  } else {
    info.resource = parts[at]!;
    info.name = parts[at + 1] ?? '';
    info.subresource = joinedFrom(parts, at + 2);
    if (info.resource === 'namespaces' && info.name) info.namespace = info.name;
  }
  info.verb = resourceVerb(method, info.name, watchPrefix || isWatchQuery(query));
  return info;
}

/** The segments from `from` on joined by `/`; `''` (no array built) when there are none, as on most requests. */
function joinedFrom(parts: string[], from: number): string {
  return from >= parts.length ? '' : parts.slice(from).join('/');
}

/** The lowercase of the methods HTTP clients send, without a new string per request (a Map: any method may arrive). */
const lowerMethods = new Map(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'].map((m) => [m, m.toLowerCase()]));

/**
 * The decoded segments of a path, refusing what could make one object's path name another: `.`/`..` (also spelt
 * `%2e%2e`), a slash inside a segment (`%2f`), NUL, and empty segments (`a//b` is not `a/b`). A trailing slash is
 * allowed.
 */
export function pathSegments(path: string): string[] {
  // One pass of indexOf/slice (every request parses its path): what precedes the first slash is not a segment.
  const segments: string[] = [];
  let slash = path.indexOf('/');
  while (slash !== -1) {
    const next = path.indexOf('/', slash + 1);
    const segment = next === -1 ? path.slice(slash + 1) : path.slice(slash + 1, next);
    if (next === -1 && segment === '') break;
    segments.push(checkedSegment(segment));
    slash = next;
  }
  return segments;
}

function checkedSegment(segment: string): string {
  const decoded = segment.includes('%') ? safeDecode(segment) : segment;
  if (decoded === '' || decoded === '.' || decoded === '..' || decoded.includes('/') || decoded.includes('\0')) {
    throw badRequest(`invalid path segment ${JSON.stringify(segment)}`);
  }
  return decoded;
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw badRequest(`invalid path segment ${JSON.stringify(segment)}`);
  }
}

function resourceVerb(method: string, name: string, watch: boolean): string {
  switch (method.toUpperCase()) {
    case 'GET':
    case 'HEAD':
      if (watch) return 'watch';
      return name ? 'get' : 'list';
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return name ? 'delete' : 'deletecollection';
    default:
      return method.toLowerCase();
  }
}
