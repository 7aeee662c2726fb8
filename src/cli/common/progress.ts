/**
 * Waiting with feedback: in an interactive terminal a spinner appears on stderr once a wait has lasted ~300 ms
 * (ora is imported only then); in CI and pipes nothing animates and the caller's plain lines are the only output.
 * What the task reports while it waits (`progress.update`, e.g. a condition that says what is pending) becomes the
 * spinner's text, or without a terminal one line on stderr per change, once the wait has lasted a second (a quick
 * wait in a CI log stays silent).
 */
import { importExternal } from '../../client/external-import.js';
import { canAnimate, type Io } from './io.js';

const spinnerDelayMs = 300;
const plainDelayMs = 1000;

export interface Progress {
  update(text: string): void;
}

export async function withProgress<T>(io: Io, label: string, task: (progress: Progress) => Promise<T>): Promise<T> {
  let shown: string | undefined;
  if (!canAnimate(io)) {
    let latest: string | undefined;
    let late = false;
    const show = () => {
      if (latest !== undefined && latest !== shown) io.err(`${latest}\n`);
      shown = latest;
    };
    const timer = setTimeout(() => {
      late = true;
      show();
    }, plainDelayMs);
    try {
      return await task({
        update: (text) => {
          latest = text;
          if (late) show();
        },
      });
    } finally {
      clearTimeout(timer);
    }
  }
  let spinner: { text: string; stop(): void } | undefined;
  let finished = false;
  const timer = setTimeout(() => {
    void importExternal<typeof import('ora')>('ora').then(({ default: ora }) => {
      if (finished) return;
      spinner = ora({ text: shown ? `${label}: ${shown}` : label, stream: process.stderr, discardStdin: false }).start();
    });
  }, spinnerDelayMs);
  try {
    return await task({
      update: (text) => {
        shown = text;
        if (spinner) spinner.text = `${label}: ${text}`;
      },
    });
  } finally {
    finished = true;
    clearTimeout(timer);
    spinner?.stop();
  }
}
