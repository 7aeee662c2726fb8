/**
 * Lookups by a key a client chose. Object keys such as `constructor`, `toString` or `__proto__` are data to a
 * Kubernetes client, never object machinery: a plain `map[key]` or `key in map` finds what every JavaScript object
 * inherits, so a schema would "declare" `constructor` and a map would "hold" `toString`. Every lookup of a key that
 * came from a request (or from a schema a tenant wrote) goes through these, or a Map/Set.
 */

/** The own property `key` of `map`, or undefined; never an inherited member. */
export function ownValue<T>(map: Readonly<Record<string, T>> | null | undefined, key: string): T | undefined {
  return map && Object.hasOwn(map, key) ? map[key] : undefined;
}

/** Sets `map[key]` as an own property, even for `__proto__` (an assignment would replace the prototype). */
export function setOwnValue<T>(map: Record<string, T>, key: string, value: NoInfer<T>): void {
  if (key === '__proto__') Object.defineProperty(map, key, { value, writable: true, enumerable: true, configurable: true });
  else map[key] = value;
}
