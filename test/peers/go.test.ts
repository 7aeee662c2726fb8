/**
 * The Go peers (test/peers/go): client-go, controller-runtime (a manager, envtest on an existing cluster) and an API
 * provider's controller, each through its public API only, against a real `kcpt start` — every Go test on SQLite,
 * the watch and informer ones on etcd too. One vitest case per Go test, named `<package> <Test>`, failing with the
 * Go test's own output. The binaries are compiled once per content of the module (scripts/go-peers.mjs).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildGoPeers, goTestNames, goVersion, runGoTests, type GoPeerBuild, type GoTestResult } from '../../scripts/go-peers.mjs';
import { repoRoot, startServer, type TestServer } from '../helpers/server.js';

const inCI = process.env.CI === 'true' || process.env.CI === '1';
const go = goVersion();
if (!go && !inCI) console.warn('Go peers: skipped, no `go` on PATH (they need Go 1.26)');

const testsByPackage = goTestNames();
/** The Go tests that watch or inform, run on etcd as well. */
const onEtcd: Record<string, string[]> = {
  clientgo: ['TestSharedInformers', 'TestTypedWatch', 'TestWildcardInformer'],
  controllerruntime: ['TestManager'],
  provider: ['TestProviderServesEveryConsumer'],
};

describe.skipIf(!go && !inCI)('Go peers', () => {
  let build: GoPeerBuild;
  beforeAll(async () => {
    build = await buildGoPeers({ log: (m) => console.log(m) });
    console.log(`Go peers: ${build.cached ? 'compiled before' : 'compiled'} (${(build.ms / 1000).toFixed(1)} s)`);
    // A cold machine downloads the modules and compiles client-go and controller-runtime: minutes on 2 cores.
  }, 20 * 60_000);

  describe.each([
    { storage: 'SQLite', etcd: false, select: testsByPackage },
    { storage: 'etcd', etcd: true, select: onEtcd },
  ])('on $storage', ({ etcd, select }) => {
    let server: TestServer;
    const results = new Map<string, { tests: Map<string, GoTestResult>; output: string; code: number | null }>();

    beforeAll(async () => {
      server = await startServer({ etcd });
      const env = {
        ...process.env,
        ...server.env,
        KCPT_KUBECONFIG: server.kubeconfig,
        KCPT_CLI: join(repoRoot, 'bin', 'run.js'),
      };
      await Promise.all(
        Object.entries(select).map(async ([pkg, names]) => {
          const run = etcd ? `^(${names.join('|')})$` : undefined;
          const r = await runGoTests({ pkg, binary: build.binaries[pkg]!, env, run });
          console.log(`Go peers ${pkg} on ${etcd ? 'etcd' : 'SQLite'}: ${(r.ms / 1000).toFixed(1)} s`);
          results.set(pkg, r);
        }),
      );
    }, 6 * 60_000);

    afterAll(async () => {
      await server?.stop();
    });

    for (const [pkg, names] of Object.entries(select)) {
      it.each(names)(`${pkg} %s`, (name) => {
        const r = results.get(pkg);
        expect(r, `the ${pkg} binary did not run`).toBeDefined();
        const result = r!.tests.get(name);
        if (!result) throw new Error(`${pkg} ${name} did not run (exit ${String(r!.code)}):\n${r!.output.slice(-8000)}`);
        // Every failed subtest's output, so the failure says which workspace and encoding broke.
        const failed = [...r!.tests.entries()]
          .filter(([n, t]) => (n === name || n.startsWith(`${name}/`)) && t.status === 'fail')
          .map(([n, t]) => `--- ${n}\n${t.output.slice(-4000)}`);
        if (result.status !== 'pass') throw new Error(`${pkg} ${name}: ${result.status}\n${failed.join('\n') || result.output.slice(-4000)}`);
      });
    }

    it('ran every Go test it selected, and nothing else', () => {
      for (const [pkg, names] of Object.entries(select)) {
        const ran = [...(results.get(pkg)?.tests.keys() ?? [])].filter((n) => !n.includes('/')).sort();
        expect(ran, pkg).toEqual([...names].sort());
      }
    });
  });
});
