/**
 * The work budget of one patch's list edits. Merging a list by key, ordering it and interleaving server-only items
 * compare every item of one list with every item of another (as upstream's Go code does), and each JSON patch `add`,
 * `remove` or `move` at a list index shifts every item after it (as evanphx/json-patch's slices do), so a patch of a
 * few hundred kilobytes against an object's long list would block the server for seconds to hours. Each such step is
 * charged (items × items, items shifted) before it runs; past the budget the patch is refused with a 413 before the
 * work is done. Real patches edit lists of at most a few thousand items and stay far below it.
 */
import { requestEntityTooLarge } from '../status.js';

export const MAX_LIST_MERGE_STEPS = 1 << 24;

/** How a spent budget is told to the client: which patch, and what to send instead. */
export type ListWorkKind = 'strategic' | 'json';

const refusals: Record<ListWorkKind, (what: string) => string> = {
  strategic: (what) =>
    `merging the lists of this strategic merge patch takes more than ${MAX_LIST_MERGE_STEPS} steps (${what}); ` +
    'send fewer list items in one patch',
  json: (what) =>
    `the operations of this JSON patch shift more than ${MAX_LIST_MERGE_STEPS} list items (${what}); ` +
    'send fewer operations on long lists in one patch, or replace the list',
};

// Patches are applied synchronously, one at a time: the budget of the patch being applied.
let remaining = Number.POSITIVE_INFINITY;
let kind: ListWorkKind = 'strategic';

/** Runs `fn` (one patch of the given kind) with a fresh budget. */
export function withListWorkBudget<T>(fn: () => T, patchKind: ListWorkKind = 'strategic'): T {
  const outer = { remaining, kind };
  remaining = MAX_LIST_MERGE_STEPS;
  kind = patchKind;
  try {
    return fn();
  } finally {
    ({ remaining, kind } = outer);
  }
}

/** Charges `steps` of list work at once (`what` says which, in the 413); throws once the budget is spent. */
export function chargeListSteps(steps: number, what: string): void {
  remaining -= steps;
  if (remaining < 0) {
    remaining = 0;
    throw requestEntityTooLarge(`Request entity too large: ${refusals[kind](what)}`);
  }
}
