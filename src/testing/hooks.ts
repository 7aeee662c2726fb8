/**
 * `useControlPlane()`: the test-runner glue. One control plane per worker process (test files running in the same
 * process share it; it stops when the last of them is done) and one fresh workspace per test. Works with vitest and
 * jest alike: the hooks are taken from the arguments, else from the globals both runners can provide
 * (jest always, vitest with `globals: true`; or import from 'kcpt/testing/vitest', which passes vitest's own).
 */
import { startControlPlane, type ControlPlane, type ControlPlaneOptions } from './control-plane.js';
import type { TestWorkspace, WorkspaceOptions } from './workspace.js';

type Hook = (fn: () => unknown, timeout?: number) => unknown;

export interface TestHooks {
  beforeAll: Hook;
  afterAll: Hook;
  beforeEach: Hook;
}

export interface UseControlPlaneOptions extends ControlPlaneOptions {
  /** What each test's workspace gets: CRDs, bindings, type, parent. */
  workspace?: WorkspaceOptions;
  /** The runner's hooks; default the global beforeAll/afterAll/beforeEach. */
  hooks?: TestHooks;
}

export interface ControlPlaneFixture {
  /** The worker's control plane (available from beforeAll on). */
  readonly controlPlane: ControlPlane;
  /** The current test's workspace (available from beforeEach on). */
  readonly workspace: TestWorkspace;
}

let shared: { plane: Promise<ControlPlane>; users: number } | undefined;

/** Starts (or joins) the worker's control plane; the returned release stops it when its last user leaves. */
export async function acquireControlPlane(options: ControlPlaneOptions): Promise<{ plane: ControlPlane; release(): Promise<void> }> {
  if (!shared) {
    const plane = startControlPlane(options);
    shared = { plane, users: 0 };
    plane.catch(() => (shared = undefined));
  }
  const entry = shared;
  entry.users++;
  let released = false;
  return {
    plane: await entry.plane,
    async release() {
      if (released) return;
      released = true;
      if (--entry.users > 0) return;
      if (shared === entry) shared = undefined;
      await (await entry.plane).stop();
    },
  };
}

export function useControlPlane(options: UseControlPlaneOptions = {}): ControlPlaneFixture {
  const { workspace: workspaceOptions, hooks = globalHooks(), ...planeOptions } = options;
  let plane: ControlPlane | undefined;
  let release: (() => Promise<void>) | undefined;
  let current: TestWorkspace | undefined;
  hooks.beforeAll(async () => {
    ({ plane, release } = await acquireControlPlane(planeOptions));
  }, 60_000);
  hooks.afterAll(async () => {
    await release?.();
  }, 60_000);
  hooks.beforeEach(async () => {
    current = await plane!.workspace(workspaceOptions);
  }, 60_000);
  return {
    get controlPlane() {
      if (!plane) throw new Error('useControlPlane: the control plane is available from beforeAll on');
      return plane;
    },
    get workspace() {
      if (!current) throw new Error('useControlPlane: the workspace is available from beforeEach on');
      return current;
    },
  };
}

function globalHooks(): TestHooks {
  const g = globalThis as unknown as Partial<TestHooks>;
  if (typeof g.beforeAll !== 'function' || typeof g.afterAll !== 'function' || typeof g.beforeEach !== 'function') {
    throw new Error(
      "useControlPlane: no global beforeAll/afterAll/beforeEach; import { useControlPlane } from 'kcpt/testing/vitest', " +
        'enable vitest globals, or pass { hooks: { beforeAll, afterAll, beforeEach } }',
    );
  }
  return { beforeAll: g.beforeAll, afterAll: g.afterAll, beforeEach: g.beforeEach };
}
