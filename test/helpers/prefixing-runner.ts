/**
 * Test runner base of the vitest projects that rerun the e2e files in another setup (vitest.config.ts: `e2e-etcd`
 * with every server on etcd, `e2e-sharded` with every server a sharded cluster behind the front-proxy). It prefixes
 * each file's top-level tests and suites with the project's tag (`[etcd] `, `[sharded] `) so the runs of one test
 * have different names in every report, the JSON one included (vitest's JSON reporter names tests by their titles
 * only, not by project).
 *
 * The names must change after a file's tests are collected and before the worker sends them to the main process
 * (that happens before `onCollected` reaches a runner), so the rename runs at the end of vitest's `collect_spec`
 * trace span, which wraps exactly one file's collection; `onCollectStart` says which file it is.
 */
import { TestRunner, type RunnerTask as Task, type RunnerTestFile as File, type SerializedConfig } from 'vitest';

type Trace = TestRunner['trace'];

export abstract class PrefixingRunner extends TestRunner {
  private collecting: File | undefined;

  /**
   * `skips`: tests to skip in this project, by file (relative to the project root) and title, each with the reason
   * (for the reader of that table).
   */
  constructor(config: SerializedConfig, prefix: string, skips: Record<string, Record<string, string>> = {}) {
    super(config);
    const parentTrace = this.trace.bind(this) as (...args: unknown[]) => unknown;
    this.trace = ((name: string, attributesOrFn: unknown, fn?: () => unknown) => {
      if (name !== 'collect_spec') return parentTrace(name, attributesOrFn, fn);
      const body = (fn ?? attributesOrFn) as () => unknown;
      const renamed = async () => {
        const result = await body();
        const file = this.collecting;
        const skipped = file ? Object.entries(skips).find(([path]) => file.filepath.endsWith(`/${path}`))?.[1] : undefined;
        if (file && skipped) skipListed(file.tasks, skipped);
        for (const task of file?.tasks ?? []) {
          if (!task.name.startsWith(prefix)) task.name = `${prefix}${task.name}`;
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

/** Marks the listed tests (by title, at any depth) skipped. */
function skipListed(tasks: Task[], titles: Record<string, string>): void {
  for (const task of tasks) {
    if (titles[task.name] !== undefined && task.mode === 'run') task.mode = 'skip';
    if (task.type === 'suite') skipListed(task.tasks, titles);
  }
}
