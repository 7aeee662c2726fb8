/** Bounds how many requests a command (or the TUI) has in flight at once. */
export type Limiter = <T>(task: () => Promise<T>) => Promise<T>;

/** At most `n` tasks in flight (a tree of 1,000 workspaces must not open 1,000 requests at once). */
export function limiter(n: number): Limiter {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async (task) => {
    if (active >= n) await new Promise<void>((r) => waiting.push(r));
    active++;
    try {
      return await task();
    } finally {
      active--;
      waiting.shift()?.();
    }
  };
}
