/**
 * A vitest reporter that writes each project's (tier's) wall time, from its first file queued to its last file done,
 * with its counts, to the JSON file named by KCPT_TIER_TIMES: .ci/run prints them before its closing line.
 */
import { writeFileSync } from 'node:fs';
import type { Reporter, TestModule } from 'vitest/node';

export interface TierTime {
  project: string;
  files: number;
  tests: number;
  startMs: number;
  endMs: number;
}

export default class TierTimesReporter implements Reporter {
  private readonly tiers = new Map<string, TierTime>();

  private tier(module: TestModule): TierTime {
    const project = module.project.name || 'default';
    let tier = this.tiers.get(project);
    if (!tier) this.tiers.set(project, (tier = { project, files: 0, tests: 0, startMs: Date.now(), endMs: Date.now() }));
    return tier;
  }

  onTestModuleQueued(module: TestModule): void {
    this.tier(module);
  }

  onTestModuleEnd(module: TestModule): void {
    const tier = this.tier(module);
    tier.files += 1;
    tier.tests += [...module.children.allTests()].length;
    tier.endMs = Date.now();
  }

  onTestRunEnd(): void {
    const file = process.env.KCPT_TIER_TIMES;
    if (file) writeFileSync(file, JSON.stringify([...this.tiers.values()], null, 2));
  }
}
