/**
 * `kcpt testenv`: one fresh workspace per call, ready to use, described on stdout for a test harness in any language.
 * The steps are those of `kcpt ws create` (POST, then watch until Ready, unless the answer already is) followed by
 * the CRD installs; the kubeconfig written is `kcpt kubeconfig`'s standalone one, with the caller's credentials.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { installCRD } from '../../client/install-crd.js';
import { readCrdFiles } from '../apis/crd-files.js';
import type { FlagValues } from '../common/command-spec.js';
import { CliError } from '../common/errors.js';
import { baseUrlOf } from '../../client/http-client.js';
import type { Io } from '../common/io.js';
import { printData, type OutputFormat } from '../common/output.js';
import { privateTempDirectory, writePrivateFile } from '../common/private-file.js';
import { withSession } from '../common/session.js';
import { clusterUrl } from '../../client/workspace-path.js';
import { resolveWorkspace } from '../common/workspace-target.js';
import { standaloneKubeconfig } from '../../client/standalone-kubeconfig.js';
import { waitForReady } from '../ws/create.js';
import { createWorkspace, deleteWorkspace, parseTypeFlag, type Workspace } from '../../client/workspace-api.js';

const readyTimeoutMs = 60_000;

export interface TestEnvironment {
  kubeconfig: string;
  workspace: string;
  clusterName: string;
  url: string;
}

/** The names kcpt testenv gives its workspaces (and the only ones `kcpt testenv delete` deletes). */
export const testenvNamePrefix = 'testenv-';

export async function runTestenv(io: Io, flags: FlagValues, format: OutputFormat): Promise<void> {
  const crdFiles = flags.crd as string[] | undefined;
  // Read before anything is created: a wrong file leaves no workspace behind.
  const crds = crdFiles && crdFiles.length > 0 ? readCrdFiles(crdFiles).map(({ crd }) => crd) : [];
  const out = flags['kubeconfig-out'] as string | undefined;
  const directory = out === undefined ? testenvDirectory() : undefined;
  const env = await withSession(flags, async (session) => {
    const server = session.config.connection.server;
    const parent = await resolveWorkspace(session.client, server, flags.parent as string | undefined);
    const name = `${testenvNamePrefix}${randomBytes(5).toString('hex')}`;
    const workspace = `${parent}:${name}`;
    const file = path.resolve(out ?? path.join(directory!, `${workspace.replaceAll(':', '_')}.kubeconfig`));
    const type = flags.type as string | undefined;
    const body: Workspace = {
      apiVersion: 'tenancy.kcp.io/v1alpha1',
      kind: 'Workspace',
      metadata: { name },
      spec: type ? { type: parseTypeFlag(type) } : {},
    };
    let ws = await createWorkspace(session.client, parent, body);
    const url = clusterUrl(new URL(baseUrlOf(server)), workspace);
    try {
      if (ws.status?.phase !== 'Ready') ws = await waitForReady(session, parent, ws, readyTimeoutMs);
      await Promise.all(crds.map((crd) => installCRD(session.client, workspace, crd as Record<string, unknown>, readyTimeoutMs)));
      const kubeconfig = standaloneKubeconfig({ server: url, workspace, userName: session.config.userName || 'user', connection: session.config.connection });
      const { dump } = await import('js-yaml');
      try {
        writePrivateFile(file, dump(kubeconfig, { lineWidth: -1, noRefs: true, noArrayIndent: true }));
      } catch (err) {
        throw new CliError(`cannot write ${file}: ${(err as Error).message}`);
      }
    } catch (err) {
      // No half-prepared workspace is left behind for a suite to trip over.
      await deleteWorkspace(session.client, parent, name).catch(() => {});
      throw err;
    }
    return { kubeconfig: file, workspace, clusterName: ws.spec?.cluster ?? '', url };
  });
  if (format.kind === 'env') io.out(envLines(env));
  else await printData(io, format, env);
}

/** Where kcpt testenv writes kubeconfigs by default: a directory of the user's own under the system temp directory. */
export function testenvDirectory(): string {
  const dir = privateTempDirectory('kcpt-testenv');
  if (!dir) throw new CliError('the temp directory kcpt-testenv-<uid> is not a private directory of yours (another user could read the kubeconfig): pass --kubeconfig-out FILE');
  return dir;
}


function envLines(env: TestEnvironment): string {
  const quote = (v: string) => (/^[\w@%+=:,./-]*$/.test(v) ? v : `'${v.replace(/'/g, `'\\''`)}'`);
  return [
    `KUBECONFIG=${quote(env.kubeconfig)}`,
    `KCPT_WORKSPACE=${quote(env.workspace)}`,
    `KCPT_CLUSTER_NAME=${quote(env.clusterName)}`,
    `KCPT_URL=${quote(env.url)}`,
    '',
  ].join('\n');
}
