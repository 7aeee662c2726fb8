/**
 * Which resources have objects anywhere (or had, since this process started). Emptying a logical cluster visits
 * only those, instead of probing the storage of every type the cluster serves: ~70 built-ins, most of which no
 * workspace ever uses, made deleting an empty workspace ~150 index seeks. Each resource is probed once when first
 * asked; one watch on /registry/ marks resources as written to from then on. A resource once occupied stays so
 * (the answer may be "look", never a wrong "nothing there").
 */
import { hasKeys, type Store, type WatchHandle } from '../storage/store.js';

const registryRoot = '/registry/';

/** `core/namespaces` of `/registry/core/namespaces/<cluster>/<name>`. */
function storagePrefixOf(key: string): string | undefined {
  const groupEnd = key.indexOf('/', registryRoot.length);
  const resourceEnd = groupEnd < 0 ? -1 : key.indexOf('/', groupEnd + 1);
  return resourceEnd < 0 ? undefined : key.slice(registryRoot.length, resourceEnd);
}

export class OccupiedResources {
  private readonly occupied = new Set<string>();
  private readonly empty = new Set<string>();
  private watch?: WatchHandle;

  constructor(private readonly store: Store) {}

  start(): void {
    this.watch = this.store.watch(registryRoot, this.store.currentRevision(), (events) => {
      for (const e of events) {
        if (e.type !== 'ADDED') continue;
        const prefix = storagePrefixOf(e.key);
        if (prefix === undefined || this.occupied.has(prefix)) continue;
        this.occupied.add(prefix);
        this.empty.delete(prefix);
      }
    });
  }

  stop(): void {
    this.watch?.cancel();
    this.watch = undefined;
  }

  /** False only when no object of the resource (a ResourceType's storagePrefix) exists in any cluster. */
  mayHaveObjects(storagePrefix: string): boolean {
    if (!this.watch || this.occupied.has(storagePrefix)) return true;
    if (this.empty.has(storagePrefix)) return false;
    const any = hasKeys(this.store, `${registryRoot}${storagePrefix}/`);
    (any ? this.occupied : this.empty).add(storagePrefix);
    return any;
  }
}
