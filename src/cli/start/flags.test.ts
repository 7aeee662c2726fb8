import { describe, expect, it } from 'vitest';
import { serverArgv, shardEtcdServers, startFlagSpecs, StartUsageError, toServerOptions, type StartFlagValues } from './flags.js';

/** Parsed flags as the command hands them over: defaults, then what the user typed. */
const parsed = (given: StartFlagValues): StartFlagValues => ({
  ...Object.fromEntries(startFlagSpecs.filter((s) => s.default !== undefined).map((s) => [s.name, s.default])),
  ...given,
});
const storageOf = (given: StartFlagValues) => toServerOptions(parsed(given)).storage;

describe('kcpt start --etcd-* flags', () => {
  it('turn into the etcd:// storage URL the engine opens', () => {
    expect(storageOf({})).toBe('');
    expect(storageOf({ 'etcd-servers': 'http://127.0.0.1:2379' })).toBe('etcd://127.0.0.1:2379');
    expect(storageOf({ 'etcd-servers': 'http://10.0.0.1:2379, http://10.0.0.2:2379/', 'etcd-prefix': '/shard-a/' })).toBe(
      'etcd://10.0.0.1:2379,10.0.0.2:2379/shard-a',
    );
    expect(
      storageOf({ 'etcd-servers': 'https://etcd:2379', 'etcd-cafile': '/pki/ca.crt', 'etcd-certfile': '/pki/c.crt', 'etcd-keyfile': '/pki/c.key' }),
    ).toBe('etcd://etcd:2379?tls=true&cafile=%2Fpki%2Fca.crt&certfile=%2Fpki%2Fc.crt&keyfile=%2Fpki%2Fc.key');
  });

  it('reject combinations a person has to fix, saying how', () => {
    const usage = (given: StartFlagValues) => () => toServerOptions(parsed(given));
    expect(usage({ 'etcd-servers': 'http://a:1', storage: 'memory://' })).toThrow(/--storage and --etcd-servers/);
    expect(usage({ 'etcd-cafile': '/ca' })).toThrow(/--etcd-cafile needs --etcd-servers/);
    expect(usage({ 'etcd-servers': '127.0.0.1:2379' })).toThrow(/"127.0.0.1:2379" is not a client URL like http:\/\/127.0.0.1:2379/);
    expect(usage({ 'etcd-servers': 'http://a:1,https://b:2' })).toThrow(/not both/);
    expect(usage({ 'etcd-servers': 'http://a:1', 'etcd-certfile': '/c' })).toThrow(/go together/);
    expect(usage({ 'etcd-servers': 'http://a:1', 'etcd-prefix': 'shard' })).toThrow(/must start with \//);
    expect(usage({ 'etcd-servers': ' , ' })).toThrow(StartUsageError);
  });
});

describe('kcpt start --shard-* flags', () => {
  const usage = (given: StartFlagValues) => () => toServerOptions(parsed(given));
  it('make a non-root shard that knows its way to root', () => {
    const options = toServerOptions(
      parsed({ 'shard-name': 'shard-1', 'root-shard-kubeconfig': 'root.kubeconfig', 'shard-external-url': 'https://proxy.example:8443' }),
    );
    expect(options.shardName).toBe('shard-1');
    expect(options.rootShardKubeconfig).toMatch(/^\/.*root\.kubeconfig$/);
    expect(options.shardExternalUrl).toBe('https://proxy.example:8443');
    expect(toServerOptions(parsed({})).shardName).toBeUndefined();
  });

  it('reject combinations a person has to fix, saying how', () => {
    expect(usage({ 'shard-name': 'shard-1' })).toThrow(/needs --root-shard-kubeconfig/);
    expect(usage({ 'root-shard-kubeconfig': 'k' })).toThrow(/other than root/);
    expect(usage({ 'shard-name': 'Shard_1', 'root-shard-kubeconfig': 'k' })).toThrow(/DNS label/);
    expect(usage({ 'shard-base-url': 'http://127.0.0.1:1' })).toThrow(/is not a URL like https:/);
    expect(usage({ 'shard-base-url': 'https://127.0.0.1:1/shards/x' })).toThrow(/is not a URL like https:/);
    expect(usage({ 'shard-virtual-workspace-url': 'https://127.0.0.1:1/shards/x?y' })).toThrow(/is not a URL like https:/);
    expect(usage({ 'shard-virtual-workspace-url': 'https://127.0.0.1:1/shards/x' })).not.toThrow();
  });
});

describe('kcpt start --shards', () => {
  it('refuses flags that describe one shard, saying why', () => {
    const usage = (given: StartFlagValues) => () => toServerOptions(parsed(given));
    expect(usage({ shards: 3, 'shard-name': 'shard-1' })).toThrow(StartUsageError);
    expect(usage({ shards: 3, 'root-shard-kubeconfig': '/k' })).toThrow(/cannot be combined with --shard-name or --root-shard-kubeconfig/);
    expect(usage({ shards: 2, storage: 'sqlite:///tmp/one.db' })).toThrow(/each shard keeps its own/);
    expect(toServerOptions(parsed({ shards: 3, storage: 'memory://' })).storage).toBe('memory://');
  });
});

describe('kcpt start --shard-etcd-servers', () => {
  const usage = (given: StartFlagValues) => () => toServerOptions(parsed(given));
  it('puts named shards of a --shards cluster on etcd, several URLs each', () => {
    expect([...shardEtcdServers('shard-2=http://127.0.0.1:2379', 3)]).toEqual([['shard-2', 'http://127.0.0.1:2379']]);
    expect([...shardEtcdServers('shard-1=http://a:2379,http://b:2379, shard-2=http://c:2379', 3)]).toEqual([
      ['shard-1', 'http://a:2379,http://b:2379'],
      ['shard-2', 'http://c:2379'],
    ]);
    expect(toServerOptions(parsed({ shards: 3, 'shard-etcd-servers': 'root=http://127.0.0.1:2379' })).storage).toBe('');
  });
  it('refuses what names no shard of the cluster, or no URL, saying why', () => {
    expect(usage({ 'shard-etcd-servers': 'shard-1=http://a:2379' })).toThrow(/use it with --shards/);
    expect(usage({ shards: 2, 'shard-etcd-servers': 'shard-2=http://a:2379' })).toThrow(/"shard-2" is not a shard of this cluster \(--shards 2: root, shard-1\)/);
    expect(usage({ shards: 3, 'shard-etcd-servers': 'http://a:2379' })).toThrow(/names no shard: write NAME=URL/);
    expect(usage({ shards: 3, 'shard-etcd-servers': 'shard-1=a:2379' })).toThrow(/--shard-etcd-servers shard-1: "a:2379" is not a client URL/);
    expect(usage({ shards: 3, 'shard-etcd-servers': 'shard-1=http://a:2379,shard-1=http://b:2379' })).toThrow(/named twice/);
  });
});

describe('the argv of a detached server', () => {
  it('names only what differs from the defaults (no empty --storage or --etcd-prefix in ps)', () => {
    expect(serverArgv(parsed({ 'root-directory': '/tmp/kcp', detach: true, output: 'json' }))).toEqual(['--root-directory', '/tmp/kcp']);
    expect(serverArgv(parsed({ 'root-directory': '/r', 'secure-port': 0, 'home-workspaces-home-creator-groups': '', v: 1 }))).toEqual([
      '--root-directory', '/r', '--secure-port', '0', '--v', '1', '--home-workspaces-home-creator-groups', '',
    ]);
  });
});
