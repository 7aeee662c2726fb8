/** `kcpt/testing/vitest`: useControlPlane() with vitest's hooks (no `globals: true` needed), and the rest of kcpt/testing. */
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { useControlPlane as useWithHooks, type ControlPlaneFixture, type UseControlPlaneOptions } from './hooks.js';

export * from './index.js';

export function useControlPlane(options: Omit<UseControlPlaneOptions, 'hooks'> = {}): ControlPlaneFixture {
  return useWithHooks({ ...options, hooks: { beforeAll, afterAll, beforeEach } });
}
