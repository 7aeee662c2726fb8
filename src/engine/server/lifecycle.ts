/**
 * The server's one lifecycle: everything that runs (the store, the listener, caches, controllers) is a named
 * component started in order and stopped in reverse — kube's post-start hooks and kcp's registered controllers in
 * one list. A component that fails to start stops the ones started before it, newest first.
 */

export interface Component {
  name: string;
  start?(): void | Promise<void>;
  /** Undoes `start`; shutdown goes on when it throws (one failing step must not leave the store open). */
  stop?(): void | Promise<void>;
}

export class Lifecycle {
  /** What started, oldest first. */
  private readonly started: Component[] = [];
  private stopping?: Promise<void>;

  constructor(
    /** Told of a component whose stop failed. */
    private readonly onStopError: (name: string, err: unknown) => void = () => {},
  ) {}

  /** Starts each in order; if one fails, stops everything started (this call's and earlier ones) and throws. */
  async start(components: readonly Component[]): Promise<void> {
    if (this.stopping) throw new Error('the server is stopping');
    for (const component of components) {
      try {
        await component.start?.();
      } catch (err) {
        await this.stop();
        throw err;
      }
      this.started.push(component);
    }
  }

  /** Starts one component that opens something (a lock, a store): its value, closed again at shutdown. */
  async open<T>(name: string, open: () => T | Promise<T>, close: (value: T) => void | Promise<void>): Promise<T> {
    let value: T | undefined;
    await this.start([{ name, start: async () => void (value = await open()), stop: () => close(value as T) }]);
    return value as T;
  }

  /** Stops what started, newest first; the same promise for every caller. */
  stop(): Promise<void> {
    return (this.stopping ??= this.stopAll());
  }

  private async stopAll(): Promise<void> {
    for (const component of this.started.splice(0).reverse()) {
      try {
        await component.stop?.();
      } catch (err) {
        this.onStopError(component.name, err);
      }
    }
  }
}
