/**
 * What a PUT may change, per subresource (kube's separate update strategies of a resource's main, status and
 * finalize stores): each scope takes the request's object and the stored one and returns the object to store.
 * A write to a subresource changes only its part; everything else comes from the stored object.
 */
import { copySystemMetadata } from './object-rules.js';
import type { KubeObject, ResourceType, StrategyContext } from './types.js';

export interface UpdateScope {
  /** The object to store, before the write's managedFields, validation and revision. */
  take(rt: ResourceType, input: KubeObject, old: KubeObject, ctx: StrategyContext, opts: { withStatus?: boolean }): KubeObject;
  /** The main resource's update: the write authority stamps it and the strategy's prepareForUpdate runs. */
  main: boolean;
}

/** PUT on the object itself: the system's metadata stays, status too when it has its own subresource. */
const mainScope: UpdateScope = {
  main: true,
  take(rt, input, old, ctx, opts) {
    const obj = input;
    copySystemMetadata(old, obj);
    if (rt.strategy.hasStatusSubresource && !opts.withStatus) {
      if (old.status === undefined) delete obj.status;
      else obj.status = structuredClone(old.status);
    }
    rt.strategy.defaults?.(obj, ctx);
    return obj;
  },
};

/** `/status`: status only. */
const statusScope: UpdateScope = {
  main: false,
  take(rt, input, old) {
    const obj: KubeObject = { ...structuredClone(old), status: input.status };
    if (obj.status === undefined) delete obj.status;
    rt.strategy.prepareForStatusUpdate?.(obj, old);
    return obj;
  },
};

/** A namespace's `/finalize`: spec.finalizers only. */
const finalizeScope: UpdateScope = {
  main: false,
  take(_rt, input, old) {
    const finalizers = (input.spec as { finalizers?: string[] } | undefined)?.finalizers ?? [];
    const obj = structuredClone(old);
    obj.spec = { ...((obj.spec as object) ?? {}), finalizers };
    if (finalizers.length === 0) delete (obj.spec as { finalizers?: string[] }).finalizers;
    return obj;
  },
};

const scopes: Record<string, UpdateScope> = { status: statusScope, finalize: finalizeScope };

/** The scope of a write to `subresource` (none: the object itself). */
export function updateScopeOf(subresource: string | undefined): UpdateScope {
  return (subresource !== undefined && Object.hasOwn(scopes, subresource) ? scopes[subresource] : undefined) ?? mainScope;
}
