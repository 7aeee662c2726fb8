/**
 * Writes `admin.kubeconfig` in kcp's layout (§5): three clusters (`root`, `base`, `system:admin`), the admin
 * users, and contexts pairing them, current context `root`. Entries are sorted by name and keys laid out the way
 * client-go's clientcmd writes them, so the file looks like the one kcp produces and diffs stay quiet when kubectl
 * later rewrites it (e.g. `kubectl ws` switching contexts).
 */

import { stringify } from 'yaml';
import { writeFileAtomic } from './files.js';
import { BATTERY_USER, KCP_ADMIN_USER, SHARD_ADMIN_USER, type AdminTokens } from './token-store.js';

export interface AdminKubeconfigOptions {
  path: string;
  /** `https://<external address>` with no trailing path, e.g. `https://127.0.0.1:6443`. */
  baseUrl: string;
  caCertPem: string;
  tokens: AdminTokens;
  /** Enabled batteries; the `user` entries are written only when `user` is among them and a token exists. */
  batteries?: Iterable<string>;
}

// Field order matters for the output: clientcmd emits keys alphabetically (`cluster` before `name`).
export interface NamedCluster {
  cluster: { 'certificate-authority-data': string; server: string };
  name: string;
}
export interface NamedContext {
  context: { cluster: string; user: string };
  name: string;
}
export interface NamedUser {
  name: string;
  user: { token: string };
}

/** Writes the file; returns what it holds, so a caller in the same process need not read the YAML back. */
export async function writeAdminKubeconfig(options: AdminKubeconfigOptions): Promise<AdminKubeconfigDocument> {
  const doc = adminKubeconfigDocument(options);
  await writeFileAtomic(options.path, renderKubeconfigText(doc), 0o600);
  return doc;
}

export function renderAdminKubeconfig(options: Omit<AdminKubeconfigOptions, 'path'>): string {
  return renderKubeconfigText(adminKubeconfigDocument(options));
}

function renderKubeconfigText(doc: AdminKubeconfigDocument): string {
  // lineWidth 0: never fold the long base64 CA line; indentSeq false: `- ` at the parent's column, like clientcmd.
  return stringify(doc, { lineWidth: 0, indentSeq: false });
}

export interface AdminKubeconfigDocument {
  apiVersion: 'v1';
  clusters: NamedCluster[];
  contexts: NamedContext[];
  'current-context': string;
  kind: 'Config';
  preferences: Record<string, never>;
  users: NamedUser[];
}

function adminKubeconfigDocument(options: Omit<AdminKubeconfigOptions, 'path'>): AdminKubeconfigDocument {
  const base = options.baseUrl.replace(/\/+$/, '');
  const caData = Buffer.from(options.caCertPem, 'utf8').toString('base64');
  const batteries = options.batteries === undefined ? undefined : new Set(options.batteries);
  const withUser = options.tokens.user !== undefined && (batteries === undefined || batteries.has(BATTERY_USER));

  const cluster = (name: string, server: string): NamedCluster => ({
    cluster: { 'certificate-authority-data': caData, server },
    name,
  });
  const context = (name: string, clusterName: string, user: string): NamedContext => ({
    context: { cluster: clusterName, user },
    name,
  });

  const clusters = [
    cluster('root', `${base}/clusters/root`),
    cluster('base', base),
    cluster('system:admin', `${base}/clusters/system:admin`),
  ];
  const contexts = [
    context('root', 'root', KCP_ADMIN_USER),
    context('base', 'base', KCP_ADMIN_USER),
    context('system:admin', 'system:admin', SHARD_ADMIN_USER),
    context('shard-base', 'base', SHARD_ADMIN_USER),
  ];
  const users: NamedUser[] = [
    { name: KCP_ADMIN_USER, user: { token: options.tokens.kcpAdmin } },
    { name: SHARD_ADMIN_USER, user: { token: options.tokens.shardAdmin } },
  ];
  if (withUser) {
    contexts.push(context(BATTERY_USER, 'root', BATTERY_USER));
    users.push({ name: BATTERY_USER, user: { token: options.tokens.user! } });
  }

  const byName = <T extends { name: string }>(a: T, b: T) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  return {
    apiVersion: 'v1',
    clusters: clusters.sort(byName),
    contexts: contexts.sort(byName),
    'current-context': 'root',
    kind: 'Config',
    preferences: {},
    users: users.sort(byName),
  };
}
