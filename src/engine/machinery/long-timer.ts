/**
 * setTimeout for any delay. Node fires a timer of more than 2^31-1 ms (about 24.8 days) after 1 ms instead, with a
 * TimeoutOverflowWarning: a watch asking for `timeoutSeconds=2147484` would end at once and its client reconnect in
 * a loop. Long delays are waited out in steps.
 */
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface LongTimer {
  cancel(): void;
}

/** Runs `fn` after `ms` (at once when not positive); unref'd, so it never keeps the process alive. */
export function longTimer(fn: () => void, ms: number): LongTimer {
  const due = Date.now() + ms;
  let timer: NodeJS.Timeout;
  const arm = (left: number) => {
    timer = setTimeout(
      () => {
        const remaining = due - Date.now();
        if (left > MAX_TIMER_MS && remaining > 0) arm(remaining);
        else fn();
      },
      Math.max(0, Math.min(left, MAX_TIMER_MS)),
    ).unref();
  };
  arm(Number.isFinite(ms) ? ms : Number.MAX_VALUE);
  return { cancel: () => clearTimeout(timer) };
}
