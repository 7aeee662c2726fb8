/**
 * The front-proxy reaches the shards with the identity of `--root-kubeconfig`: its server (the root shard), its
 * bearer token and its CA. Watching every shard's Workspaces and LogicalClusters needs a wildcard request
 * (`/clusters/*`), which only system:masters may make, so a kcpt admin.kubeconfig is read at its `shard-base`
 * context (shard-admin) unless a context is named.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

export interface Credentials {
  /** The root shard's URL with any `/clusters/…` suffix removed. */
  server: string;
  token?: string;
  /** PEM CA bundle the server's certificate is checked against (system roots when absent). */
  caPem?: string;
  insecureSkipTLSVerify?: boolean;
}

interface KubeconfigFile {
  'current-context'?: string;
  contexts?: Array<{ name: string; context?: { cluster?: string; user?: string } }>;
  clusters?: Array<{
    name: string;
    cluster?: { server?: string; 'certificate-authority-data'?: string; 'certificate-authority'?: string; 'insecure-skip-tls-verify'?: boolean };
  }>;
  users?: Array<{ name: string; user?: { token?: string; tokenFile?: string } }>;
}

export const PRIVILEGED_CONTEXT = 'shard-base';

export function readCredentials(file: string, context?: string): Credentials {
  let doc: KubeconfigFile;
  try {
    doc = (parse(readFileSync(file, 'utf8')) ?? {}) as KubeconfigFile;
  } catch (err) {
    throw new Error(`cannot read kubeconfig ${file}: ${(err as Error).message}`);
  }
  const names = (doc.contexts ?? []).map((c) => c.name);
  const wanted = context ?? (names.includes(PRIVILEGED_CONTEXT) ? PRIVILEGED_CONTEXT : doc['current-context']);
  const ctx = doc.contexts?.find((c) => c.name === wanted)?.context;
  if (!ctx) throw new Error(`kubeconfig ${file} has no context ${JSON.stringify(wanted ?? '')}`);
  const cluster = doc.clusters?.find((c) => c.name === ctx.cluster)?.cluster;
  if (!cluster?.server) throw new Error(`kubeconfig ${file}: context ${wanted} names cluster ${JSON.stringify(ctx.cluster)}, which has no server`);
  const user = doc.users?.find((u) => u.name === ctx.user)?.user ?? {};
  const token = user.token ?? (user.tokenFile ? readFileSync(user.tokenFile, 'utf8').trim() : undefined);
  const caPem = cluster['certificate-authority-data']
    ? Buffer.from(cluster['certificate-authority-data'], 'base64').toString('utf8')
    : cluster['certificate-authority']
      ? readFileSync(cluster['certificate-authority'], 'utf8')
      : undefined;
  return {
    server: cluster.server.replace(/\/clusters\/[^/]+\/?$/, '').replace(/\/+$/, ''),
    ...(token ? { token } : {}),
    ...(caPem ? { caPem } : {}),
    ...(cluster['insecure-skip-tls-verify'] ? { insecureSkipTLSVerify: true } : {}),
  };
}
