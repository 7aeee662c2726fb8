/**
 * kcpt's programmatic API, for users' own test suites and tools: start a control plane in-process and get its
 * URL and admin kubeconfig. (The richer `kcpt/testing` helpers build on this.)
 */
export { startServer, type RunningServer, type ServerOptions } from './engine/server/index.js';
