import { describe, expect, it } from 'vitest';
import { isLongRunning, isReadOnly } from './inflight-limit.js';

describe('which requests the in-flight limits count', () => {
  it('leaves watches out, by query or by the deprecated /watch/ path, and counts everything else', () => {
    expect(isLongRunning('GET', '/clusters/root/api/v1/configmaps?watch=true')).toBe(true);
    expect(isLongRunning('GET', '/clusters/root/api/v1/configmaps?labelSelector=a&watch=1')).toBe(true);
    expect(isLongRunning('GET', '/api/v1/watch/namespaces/default/configmaps')).toBe(true);
    expect(isLongRunning('GET', '/clusters/root/api/v1/configmaps?watch=false')).toBe(false);
    expect(isLongRunning('GET', '/clusters/root/api/v1/namespaces/default/configmaps/watcher')).toBe(false);
    expect(isLongRunning('POST', '/clusters/root/api/v1/configmaps?watch=true')).toBe(false);
  });

  it('splits reads from writes like kube (GET, HEAD, OPTIONS read; the rest mutate)', () => {
    expect(['GET', 'HEAD', 'OPTIONS'].every(isReadOnly)).toBe(true);
    expect(['POST', 'PUT', 'PATCH', 'DELETE'].some(isReadOnly)).toBe(false);
  });
});
