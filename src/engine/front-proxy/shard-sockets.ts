/**
 * `kcpt front-proxy --shard-socket NAME=PATH` (repeatable): the shards on this machine the proxy reaches over
 * their `--proxy-socket` instead of TLS. Naming the shard (not its URL) keeps the mapping valid when a shard's
 * base URL changes, and the path is given here, on the proxy, rather than read from the Shard object: the
 * proxy only ever connects to sockets its operator named.
 */
import path from 'node:path';

export class ShardSocketFlagError extends Error {}

export function parseShardSockets(values: readonly string[]): Map<string, string> {
  const sockets = new Map<string, string>();
  for (const value of values) {
    const eq = value.indexOf('=');
    const name = eq === -1 ? '' : value.slice(0, eq);
    const socket = eq === -1 ? '' : value.slice(eq + 1).replace(/^unix:/, '');
    if (!/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/.test(name) || socket === '') {
      throw new ShardSocketFlagError(`--shard-socket ${JSON.stringify(value)}: expected NAME=PATH, e.g. shard-1=/var/lib/kcpt/shard-1/proxy.sock`);
    }
    if (sockets.has(name)) throw new ShardSocketFlagError(`--shard-socket: shard ${name} is given twice`);
    sockets.set(name, path.resolve(socket));
  }
  return sockets;
}
