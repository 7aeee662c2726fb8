import { describe, expect, it } from 'vitest';
import { StatusError } from '../machinery/status.js';
import { parseRequestInfo, pathSegments } from './request-info.js';

const refused = (path: string) => {
  try {
    parseRequestInfo('DELETE', path, new URLSearchParams());
  } catch (err) {
    expect(err).toBeInstanceOf(StatusError);
    expect((err as StatusError).code).toBe(400);
    expect((err as StatusError).message).toMatch(/^invalid path segment /);
    return;
  }
  throw new Error(`${path} was accepted`);
};

describe('path segments', () => {
  it('decodes percent-escapes and allows one trailing slash', () => {
    expect(pathSegments('/api/v1/namespaces/')).toEqual(['api', 'v1', 'namespaces']);
    expect(pathSegments('/api/v1/namespaces/a%2Db')).toEqual(['api', 'v1', 'namespaces', 'a-b']);
    expect(pathSegments('/')).toEqual([]);
  });

  // Found by the fuzzer: `configmaps/%2e%2e` decoded to `..` and DELETE removed the namespace itself;
  // `configmaps/%2E` and `ns//configmaps` turned a single-object DELETE into a deletecollection.
  it.each([
    '/clusters/root/api/v1/namespaces/ns/configmaps/%2e%2e',
    '/clusters/root/api/v1/namespaces/ns/configmaps/%2E',
    '/clusters/root/api/v1/namespaces/ns//configmaps',
    '/clusters/root/api/v1/namespaces/ns/configmaps/a%2fb',
    '/clusters/root/api/v1/namespaces/ns/configmaps/a%00',
    '/clusters/root/api/v1/namespaces/ns/configmaps/%ff',
  ])('refuses %s with 400', (path) => refused(path));

  it('still parses an object path', () => {
    const info = parseRequestInfo('DELETE', '/clusters/root/api/v1/namespaces/ns/configmaps/cm', new URLSearchParams());
    expect(info).toMatchObject({ namespace: 'ns', resource: 'configmaps', name: 'cm', verb: 'delete' });
  });
});

describe('requestTarget', () => {
  it('keeps the path exactly as sent: no dot-segment resolution, %2e%2e included', async () => {
    const { requestTarget } = await import('./api-router.js');
    // Found by the fuzzer: through a WHATWG URL, DELETE …/configmaps/%2e%2e deleted the namespace.
    expect(requestTarget('/clusters/root/api/v1/namespaces/ns/configmaps/%2e%2e?dryRun=All')).toMatchObject({
      pathname: '/clusters/root/api/v1/namespaces/ns/configmaps/%2e%2e',
    });
    expect(requestTarget('/a/./b?x=1&y=%20').searchParams.get('y')).toBe(' ');
    expect(requestTarget('/a/../b').pathname).toBe('/a/../b');
  });
});

describe('request info', () => {
  const info = (method: string, path: string, query = '') => {
    const { cluster, path: rest, isResourceRequest, verb, apiPrefix, group, version, namespace, resource, subresource, name } = parseRequestInfo(method, path, new URLSearchParams(query));
    return { cluster: cluster.path, rest, isResourceRequest, verb, apiPrefix, group, version, namespace, resource, subresource, name };
  };
  const none = { isResourceRequest: false, apiPrefix: '', group: '', version: '', namespace: '', resource: '', subresource: '', name: '' };

  it('reads discovery paths as non-resource requests', () => {
    expect(info('GET', '/clusters/root/apis')).toEqual({ ...none, cluster: 'root', rest: '/apis', verb: 'get', apiPrefix: 'apis' });
    expect(info('GET', '/apis/apps')).toEqual({ ...none, cluster: '', rest: '/apis/apps', verb: 'get', apiPrefix: 'apis', group: 'apps' });
    expect(info('GET', '/apis/apps/v1')).toEqual({ ...none, cluster: '', rest: '/apis/apps/v1', verb: 'get', apiPrefix: 'apis', group: 'apps', version: 'v1' });
    expect(info('GET', '/api')).toEqual({ ...none, cluster: '', rest: '/api', verb: 'get', apiPrefix: 'api' });
    expect(info('GET', '/api/v1')).toEqual({ ...none, cluster: '', rest: '/api/v1', verb: 'get', apiPrefix: 'api', version: 'v1' });
    expect(info('HEAD', '/healthz')).toEqual({ ...none, cluster: '', rest: '/healthz', verb: 'head' });
  });

  it('reads the resource, name, namespace and subresource of each path form', () => {
    expect(info('GET', '/clusters/root/api/v1/namespaces/default/configmaps/cm')).toMatchObject({ isResourceRequest: true, verb: 'get', version: 'v1', namespace: 'default', resource: 'configmaps', name: 'cm', subresource: '' });
    expect(info('PUT', '/apis/apps/v1/namespaces/ns/deployments/d/scale')).toMatchObject({ verb: 'update', group: 'apps', namespace: 'ns', resource: 'deployments', name: 'd', subresource: 'scale' });
    expect(info('PUT', '/api/v1/namespaces/ns/status')).toMatchObject({ verb: 'update', namespace: 'ns', resource: 'namespaces', name: 'ns', subresource: 'status' });
    expect(info('PUT', '/api/v1/namespaces/ns/finalize')).toMatchObject({ verb: 'update', namespace: 'ns', resource: 'namespaces', name: 'ns', subresource: 'finalize' });
    expect(info('GET', '/api/v1/namespaces/ns')).toMatchObject({ verb: 'get', namespace: 'ns', resource: 'namespaces', name: 'ns' });
    expect(info('GET', '/apis/g/v1/things/a/b/c')).toMatchObject({ verb: 'get', namespace: '', resource: 'things', name: 'a', subresource: 'b/c' });
    expect(info('GET', '/api/v1/namespaces/ns/pods/p/x/y')).toMatchObject({ namespace: 'ns', resource: 'pods', name: 'p', subresource: 'x/y' });
    expect(info('GET', '/api/v1/watch/namespaces/ns/configmaps')).toMatchObject({ verb: 'watch', namespace: 'ns', resource: 'configmaps', name: '' });
    expect(info('GET', '/api/v1/configmaps', 'watch=true')).toMatchObject({ verb: 'watch', resource: 'configmaps' });
    expect(info('DELETE', '/api/v1/namespaces/ns/configmaps')).toMatchObject({ verb: 'deletecollection' });
  });

  it('lowercases any method for a non-resource request, whatever its name', () => {
    expect(info('OPTIONS', '/version').verb).toBe('options');
    expect(info('PROPFIND', '/version').verb).toBe('propfind');
    expect(info('constructor', '/version').verb).toBe('constructor');
  });
});
