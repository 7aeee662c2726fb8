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
