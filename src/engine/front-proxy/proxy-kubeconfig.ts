/**
 * The proxy's admin.kubeconfig: the root kubeconfig's users and contexts, with every cluster's server moved to
 * the proxy (the `/clusters/…` path kept) and the proxy's CA. Users then reach every shard through one URL.
 */
import { readFile } from 'node:fs/promises';
import { parse, stringify } from 'yaml';
import { writeFileAtomic } from '../auth/files.js';

export interface ProxyKubeconfigOptions {
  from: string;
  to: string;
  proxyUrl: string;
  caPem: string;
}

interface KubeconfigClusters {
  clusters?: Array<{ name: string; cluster?: Record<string, unknown> & { server?: string } }>;
}

export function pointKubeconfigAt(text: string, proxyUrl: string, caPem: string): string {
  const doc = (parse(text) ?? {}) as KubeconfigClusters;
  const caData = Buffer.from(caPem, 'utf8').toString('base64');
  for (const entry of doc.clusters ?? []) {
    const cluster = entry.cluster ?? (entry.cluster = {});
    let suffix = '';
    try {
      suffix = new URL(cluster.server ?? '').pathname.replace(/\/+$/, '');
    } catch {
      // no usable server: the proxy's base URL
    }
    cluster.server = `${proxyUrl}${suffix}`;
    delete cluster['certificate-authority'];
    delete cluster['insecure-skip-tls-verify'];
    cluster['certificate-authority-data'] = caData;
  }
  return stringify(doc, { lineWidth: 0, indentSeq: false });
}

export async function writeProxyKubeconfig(options: ProxyKubeconfigOptions): Promise<void> {
  const text = await readFile(options.from, 'utf8');
  await writeFileAtomic(options.to, pointKubeconfigAt(text, options.proxyUrl, options.caPem), 0o600);
}
