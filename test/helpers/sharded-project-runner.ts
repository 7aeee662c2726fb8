/** Runner of the `e2e-sharded` vitest project: test names start with `[sharded] ` (see prefixing-runner.ts);
 * the tests sharded-skips.ts lists are skipped. */
import type { SerializedConfig } from 'vitest';
import { PrefixingRunner } from './prefixing-runner.js';
import { notThroughTheProxy } from './sharded-skips.js';

export const shardedTestPrefix = '[sharded] ';

export default class ShardedProjectRunner extends PrefixingRunner {
  constructor(config: SerializedConfig) {
    super(config, shardedTestPrefix, notThroughTheProxy);
  }
}
