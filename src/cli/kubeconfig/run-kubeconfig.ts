/**
 * `kcpt kubeconfig`: resolve the workspace and the credentials, (for a service account) issue a token with a
 * TokenRequest, try the credentials against the workspace, then print or write the standalone kubeconfig.
 * Trying first means a CI job finds out about a wrong token or a missing grant here, not in its first kubectl call.
 */
import path from 'node:path';
import type { FlagValues } from '../common/command-spec.js';
import { connectionFlagValues } from '../common/connection-flags.js';
import { resolveConfig, type ResolvedConfig } from '../common/connection.js';
import { ApiError } from '../../client/errors.js';
import { CliError, UsageError } from '../common/errors.js';
import { baseUrlOf, KubeClient } from '../../client/http-client.js';
import type { Io } from '../common/io.js';
import { printData } from '../common/output.js';
import { writePrivateFile } from '../common/private-file.js';
import { clusterUrl } from '../../client/workspace-path.js';
import { resolveWorkspace } from '../common/workspace-target.js';
import { parseDuration, StartUsageError } from '../start/flags.js';
import { hasCredentials, standaloneKubeconfig, type StandaloneKubeconfigInput } from '../../client/standalone-kubeconfig.js';

interface ServiceAccountRef {
  namespace: string;
  name: string;
}

export async function runKubeconfig(io: Io, workspaceArg: string | undefined, flags: FlagValues): Promise<void> {
  const serviceAccount = parseServiceAccount(flags['service-account'] as string | undefined);
  const expirationSeconds = tokenSeconds(flags.duration as string | undefined, serviceAccount);
  const config = resolveCredentials(flags, serviceAccount);
  const lookup = new KubeClient(config.connection);
  const workspace = await resolveWorkspace(lookup, config.connection.server, workspaceArg).finally(() => lookup.close());
  const server = clusterUrl(new URL(baseUrlOf(config.connection.server)), workspace);

  let credentials: StandaloneKubeconfigInput['connection'];
  let userName: string;
  let expires: string | undefined;
  if (serviceAccount) {
    const issued = await requestToken(config, workspace, serviceAccount, expirationSeconds);
    const { ca, insecureSkipTLSVerify, tlsServerName } = config.connection;
    credentials = { ca, insecureSkipTLSVerify, tlsServerName, token: issued.token };
    userName = `system:serviceaccount:${serviceAccount.namespace}:${serviceAccount.name}`;
    expires = issued.expirationTimestamp;
  } else {
    credentials = config.connection;
    userName = (flags.user as string | undefined) || config.userName || 'user';
    if (!hasCredentials(credentials)) {
      throw new UsageError(`no credentials for user "${userName}": pass --token, or --user with the name of a user in the kubeconfig`);
    }
  }
  await tryWorkspace(server, workspace, credentials, userName);

  const namespace = (flags.namespace as string | undefined) ?? serviceAccount?.namespace;
  const kubeconfig = standaloneKubeconfig({ server, workspace, userName, connection: credentials, namespace });
  const output = flags.output as string | undefined;
  if (output === 'json' || output === 'yaml') return printData(io, { kind: output }, kubeconfig);
  const { dump } = await import('js-yaml');
  const text = dump(kubeconfig, { lineWidth: -1, noRefs: true, noArrayIndent: true });
  if (output === undefined || output === '-') return io.out(text);
  const file = path.resolve(output);
  try {
    writePrivateFile(file, text);
  } catch (err) {
    throw new CliError(`cannot write ${file}: ${(err as Error).message}`);
  }
  const until = expires ? `, token valid until ${expires}` : '';
  io.out(`Wrote kubeconfig for user "${userName}" in workspace "${workspace}" to ${output}${until}.\n`);
}

function parseServiceAccount(value: string | undefined): ServiceAccountRef | undefined {
  if (value === undefined) return undefined;
  const match = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?)\/([a-z0-9]([-a-z0-9.]*[a-z0-9])?)$/.exec(value);
  if (!match) throw new UsageError(`--service-account: "${value}" is not NAMESPACE/NAME, e.g. default/ci`);
  return { namespace: match[1]!, name: match[3]! };
}

function tokenSeconds(duration: string | undefined, serviceAccount: ServiceAccountRef | undefined): number | undefined {
  if (duration === undefined) return undefined;
  if (!serviceAccount) throw new UsageError('--duration sets the lifetime of a --service-account token; a user\'s token is used as it is');
  try {
    return Math.floor(parseDuration(duration, 'duration') / 1000);
  } catch (err) {
    if (err instanceof StartUsageError) throw new UsageError(err.message);
    throw err;
  }
}

/**
 * The connection to work with. In user mode `--user` names the user of the new kubeconfig: with `--token` that
 * user need not exist in any kubeconfig, so it is not looked up there.
 */
function resolveCredentials(flags: FlagValues, serviceAccount: ServiceAccountRef | undefined): ResolvedConfig {
  const connection = connectionFlagValues(flags);
  if (!serviceAccount && connection.user && connection.token) delete connection.user;
  try {
    return resolveConfig(connection);
  } catch (err) {
    if (!serviceAccount && connection.user && err instanceof CliError && err.message === `auth info "${connection.user}" does not exist`) {
      throw new UsageError(`user "${connection.user}" is not in the kubeconfig: pass the user's token with --token`);
    }
    throw err;
  }
}

async function requestToken(
  config: ResolvedConfig,
  workspace: string,
  sa: ServiceAccountRef,
  expirationSeconds: number | undefined,
): Promise<{ token: string; expirationTimestamp?: string }> {
  const client = new KubeClient(config.connection);
  try {
    const answer = await client.post<{ status?: { token?: string; expirationTimestamp?: string } }>(
      `/clusters/${workspace}/api/v1/namespaces/${sa.namespace}/serviceaccounts/${sa.name}/token`,
      {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenRequest',
        spec: expirationSeconds === undefined ? {} : { expirationSeconds },
      },
    );
    const token = answer.status?.token;
    if (!token) throw new CliError(`the server issued no token for service account ${sa.namespace}/${sa.name}`);
    return { token, expirationTimestamp: answer.status?.expirationTimestamp };
  } finally {
    client.close();
  }
}

async function tryWorkspace(server: string, workspace: string, credentials: StandaloneKubeconfigInput['connection'], userName: string) {
  const client = new KubeClient({ server, ...credentials });
  try {
    await client.get(`/clusters/${workspace}/api`);
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) {
      throw new CliError(`the server does not accept the credentials of user "${userName}" (Unauthorized): check the token`);
    }
    if (err instanceof ApiError && err.status === 403) {
      throw new CliError(`user "${userName}" may not use workspace "${workspace}" (Forbidden): ${err.message}`);
    }
    throw err;
  } finally {
    client.close();
  }
}
