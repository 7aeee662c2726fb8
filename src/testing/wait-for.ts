/**
 * `waitFor(condition)`: retry an assertion about objects until it holds. A controller under test reacts
 * asynchronously, so a test asserts "eventually": the condition runs again while it throws (a failed expect) or
 * returns false, and what it returns then is waitFor's result (an assertion callback may return nothing). On
 * timeout the last failure is thrown (the assertion error itself, so the runner shows the diff), with the time
 * waited added to its message.
 */
export interface WaitForOptions {
  /** Give up after this long (default 5000 ms). */
  timeout?: number;
  /** Pause between tries (default 10 ms; a try itself usually is one GET). */
  interval?: number;
  /** What is awaited, for the timeout's message ("the CRD served"). */
  message?: string;
}

export async function waitFor<T>(condition: () => T | Promise<T>, options: WaitForOptions = {}): Promise<Exclude<T, false>> {
  const timeout = options.timeout ?? 5000;
  const interval = options.interval ?? 10;
  const deadline = Date.now() + timeout;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await condition();
      if (value !== false) return value as Exclude<T, false>;
      lastError = new Error('the condition returned false');
    } catch (err) {
      lastError = err;
    }
    if (Date.now() >= deadline) break;
    await new Promise((resolve) => setTimeout(resolve, interval));
  }
  const waited = `waitFor timed out after ${timeout} ms${options.message ? ` waiting for ${options.message}` : ''}`;
  if (lastError instanceof Error) {
    lastError.message = `${waited}: ${lastError.message}`;
    throw lastError;
  }
  throw new Error(`${waited}: ${String(lastError)}`);
}
