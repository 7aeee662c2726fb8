/**
 * tenancy.kcp.io/v1alpha1 workspacetypes: the CRD-served type plus kcp's admission for it. Every type carries the
 * canonical path of its workspace in `kcp.io/path` (that path names the type and its initializer; the write authority
 * stamps it, admission/write-authority.ts); `root` may only be defined in root; `system` and `any` are reserved; references in the spec must carry a path.
 */
import { fieldErrors, forbidden, type FieldError } from '../machinery/status.js';
import type { ResourceType } from '../registry/types.js';
import { tenancyResourceType } from './crds.js';
import { ROOT_CLUSTER, TENANCY_GROUP } from '../machinery/kcp-names.js';
import type { WorkspaceTypeSpec } from './workspace-types.js';

const resource = { group: TENANCY_GROUP, resource: 'workspacetypes' };
const reserved = ['system', 'any'];

export function workspaceTypeResourceType(): ResourceType {
  const base = tenancyResourceType('workspacetypes');
  return {
    ...base,
    strategy: {
      ...base.strategy,
      validate(obj, ctx, old) {
        const errs: FieldError[] = [...(base.strategy.validate?.(obj, ctx, old) ?? [])];
        const name = obj.metadata?.name ?? '';
        if (reserved.includes(name)) {
          errs.push(fieldErrors.invalid('metadata.name', name, `metadata.name in body should not be any of [${reserved.join(' ')}]`));
        }
        return errs;
      },
      admit(obj, _old, ctx) {
        const name = obj.metadata?.name ?? '';
        const deny = (message: string) => forbidden(resource, name, message);
        if (name === 'root' && ctx.cluster !== ROOT_CLUSTER) throw deny('root workspace type can only be created in root cluster');
        const spec = (obj.spec ?? {}) as WorkspaceTypeSpec;
        if (spec.defaultChildWorkspaceType && !spec.defaultChildWorkspaceType.path) {
          throw deny('.spec.defaultChildWorkspaceType.path must be set');
        }
        for (const field of ['limitAllowedChildren', 'limitAllowedParents'] as const) {
          (spec[field]?.types ?? []).forEach((t, i) => {
            if (!t.path) throw deny(`.spec.${field}.types[${i}].path must be set`);
          });
        }
      },
    },
  };
}

export function shardResourceType(): ResourceType {
  return tenancyResourceType('shards');
}
