/**
 * useControlPlane() from 'kcpt/testing' with the hooks passed in, as a jest suite (or vitest without globals)
 * uses it: one control plane for the file, a different workspace in every test.
 */
import * as vitest from 'vitest';
import { afterAll, describe, expect, it } from 'vitest';
import { useControlPlane } from 'kcpt/testing';
import { kubectlWith } from './kubectl-env.js';

const hooks = { beforeAll: vitest.beforeAll, afterAll: vitest.afterAll, beforeEach: vitest.beforeEach };

describe('useControlPlane with explicit hooks', () => {
  const kcp = useControlPlane({ hooks, workspace: { type: 'universal' } });
  const seen: { url: string; path: string }[] = [];

  for (const n of [1, 2, 3]) {
    it(`test ${n} gets a workspace of its own on the shared control plane`, async () => {
      seen.push({ url: kcp.controlPlane.url, path: kcp.workspace.path });
      const cm = await kubectlWith(kcp.workspace.kubeconfig.path, ['create', 'configmap', 'only-here', `--from-literal=test=${n}`]);
      expect(cm.exitCode, cm.stderr).toBe(0);
      // Had an earlier test's workspace been reused, `only-here` would already exist.
      const all = await kubectlWith(kcp.workspace.kubeconfig.path, ['get', 'configmaps', '-o', 'jsonpath={.items[*].metadata.name}']);
      expect(all.stdout.split(' ').filter((name) => name === 'only-here')).toHaveLength(1);
    });
  }

  afterAll(() => {
    expect(new Set(seen.map((s) => s.url)).size).toBe(1);
    expect(new Set(seen.map((s) => s.path)).size).toBe(3);
  });
});

describe('useControlPlane without hooks in a runner without globals', () => {
  it('says how to pass them', () => {
    expect(() => useControlPlane()).toThrow(/no global beforeAll\/afterAll\/beforeEach; import \{ useControlPlane \} from 'kcpt\/testing\/vitest'/);
  });
});
