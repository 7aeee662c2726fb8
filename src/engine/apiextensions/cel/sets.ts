/**
 * cel-go's ext sets library (ext/sets.go), which kube's CRD environment has had since 1.29: sets.contains(a, b)
 * (every element of b is in a), sets.equivalent(a, b) (each contains the other, whatever the counts) and
 * sets.intersects(a, b) (some element in both), over two lists of one element type, by CEL equality of elements
 * (as cel-go's list Contains: each element of the list searched is the left operand, so a set-typed element list
 * compares unordered). Pairwise, as cel-go: cost.ts charges each pair.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { celEqual } from './decl-types.js';

/** The namespace constant's type (typed-libraries.ts registers one constant per namespace). */
const SETS = 'kcpt.namespace.sets';

/** kube's cost factor of each function: equivalence may compare every pair twice. */
export const SETS_COST_FACTORS: Record<string, number> = { contains: 1, intersects: 1, equivalent: 2 };

function contains(list: unknown[], sub: unknown[]): boolean {
  return sub.every((v) => list.some((e) => celEqual(e, v)));
}

export function registerSetsLibrary(env: Environment): void {
  env.registerFunction(`${SETS}.contains(list<T>, list<T>): bool`, (_ns: unknown, a: unknown[], b: unknown[]) => contains(a, b));
  env.registerFunction(`${SETS}.equivalent(list<T>, list<T>): bool`, (_ns: unknown, a: unknown[], b: unknown[]) => contains(a, b) && contains(b, a));
  env.registerFunction(`${SETS}.intersects(list<T>, list<T>): bool`, (_ns: unknown, a: unknown[], b: unknown[]) => a.some((x) => b.some((e) => celEqual(e, x))));
}
