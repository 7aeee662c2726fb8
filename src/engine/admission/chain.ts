/**
 * Validating admission: an ordered list of plugins the generic store consults on every create, after defaulting,
 * strategy preparation and validation and before the commit — where kube-apiserver runs validating admission. A
 * plugin refuses by throwing a StatusError; it may also hand back writes that commit in the same transaction as the
 * object (quota admission charges `status.used` that way, so a refused or failed create never leaves a charge).
 */
import type { WriteOp } from '../storage/store.js';
import type { CreateAdmission, CreateAttributes } from '../registry/write-admission.js';

export interface ValidatingAdmissionPlugin {
  /** kube / kcp plugin name, for messages and ordering. */
  readonly name: string;
  /** Throw a StatusError to refuse; return writes to commit together with the object (ignored on dry run). */
  validateCreate(attrs: CreateAttributes): WriteOp[] | void;
}

export class AdmissionChain implements CreateAdmission {
  constructor(private readonly plugins: readonly ValidatingAdmissionPlugin[]) {}

  /** Runs every plugin in order; the first refusal wins. Returns the writes the plugins asked for. */
  validateCreate(attrs: CreateAttributes): WriteOp[] {
    const ops: WriteOp[] = [];
    for (const plugin of this.plugins) {
      const extra = plugin.validateCreate(attrs);
      if (extra && !attrs.dryRun) ops.push(...extra);
    }
    return ops;
  }
}
