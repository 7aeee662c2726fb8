/**
 * `kcpt version`: kubectl version's layout and data (`clientVersion`, `serverVersion` with -o), the client being
 * kcpt itself. The server is asked for `/version` (no credentials needed, as kube-apiserver serves it to anyone).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { FlagValues } from '../common/command-spec.js';
import { connectionFlagValues } from '../common/connection-flags.js';
import { resolveConfig } from '../common/connection.js';
import { KubeClient } from '../../client/http-client.js';
import type { Io } from '../common/io.js';
import { printData, type OutputFormat } from '../common/output.js';
import { kcptPackageRoot } from '../server/package-root.js';

export interface ClientVersion {
  kcpt: string;
  node: string;
  platform: string;
}

/** The Kubernetes version.Info a server answers `/version` with. */
export interface ServerVersion {
  major?: string;
  minor?: string;
  gitVersion?: string;
  platform?: string;
  [k: string]: unknown;
}

export function clientVersion(): ClientVersion {
  const manifest = JSON.parse(readFileSync(path.join(kcptPackageRoot(), 'package.json'), 'utf8')) as { version: string };
  return { kcpt: manifest.version, node: process.version, platform: `${process.platform}/${process.arch}` };
}

export async function runVersion(io: Io, flags: FlagValues, opts: { clientOnly: boolean; output?: OutputFormat }): Promise<void> {
  const client = clientVersion();
  let server: ServerVersion | undefined;
  let url: string | undefined;
  let failure: unknown;
  if (!opts.clientOnly) {
    try {
      const config = resolveConfig(connectionFlagValues(flags));
      const api = new KubeClient(config.connection);
      url = api.baseUrl;
      try {
        server = await api.get<ServerVersion>('/version');
      } finally {
        api.close();
      }
    } catch (err) {
      failure = err;
    }
  }
  if (opts.output) await printData(io, opts.output, { clientVersion: client, ...(server ? { serverVersion: server } : {}) });
  else {
    io.out(`Client Version: kcpt ${client.kcpt} (Node.js ${client.node}, ${client.platform})\n`);
    if (server) io.out(`Server Version: ${server.gitVersion ?? 'unknown'} (Kubernetes ${server.major}.${server.minor}) at ${url}\n`);
  }
  if (failure) throw failure;
}
