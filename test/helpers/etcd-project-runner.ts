/**
 * Test runner for the `e2e-etcd` vitest project (vitest.config.ts), which runs the e2e files a second time with
 * every server on etcd. It prefixes each file's top-level tests and suites with `[etcd] ` so the two runs of one test
 * have different names in every report, the JSON one included (vitest's JSON reporter names tests by their titles
 * only, not by project).
 *
 * The names must change after a file's tests are collected and before the worker sends them to the main process
 * (that happens before `onCollected` reaches a runner), so the rename runs at the end of vitest's `collect_spec`
 * trace span, which wraps exactly one file's collection; `onCollectStart` says which file it is.
 */
import { TestRunner, type RunnerTestFile as File, type SerializedConfig } from 'vitest';

export const etcdTestPrefix = '[etcd] ';

type Trace = TestRunner['trace'];

export default class EtcdProjectRunner extends TestRunner {
  private collecting: File | undefined;

  constructor(config: SerializedConfig) {
    super(config);
    const parentTrace = this.trace.bind(this) as (...args: unknown[]) => unknown;
    this.trace = ((name: string, attributesOrFn: unknown, fn?: () => unknown) => {
      if (name !== 'collect_spec') return parentTrace(name, attributesOrFn, fn);
      const body = (fn ?? attributesOrFn) as () => unknown;
      const renamed = async () => {
        const result = await body();
        for (const task of this.collecting?.tasks ?? []) {
          if (!task.name.startsWith(etcdTestPrefix)) task.name = `${etcdTestPrefix}${task.name}`;
        }
        return result;
      };
      return fn ? parentTrace(name, attributesOrFn, renamed) : parentTrace(name, renamed);
    }) as Trace;
  }

  override onCollectStart(file: File): unknown {
    this.collecting = file;
    return super.onCollectStart?.(file);
  }
}
