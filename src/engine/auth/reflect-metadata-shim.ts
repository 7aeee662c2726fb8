/**
 * @peculiar/x509 registers its parsers through tsyringe, which refuses to load unless the `Reflect` metadata API
 * (the `reflect-metadata` proposal) exists. We do not ship that package, so this installs the four functions
 * tsyringe and tslib's `__metadata` actually call, and nothing more. It must be imported before @peculiar/x509;
 * ESM evaluates imports in declaration order, so `import './reflect-metadata-shim.js'` on the line above does it.
 * When a real polyfill is already present (another library loaded one), it is left alone.
 */

type Key = unknown;
type PropertyKey = string | symbol | undefined;

interface ReflectMetadataApi {
  defineMetadata(key: Key, value: unknown, target: object, property?: PropertyKey): void;
  getOwnMetadata(key: Key, target: object, property?: PropertyKey): unknown;
  getMetadata(key: Key, target: object, property?: PropertyKey): unknown;
  metadata(key: Key, value: unknown): (target: object, property?: PropertyKey) => void;
}

const reflect = Reflect as unknown as Partial<ReflectMetadataApi>;

if (typeof reflect.getMetadata !== 'function') {
  const store = new WeakMap<object, Map<PropertyKey, Map<Key, unknown>>>();

  const table = (target: object, property: PropertyKey, create: boolean): Map<Key, unknown> | undefined => {
    let byProperty = store.get(target);
    if (!byProperty) {
      if (!create) return undefined;
      byProperty = new Map();
      store.set(target, byProperty);
    }
    let entries = byProperty.get(property);
    if (!entries && create) {
      entries = new Map();
      byProperty.set(property, entries);
    }
    return entries;
  };

  const api: ReflectMetadataApi = {
    defineMetadata(key, value, target, property) {
      table(target, property, true)!.set(key, value);
    },
    getOwnMetadata(key, target, property) {
      return table(target, property, false)?.get(key);
    },
    getMetadata(key, target, property) {
      // Like the proposal: own metadata first, then up the prototype chain (constructors inherit from parents).
      for (let t: object | null = target; t !== null; t = Object.getPrototypeOf(t) as object | null) {
        const entries = table(t, property, false);
        if (entries?.has(key)) return entries.get(key);
      }
      return undefined;
    },
    metadata(key, value) {
      return (target, property) => api.defineMetadata(key, value, target, property);
    },
  };
  Object.assign(Reflect, api);
}

export {};
