/**
 * The two shapes the tests poll in, both over kcpt/testing's waitFor (src/testing/wait-for.ts), the one polling
 * loop: a probe that yields a value once there is one, and a check with a description that may be built when it
 * fails. A probe that throws is tried again; on timeout the last failure is thrown.
 */
import { waitFor } from '../../src/testing/wait-for.js';

/**
 * Polls `probe` until it returns something other than undefined, null or false, and returns that. The default
 * interval suits probes that spawn kubectl; in-process probes pass a shorter one.
 */
export function eventually<T>(
  what: string,
  probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  timeoutMs = 30_000,
  intervalMs = 200,
): Promise<T> {
  return waitFor(async () => (await probe()) ?? false, { timeout: timeoutMs, interval: intervalMs, message: what }) as Promise<T>;
}

/** Polls `check` until it holds; the failure says `what` (a function: built from the state at that moment). */
export async function until(check: () => boolean | Promise<boolean>, what: string | (() => string | Promise<string>), timeoutMs = 30_000): Promise<void> {
  await waitFor(
    async () => {
      if (!(await check())) throw new Error(`not yet: ${typeof what === 'string' ? what : await what()}`);
    },
    { timeout: timeoutMs, interval: 100 },
  );
}
