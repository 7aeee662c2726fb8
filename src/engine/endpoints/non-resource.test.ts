import { describe, expect, it } from 'vitest';
import { isHealthPath, isPublicPath } from './non-resource.js';

describe('isHealthPath', () => {
  it('is every health endpoint and its named checks', () => {
    for (const path of ['/healthz', '/livez', '/readyz', '/healthz/ping', '/livez/etcd', '/readyz/informer-sync', '/readyz/']) {
      expect(isHealthPath(path), path).toBe(true);
    }
  });

  it('is no other path, however close', () => {
    for (const path of ['/', '/healthzz', '/livez-x', '/readyzx/ping', '/api/healthz', '/clusters/root/healthz', '/clusters/root/api/v1/namespaces/default/configmaps/x', '/version']) {
      expect(isHealthPath(path), path).toBe(false);
    }
  });

  it('makes health endpoints public, with /version', () => {
    expect(isPublicPath('/version')).toBe(true);
    expect(isPublicPath('/readyz/ping')).toBe(true);
    expect(isPublicPath('/api')).toBe(false);
  });
});
