/**
 * Packaging: what `npm install -g kcpt` gives a user. The built package is packed with `npm pack`, installed
 * globally into a scratch prefix, and used from there only (PATH = the prefix's bin): `kcpt start --detach`,
 * `kubectl ws …` through the plugin shims, shell completion, `kcpt stop`. This proves the `files` list, the bins,
 * the shipped oclif manifest and the runtime dependencies.
 *
 * Dependencies come from the npm registry (or npm's cache) like a user's install, with install scripts off:
 * better-sqlite3's script would compile SQLite (~90 s on this machine) when no prebuilt binary can be fetched, so
 * the test reuses the binding this checkout already built when the versions match, and runs `npm rebuild` only
 * when they differ.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, repoRoot } from '../helpers/server.js';

const installTimeoutMs = 240_000;

let scratch: string;
let prefix: string;
let env: Record<string, string>;
let root: string;

async function run(command: string, args: string[], opts: { timeoutMs?: number; cwd?: string } = {}) {
  const result = await execa(command, args, {
    env,
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
    timeout: opts.timeoutMs ?? 60_000,
    cwd: opts.cwd ?? scratch,
  });
  return { stdout: String(result.stdout), stderr: String(result.stderr), exitCode: result.exitCode ?? -1 };
}

/** The variables of `names` that are set in `from`. */
function pick(from: NodeJS.ProcessEnv, names: string[]): Record<string, string> {
  return Object.fromEntries(names.flatMap((name) => (from[name] === undefined ? [] : [[name, from[name]!]])));
}

function packageVersion(dir: string): string | undefined {
  const manifest = join(dir, 'package.json');
  return existsSync(manifest) ? (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version : undefined;
}

beforeAll(async () => {
  if (!existsSync(join(repoRoot, '.oclif.manifest.json')) || !existsSync(join(repoRoot, 'dist', 'src', 'cli', 'oclif-commands.js'))) {
    throw new Error('the package is not built: run `npm run build` before this suite');
  }
  scratch = await mkdtemp(join(tmpdir(), 'kcpt-pack-'));
  prefix = join(scratch, 'prefix');
  root = join(scratch, 'kcp');
  mkdirSync(join(scratch, 'home'));
  env = {
    PATH: [join(prefix, 'bin'), process.env.PATH ?? ''].join(delimiter),
    HOME: join(scratch, 'home'),
    KUBECACHEDIR: join(scratch, 'kubecache'),
    NO_COLOR: '1',
    // npm's cache and registry settings stay the user's (CI caches ~/.npm).
    npm_config_cache: process.env.npm_config_cache ?? join(process.env.HOME ?? scratch, '.npm'),
    ...(process.env.npm_config_registry ? { npm_config_registry: process.env.npm_config_registry } : {}),
    // So does the way the machine reaches the registry: a proxy, and the CA that proxy's certificates chain to
    // (without them npm fails with SELF_SIGNED_CERT_IN_CHAIN as soon as a dependency is not in the cache).
    ...pick(process.env, ['NODE_EXTRA_CA_CERTS', 'HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'NO_PROXY', 'no_proxy']),
  };

  // The build is already there (the test command builds first); prepack would rebuild dist under running suites.
  const pack = await run('npm', ['pack', '--ignore-scripts', '--pack-destination', scratch], { cwd: repoRoot });
  expect(pack.exitCode, pack.stderr).toBe(0);
  const tarball = join(scratch, pack.stdout.trim().split('\n').at(-1)!);

  const install = await run(
    'npm',
    ['install', '--global', '--prefix', prefix, tarball, '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund'],
    { timeoutMs: installTimeoutMs },
  );
  expect(install.exitCode, install.stderr).toBe(0);

  const installed = join(prefix, 'lib', 'node_modules', 'kcpt');
  const sqliteHere = join(repoRoot, 'node_modules', 'better-sqlite3');
  const sqliteThere = join(installed, 'node_modules', 'better-sqlite3');
  const binding = join('build', 'Release', 'better_sqlite3.node');
  if (packageVersion(sqliteThere) === packageVersion(sqliteHere) && existsSync(join(sqliteHere, binding))) {
    mkdirSync(join(sqliteThere, 'build', 'Release'), { recursive: true });
    copyFileSync(join(sqliteHere, binding), join(sqliteThere, binding));
  } else {
    const rebuild = await run('npm', ['rebuild', 'better-sqlite3'], { cwd: installed, timeoutMs: installTimeoutMs });
    expect(rebuild.exitCode, rebuild.stderr).toBe(0);
  }
}, 2 * installTimeoutMs + 60_000);

afterAll(async () => {
  if (!scratch) return;
  if (existsSync(join(prefix, 'bin', 'kcpt'))) await run('kcpt', ['stop', '--root-directory', root, '--timeout', '5s']);
  await rm(scratch, { recursive: true, force: true });
});

describe('packaging: npm pack, global install into a scratch prefix, everything run from there', () => {
  it('installs kcpt and the kubectl plugin shims as bins, with the oclif manifest', async () => {
    for (const bin of ['kcpt', 'kubectl-ws', 'kubectl-kcp', 'kubectl-create-workspace', 'kubectl_complete-ws', 'kubectl_complete-kcp']) {
      expect(existsSync(join(prefix, 'bin', bin)), bin).toBe(true);
    }
    expect(existsSync(join(prefix, 'lib', 'node_modules', 'kcpt', '.oclif.manifest.json'))).toBe(true);
    const help = await run('kcpt', ['--help']);
    expect(help.exitCode, help.stderr).toBe(0);
    for (const command of ['start', 'stop', 'status', 'kubeconfig', 'ws', 'completion']) expect(help.stdout).toMatch(new RegExp(`^  ${command} `, 'm'));
  });

  it('starts detached, serves kubectl and the shims, reports status and stops', async () => {
    const port = await freePort();
    const started = await run('kcpt', ['start', '--detach', '--root-directory', root, '--secure-port', String(port)], { timeoutMs: 90_000 });
    expect(started.exitCode, started.stderr).toBe(0);
    expect(started.stdout).toContain(`kcpt is running in the background at https://127.0.0.1:${port}`);
    // A copy: the ws commands rewrite the kubeconfig they use.
    env.KUBECONFIG = join(scratch, 'user.kubeconfig');
    copyFileSync(join(root, 'admin.kubeconfig'), env.KUBECONFIG);

    const namespaces = await run('kubectl', ['get', 'namespace', 'default', '-o', 'name']);
    expect(namespaces.stdout.trim(), namespaces.stderr).toBe('namespace/default');

    const created = await run('kubectl', ['create', 'workspace', 'demo', '--enter']);
    expect(created.exitCode, created.stderr).toBe(0);
    expect(created.stdout).toContain("Current workspace is 'root:demo' (type root:organization).");
    const back = await run('kubectl', ['ws', '..']);
    expect(back.stdout, back.stderr).toBe("Current workspace is 'root' (type root).");
    const tree = await run('kubectl', ['ws', 'tree']);
    expect(tree.stdout, tree.stderr).toBe('.\n└── root\n    └── demo\n');
    expect((await run('kubectl', ['kcp', 'ws', 'current', '--short'])).stdout).toBe('root');

    const badBind = await run('kubectl', ['kcp', 'bind', 'apiexport', 'export']);
    expect(badBind.exitCode).toBe(2);
    expect(badBind.stderr.trim()).toMatch(/^Error: fully qualified reference to workspace where APIExport exists is required/);

    // The starter project ships in the package (templates/) and kcpt export init copies it out.
    const init = await run('kcpt', ['export', 'init', join(scratch, 'provider'), '-o', 'json']);
    expect(init.exitCode, init.stderr).toBe(0);
    expect(JSON.parse(init.stdout).files).toEqual(expect.arrayContaining(['crd.yaml', 'package.json', 'src/controller.ts', 'README.md']));
    const snapshot = await run('kubectl', ['kcp', 'crd', 'snapshot', '-f', join(scratch, 'provider', 'crd.yaml'), '--prefix', 'v1']);
    expect(snapshot.stdout, snapshot.stderr).toContain('name: v1.widgets.demo.kcpt.dev');

    const status = await run('kcpt', ['status', '--root-directory', root, '-o', 'json']);
    expect(status.exitCode, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ running: true, ready: true, url: `https://127.0.0.1:${port}` });

    const stopped = await run('kcpt', ['stop', '--root-directory', root]);
    expect(stopped.exitCode, stopped.stderr).toBe(0);
    expect(stopped.stdout).toMatch(/^kcpt stopped \(pid \d+, in \d+ ms\)/);
  });

  it('completes commands and flags in bash', async () => {
    const setup = await run('kcpt', ['completion', 'bash']);
    expect(setup.exitCode, setup.stderr).toBe(0);
    const script = join(scratch, 'kcpt.bash');
    writeFileSync(script, setup.stdout);
    const complete = (line: string) =>
      run('bash', ['-c', `source ${script}; COMP_LINE="$1"; COMP_POINT=\${#COMP_LINE}; _kcpt_complete; echo "\${COMPREPLY[@]}"`, '_', line]);
    expect((await complete('kcpt st')).stdout.trim().split(' ')).toEqual(['start', 'status', 'stop']);
    expect((await complete('kcpt stop --t')).stdout.trim()).toBe('--timeout');
    expect((await complete('kcpt ws u')).stdout.trim()).toBe('use');
  });

  it('ships neither bin/dev.js nor tests, and kcpt/testing source maps resolve to shipped sources', async () => {
    const installed = join(prefix, 'lib', 'node_modules', 'kcpt');
    expect(existsSync(join(installed, 'bin', 'dev.js'))).toBe(false);
    const map = JSON.parse(readFileSync(join(installed, 'dist', 'src', 'testing', 'index.js.map'), 'utf8')) as { sources: string[] };
    for (const source of map.sources) expect(existsSync(join(installed, 'dist', 'src', 'testing', source)), source).toBe(true);
  });
});
