/** Runner of the `e2e-sharded` vitest project: test names start with `[sharded] ` (see prefixing-runner.ts). */
import type { SerializedConfig } from 'vitest';
import { PrefixingRunner } from './prefixing-runner.js';

export const shardedTestPrefix = '[sharded] ';

export default class ShardedProjectRunner extends PrefixingRunner {
  constructor(config: SerializedConfig) {
    super(config, shardedTestPrefix);
  }
}
