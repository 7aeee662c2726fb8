/**
 * `kcpt/testing`: kcpt as a test harness. One in-process control plane per test run, a fresh workspace per test in
 * milliseconds (with CRDs and APIBindings ready), kubeconfigs for any client, and `waitFor` for asserting on what a
 * controller under test does.
 */
export { startControlPlane, type ControlPlane, type ControlPlaneOptions, type KubeconfigFile } from './control-plane.js';
export type { TestWorkspace, WorkspaceOptions } from './workspace.js';
export type { KubeconfigDocument } from '../client/standalone-kubeconfig.js';
export type { KubeManifest } from './manifests.js';
export { useControlPlane, type ControlPlaneFixture, type TestHooks, type UseControlPlaneOptions } from './hooks.js';
export { waitFor, type WaitForOptions } from './wait-for.js';
