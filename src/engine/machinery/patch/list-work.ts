/**
 * The work budget of one strategic merge patch. Merging a list by key, ordering it and interleaving server-only
 * items compare every item of one list with every item of another (as upstream's Go code does), so a 3 MiB patch
 * of small items against an object's long list would block the server for hours. Each such step is charged
 * (items × items) before it runs; past the budget the patch is refused with a 413 before the work is done.
 * Real patches merge lists of at most a few thousand items and stay far below it.
 */
import { requestEntityTooLarge } from '../status.js';

export const MAX_LIST_MERGE_STEPS = 1 << 24;

// Patches are applied synchronously, one at a time: the budget of the patch being applied.
let remaining = Number.POSITIVE_INFINITY;

/** Runs `fn` (one strategic merge patch) with a fresh budget. */
export function withListWorkBudget<T>(fn: () => T): T {
  const outer = remaining;
  remaining = MAX_LIST_MERGE_STEPS;
  try {
    return fn();
  } finally {
    remaining = outer;
  }
}

/** Charges `steps` of list work at once (`what` says which, in the 413); throws once the budget is spent. */
export function chargeListSteps(steps: number, what: string): void {
  remaining -= steps;
  if (remaining < 0) {
    remaining = 0;
    throw requestEntityTooLarge(
      `Request entity too large: merging the lists of this strategic merge patch takes more than ${MAX_LIST_MERGE_STEPS} ` +
        `steps (${what}); send fewer list items in one patch`,
    );
  }
}
