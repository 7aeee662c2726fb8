// Types of go-peers.mjs for the TypeScript test that uses it.
export const repoDir: string;
export const goModuleDir: string;
export function goVersion(): string | undefined;
export function goTestNames(): Record<string, string[]>;
export interface GoPeerBuild {
  dir: string;
  binaries: Record<string, string>;
  cached: boolean;
  ms: number;
}
export function buildGoPeers(options?: { log?: (message: string) => void }): Promise<GoPeerBuild>;
export interface GoTestResult {
  status: 'pass' | 'fail' | 'skip';
  elapsed: number;
  output: string;
}
export function runGoTests(options: {
  pkg: string;
  binary: string;
  env?: NodeJS.ProcessEnv;
  run?: string;
  parallel?: number;
  timeout?: string;
}): Promise<{ tests: Map<string, GoTestResult>; code: number | null; output: string; ms: number }>;
