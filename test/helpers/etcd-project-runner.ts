/** Runner of the `e2e-etcd` vitest project: test names start with `[etcd] ` (see prefixing-runner.ts). */
import type { SerializedConfig } from 'vitest';
import { PrefixingRunner } from './prefixing-runner.js';

export const etcdTestPrefix = '[etcd] ';

export default class EtcdProjectRunner extends PrefixingRunner {
  constructor(config: SerializedConfig) {
    super(config, etcdTestPrefix);
  }
}
