import { describe, expect, it } from 'vitest';
import { StatusError } from '../machinery/status.js';
import { validateListOptions, type ListOptionsInput } from './list-options.js';

function problems(opts: ListOptionsInput): string | undefined {
  try {
    validateListOptions(opts);
    return undefined;
  } catch (err) {
    expect(err).toBeInstanceOf(StatusError);
    expect((err as StatusError).code).toBe(422);
    return (err as StatusError).message.replace('ListOptions.meta.k8s.io "" is invalid: ', '');
  }
}

describe('validateListOptions', () => {
  it('accepts what client-go, client-node and kubectl send', () => {
    expect(problems({ watch: false })).toBeUndefined();
    expect(problems({ watch: false, resourceVersion: '0' })).toBeUndefined();
    expect(problems({ watch: false, resourceVersion: '5', resourceVersionMatch: 'Exact' })).toBeUndefined();
    expect(problems({ watch: true })).toBeUndefined();
    expect(problems({ watch: true, resourceVersion: '12' })).toBeUndefined();
    expect(problems({ watch: true, sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan' })).toBeUndefined();
    expect(problems({ watch: true, sendInitialEvents: false, resourceVersionMatch: 'NotOlderThan', resourceVersion: '3' })).toBeUndefined();
  });

  it('refuses list-only mistakes in kube order', () => {
    expect(problems({ watch: false, sendInitialEvents: false })).toBe('sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list');
    expect(problems({ watch: false, resourceVersionMatch: 'Exact', resourceVersion: '0' })).toBe(
      'resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
    );
    expect(problems({ watch: false, resourceVersionMatch: 'Newest', resourceVersion: '1', continueToken: 'x' })).toBe(
      '[resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided, ' +
        'resourceVersionMatch: Unsupported value: "Newest": supported values: "Exact", "NotOlderThan", ""]',
    );
  });

  it('refuses watch mistakes, with a legacy watch defaulted to a watch-list first', () => {
    expect(problems({ watch: true, sendInitialEvents: true })).toBe(
      'resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
    );
    // With a resourceVersion no watch-list defaults apply, so a match needs an explicit sendInitialEvents.
    expect(problems({ watch: true, resourceVersion: '7', resourceVersionMatch: 'NotOlderThan' })).toBe(
      'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
    );
    expect(problems({ watch: true, sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', continueToken: 'x' })).toBe(
      'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided',
    );
  });
});
