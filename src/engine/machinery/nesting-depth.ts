/**
 * How deep a decoded body may nest. kube's JSON decoder stops at 10,000 levels; kcpt's object code (canonical
 * encoding, pruning, validation, managed fields) recurses once per level on a JavaScript stack of about 10,000 frames,
 * so it stops at 1,000: far beyond any real object, and far enough below the stack that a deep object is a 400 and
 * never a stack overflow (500) halfway through a write.
 */
export const MAX_NESTING_DEPTH = 1000;

/** The message for a value nested deeper than `max`, or undefined. Iterative: the check itself cannot overflow. */
export function nestingTooDeep(value: unknown, max = MAX_NESTING_DEPTH): string | undefined {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth > max) return `exceeded max depth of ${max} nested objects or arrays`;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return undefined;
}
