/**
 * Waiting with feedback: in an interactive terminal a spinner appears on stderr once a wait has lasted ~300 ms
 * (ora is imported only then); in CI and pipes nothing animates and the caller's plain lines are the only output.
 */
import { importExternal } from './external-import.js';
import { canAnimate, type Io } from './io.js';

const spinnerDelayMs = 300;

export async function withProgress<T>(io: Io, label: string, task: () => Promise<T>): Promise<T> {
  if (!canAnimate(io)) return task();
  let stop: (() => void) | undefined;
  let finished = false;
  const timer = setTimeout(() => {
    void importExternal<typeof import('ora')>('ora').then(({ default: ora }) => {
      if (finished) return;
      const spinner = ora({ text: label, stream: process.stderr, discardStdin: false }).start();
      stop = () => spinner.stop();
    });
  }, spinnerDelayMs);
  try {
    return await task();
  } finally {
    finished = true;
    clearTimeout(timer);
    stop?.();
  }
}
