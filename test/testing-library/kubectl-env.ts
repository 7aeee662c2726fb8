/** The real kubectl run with only the given kubeconfig, a private HOME and cache (nothing from the user's setup). */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';

const home = mkdtempSync(path.join(tmpdir(), 'kcpt-testing-home-'));

export async function kubectlWith(kubeconfig: string, args: string[], input?: string) {
  const result = await execa('kubectl', args, {
    env: { HOME: home, KUBECACHEDIR: path.join(home, 'cache'), KUBECONFIG: kubeconfig, PATH: process.env.PATH },
    extendEnv: false,
    input,
    stdin: input === undefined ? 'ignore' : undefined,
    reject: false,
    timeout: 45_000,
  });
  return { stdout: String(result.stdout), stderr: String(result.stderr), exitCode: result.exitCode ?? -1 };
}
