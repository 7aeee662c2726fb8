/**
 * `kcpt testenv`: one fresh workspace per call, ready to use, described on stdout for a test harness in any language.
 * The steps are those of `kcpt ws create` (POST, then watch until Ready, unless the answer already is) followed by
 * the CRD installs; the kubeconfig written is `kcpt kubeconfig`'s standalone one, with the caller's credentials.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { installCRD } from '../apis/install-crd.js';
import { readCrdFiles } from '../apis/crd-files.js';
import type { FlagValues } from '../common/command-spec.js';
import { CliError } from '../common/errors.js';
import { baseUrlOf } from '../common/http-client.js';
import type { Io } from '../common/io.js';
import { writePrivateFile } from '../common/private-file.js';
import { withSession } from '../common/session.js';
import { clusterUrl, isValidPath, parseClusterUrl } from '../common/workspace-path.js';
import { standaloneKubeconfig } from '../kubeconfig/standalone-kubeconfig.js';
import { parseTypeFlag, waitForReady } from '../ws/create.js';
import { createWorkspace, type Workspace } from '../ws/workspace-api.js';

const readyTimeoutMs = 60_000;

export interface TestEnvironment {
  kubeconfig: string;
  workspace: string;
  clusterName: string;
  url: string;
}

export async function runTestenv(io: Io, flags: FlagValues): Promise<void> {
  const crdFiles = flags.crd as string[] | undefined;
  // Read before anything is created: a wrong file leaves no workspace behind.
  const crds = crdFiles && crdFiles.length > 0 ? readCrdFiles(crdFiles).map(({ crd }) => crd) : [];
  const env = await withSession(flags, async (session) => {
    const server = session.config.connection.server;
    const parent = (flags.parent as string | undefined) ?? parseClusterUrl(server)?.path;
    if (!parent) throw new CliError(`current URL "${server}" does not point to a workspace: pass --parent`);
    if (!isValidPath(parent)) throw new CliError(`--parent: "${parent}" is not a workspace path such as root:org`);
    const name = `testenv-${randomBytes(5).toString('hex')}`;
    const type = flags.type as string | undefined;
    const body: Workspace = {
      apiVersion: 'tenancy.kcp.io/v1alpha1',
      kind: 'Workspace',
      metadata: { name },
      spec: type ? { type: parseTypeFlag(type) } : {},
    };
    let ws = await createWorkspace(session.client, parent, body);
    if (ws.status?.phase !== 'Ready') ws = await waitForReady(session, parent, ws, readyTimeoutMs);
    const workspace = `${parent}:${name}`;
    try {
      await Promise.all(crds.map((crd) => installCRD(session.client, workspace, crd as Record<string, unknown>, readyTimeoutMs)));
    } catch (err) {
      // No half-prepared workspace is left behind for a suite to trip over.
      await session.client.request('DELETE', `/clusters/${parent}/apis/tenancy.kcp.io/v1alpha1/workspaces/${name}`).catch(() => {});
      throw err;
    }

    const url = clusterUrl(new URL(baseUrlOf(server)), workspace);
    const kubeconfig = standaloneKubeconfig({ server: url, workspace, userName: session.config.userName || 'user', connection: session.config.connection });
    const file = path.resolve((flags['kubeconfig-out'] as string | undefined) ?? defaultKubeconfigFile(workspace));
    const { dump } = await import('js-yaml');
    try {
      writePrivateFile(file, dump(kubeconfig, { lineWidth: -1, noRefs: true, noArrayIndent: true }));
    } catch (err) {
      throw new CliError(`cannot write ${file}: ${(err as Error).message}`);
    }
    return { kubeconfig: file, workspace, clusterName: ws.spec?.cluster ?? '', url };
  });
  io.out(flags.output === 'env' ? envLines(env) : `${JSON.stringify(env, null, 4)}\n`);
}

/** `<tmp>/kcpt-testenv-<uid>/<path>.kubeconfig`, in a directory only this user can read. */
function defaultKubeconfigFile(workspace: string): string {
  const uid = typeof process.getuid === 'function' ? process.getuid() : 'user';
  const dir = path.join(tmpdir(), `kcpt-testenv-${uid}`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return path.join(dir, `${workspace.replaceAll(':', '_')}.kubeconfig`);
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
