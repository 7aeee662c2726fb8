/**
 * A kubeconfig with exactly one cluster, context and user, named after the workspace, laid out as kubectl writes
 * one (keys in clientcmd's order), so that a tool given only this file reaches that workspace as that user.
 */
import type { Connection } from './connection.js';

export interface StandaloneKubeconfigInput {
  /** `<base>/clusters/<path>` */
  server: string;
  workspace: string;
  userName: string;
  /** Credentials of the user; the TLS settings come from the connection as well. */
  connection: Pick<Connection, 'ca' | 'insecureSkipTLSVerify' | 'tlsServerName' | 'token' | 'clientCert' | 'clientKey' | 'basicAuth'>;
  namespace?: string;
}

export interface KubeconfigDocument {
  apiVersion: 'v1';
  clusters: { cluster: Record<string, string | boolean>; name: string }[];
  contexts: { context: Record<string, string>; name: string }[];
  'current-context': string;
  kind: 'Config';
  preferences: Record<string, never>;
  users: { name: string; user: Record<string, string> }[];
}

export function standaloneKubeconfig(input: StandaloneKubeconfigInput): KubeconfigDocument {
  const { connection: c } = input;
  const cluster: Record<string, string | boolean> = {};
  if (c.ca) cluster['certificate-authority-data'] = c.ca.toString('base64');
  if (c.insecureSkipTLSVerify) cluster['insecure-skip-tls-verify'] = true;
  cluster.server = input.server;
  if (c.tlsServerName) cluster['tls-server-name'] = c.tlsServerName;

  const user: Record<string, string> = {};
  if (c.clientCert) user['client-certificate-data'] = c.clientCert.toString('base64');
  if (c.clientKey) user['client-key-data'] = c.clientKey.toString('base64');
  if (c.basicAuth) {
    user.password = c.basicAuth.password;
    user.username = c.basicAuth.username;
  }
  if (c.token) user.token = c.token;

  const context: Record<string, string> = { cluster: input.workspace };
  if (input.namespace) context.namespace = input.namespace;
  context.user = input.userName;

  return {
    apiVersion: 'v1',
    clusters: [{ cluster, name: input.workspace }],
    contexts: [{ context, name: input.workspace }],
    'current-context': input.workspace,
    kind: 'Config',
    preferences: {},
    users: [{ name: input.userName, user }],
  };
}

/** Whether the connection carries anything that authenticates. */
export function hasCredentials(c: StandaloneKubeconfigInput['connection']): boolean {
  return Boolean(c.token || c.basicAuth || (c.clientCert && c.clientKey));
}
