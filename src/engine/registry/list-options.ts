/**
 * kube's ValidateListOptions for LIST and WATCH (apimachinery internalversion validation, with the WatchList feature
 * on as in kube 1.32): which combinations of resourceVersion, resourceVersionMatch, sendInitialEvents and continue
 * are refused with 422, in kube's words, before anything is read.
 */
import { fieldErrors, invalid, type FieldError } from '../machinery/status.js';

export interface ListOptionsInput {
  watch: boolean;
  resourceVersion?: string;
  resourceVersionMatch?: string;
  sendInitialEvents?: boolean;
  continueToken?: string;
}

const listOptionsKind = { group: 'meta.k8s.io', kind: 'ListOptions' };

export function validateListOptions(opts: ListOptionsInput): void {
  const errors = opts.watch ? watchErrors(opts) : listErrors(opts);
  if (errors.length > 0) throw invalid(listOptionsKind, '', errors);
}

function listErrors(opts: ListOptionsInput): FieldError[] {
  const errors: FieldError[] = [];
  const match = opts.resourceVersionMatch;
  if (match) {
    if (!opts.resourceVersion) {
      errors.push(fieldErrors.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
    }
    if (opts.continueToken) {
      errors.push(fieldErrors.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
    }
    if (match !== 'Exact' && match !== 'NotOlderThan') {
      errors.push(fieldErrors.notSupported('resourceVersionMatch', match, ['Exact', 'NotOlderThan', '']));
    }
    if (match === 'Exact' && opts.resourceVersion === '0') {
      errors.push(fieldErrors.forbidden('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
    }
  }
  if (opts.sendInitialEvents !== undefined) {
    errors.push(fieldErrors.forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
  }
  return errors;
}

function watchErrors(opts: ListOptionsInput): FieldError[] {
  let { sendInitialEvents, resourceVersionMatch: match } = opts;
  // SetListOptionsDefaults: a legacy watch (no resourceVersion, or "0") is a watch-list with initial events.
  if (sendInitialEvents === undefined && !match && (!opts.resourceVersion || opts.resourceVersion === '0')) {
    sendInitialEvents = true;
    match = 'NotOlderThan';
  }
  const errors: FieldError[] = [];
  if (sendInitialEvents !== undefined && match !== 'NotOlderThan') {
    errors.push(fieldErrors.forbidden('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'));
  }
  if (match) {
    if (sendInitialEvents === undefined) {
      errors.push(fieldErrors.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'));
    }
    if (match !== 'NotOlderThan') {
      errors.push(fieldErrors.notSupported('resourceVersionMatch', match, ['NotOlderThan']));
    }
    if (opts.continueToken) {
      errors.push(fieldErrors.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
    }
  }
  return errors;
}
