import { describe, expect, it } from 'vitest';
import { completeOptions, serverUrls, type ServerOptions } from './options.js';

const base: ServerOptions = { rootDirectory: '.kcp', securePort: 0, bindAddress: '127.0.0.1', storage: '', log: () => {} };

describe('completeOptions', () => {
  it('fills in kcp’s defaults', () => {
    const config = completeOptions(base);
    expect([...config.batteries]).toEqual(['admin', 'workspace-types']);
    expect(config.verbosity).toBe(0);
    expect(config.shard).toEqual({ name: 'root', isRoot: true, rootShardKubeconfig: undefined, baseUrl: undefined, externalUrl: undefined, virtualWorkspaceUrl: undefined });
    expect(config.homes).toEqual({ prefix: 'root:users', levels: 2, size: 2 });
    expect(config.homeCreatorGroups).toEqual(['system:authenticated']);
    expect(config.inflight).toEqual({ readOnly: 400, mutating: 200, watchesPerUser: 500 });
    expect(config.logicalClusterTotalObjectLimit).toBe(0);
    expect(config.certificateHosts).toEqual(['127.0.0.1']);
  });

  it('refuses a non-root shard without a way to root, and ignores a root kubeconfig given to root', () => {
    expect(() => completeOptions({ ...base, shardName: 'shard-1' })).toThrow('shard shard-1 is not the root shard: it needs --root-shard-kubeconfig to reach root');
    expect(completeOptions({ ...base, shardName: 'shard-1', rootShardKubeconfig: 'root.kubeconfig' }).shard).toMatchObject({ isRoot: false, rootShardKubeconfig: 'root.kubeconfig' });
    expect(completeOptions({ ...base, rootShardKubeconfig: 'root.kubeconfig' }).shard.rootShardKubeconfig).toBeUndefined();
  });

  it('names every URL’s host in the serving certificate, IPv6 without brackets', () => {
    const config = completeOptions({
      ...base,
      shardBaseUrl: 'https://shard-1.example:6444/',
      shardExternalUrl: 'https://[::1]:8443',
      shardVirtualWorkspaceUrl: 'https://vw.example',
    });
    expect(config.certificateHosts).toEqual(['127.0.0.1', 'shard-1.example', '::1', 'vw.example']);
  });

  it('logs debug lines only when verbose', () => {
    const lines: string[] = [];
    completeOptions({ ...base, log: (l) => lines.push(l) }).debug('quiet');
    completeOptions({ ...base, verbosity: 1, log: (l) => lines.push(l) }).debug('chatty');
    expect(lines).toEqual(['chatty']);
  });
});

describe('serverUrls', () => {
  it('derives every URL from the listen address unless set, trailing slashes dropped', () => {
    expect(serverUrls(completeOptions(base), 6443)).toEqual({
      port: 6443,
      listenUrl: 'https://127.0.0.1:6443',
      baseUrl: 'https://127.0.0.1:6443',
      externalUrl: 'https://127.0.0.1:6443',
      virtualWorkspaceUrl: 'https://127.0.0.1:6443',
      serverAddress: '127.0.0.1:6443',
    });
    const proxied = completeOptions({ ...base, bindAddress: '::1', shardBaseUrl: 'https://shard:6444/', shardExternalUrl: 'https://proxy:443//' });
    expect(serverUrls(proxied, 6444)).toEqual({
      port: 6444,
      listenUrl: 'https://[::1]:6444',
      baseUrl: 'https://shard:6444',
      externalUrl: 'https://proxy:443',
      virtualWorkspaceUrl: 'https://shard:6444',
      serverAddress: '[::1]:6444',
    });
  });
});
