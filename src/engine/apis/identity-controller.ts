/**
 * APIExport identities (kcp's identity controller): an export without `spec.identity.secretRef` gets the secret
 * `kcp-system/<export>` (namespace created when missing) holding a random 256-bit `key`, and the reference defaulted
 * into its spec; `status.identityHash` is the lowercase hex SHA-256 of the key bytes, with condition IdentityValid.
 * The hash never changes once set: a secret that no longer hashes to it turns IdentityValid False
 * (IdentityVerificationFailed) and bindings keep using the recorded identity.
 */
import { createHash, randomBytes } from 'node:crypto';
import { ensureNamespace } from '../controllers/logical-cluster-controller.js';
import { defineController, type Controller } from '../controllers/controller.js';
import { splitClusterKey } from '../controllers/work-queue.js';
import { jsonEqual } from '../machinery/canonical-json.js';
import { StatusError } from '../machinery/status.js';
import type { GenericStore, OpContext } from '../registry/generic-store.js';
import { nowTimestamp } from '../registry/object-rules.js';
import { decodeStored } from '../registry/stored-object.js';
import type { KubeObject, ResourceType } from '../registry/types.js';
import type { Store } from '../storage/store.js';
import { setCondition } from './conditions.js';
import { EXPORTS, EXPORTS_PREFIX, IDENTITY_NAMESPACE } from './names.js';
import { pendingKeys } from './pending.js';
import type { APIExport } from './types.js';

export interface IdentityControllerDeps {
  store: Store;
  generic: GenericStore;
  /** The stored version (v1alpha2) of APIExport. */
  exportType: ResourceType;
  namespaceType: ResourceType;
  serviceAccountType: ResourceType;
  secretType: ResourceType;
  onError?(controller: string, key: string, err: unknown): void;
}

/** The identity hash of a key as stored in a secret's `data.key` (base64). */
export function identityHashOf(base64Key: string): string {
  return createHash('sha256').update(Buffer.from(base64Key, 'base64')).digest('hex');
}

export function identityController(deps: IdentityControllerDeps): Controller {
  const identities = new Identities(deps);
  return defineController({
    name: 'apiexport-identity',
    store: deps.store,
    onError: deps.onError,
    watches(feed) {
      feed.watch(EXPORTS_PREFIX, (e) => {
        if (e.type === 'DELETED') return;
        const rest = e.key.slice(EXPORTS_PREFIX.length);
        const slash = rest.indexOf('/');
        feed.add(`${rest.slice(0, slash)}|${rest.slice(slash + 1)}`);
      });
      for (const key of pendingKeys((p) => deps.store.list(p).items, EXPORTS)) feed.add(key);
    },
    reconcile: (key) => identities.reconcile(key),
  });
}

/** The reconcile: an export's identity secret made when missing, and its hash recorded. */
class Identities {
  constructor(private readonly deps: IdentityControllerDeps) {}

  reconcile(key: string) {
    const { cluster, name } = splitClusterKey(key);
    const { store, generic, exportType } = this.deps;
    const kv = store.get(`${EXPORTS_PREFIX}${cluster}/${name}`);
    if (!kv) return undefined;
    let exp = decodeStored(kv) as APIExport;
    if (exp.metadata?.deletionTimestamp) return undefined;
    const ctx: OpContext = { rt: exportType, cluster, namespace: '' };

    let ref = exp.spec?.identity?.secretRef;
    if (!ref?.name) {
      ref = { namespace: IDENTITY_NAMESPACE, name };
      this.ensureSecret(cluster, ref.namespace!, ref.name!);
      exp = generic.update(ctx, name, { ...exp, spec: { ...exp.spec, identity: { ...exp.spec?.identity, secretRef: ref } } }) as APIExport;
    }
    const secret = this.secret(cluster, ref.namespace ?? IDENTITY_NAMESPACE, ref.name!);
    const key64 = (secret?.data as Record<string, string> | undefined)?.key;
    const now = nowTimestamp();
    const status = { ...(exp.status ?? {}) };
    if (!key64) {
      status.conditions = setCondition(status.conditions, {
        type: 'IdentityValid',
        status: 'False',
        reason: 'IdentityVerificationFailed',
        message: secret ? `secret ${ref.namespace}/${ref.name} has no "key"` : `secret ${ref.namespace}/${ref.name} not found`,
      }, now);
    } else {
      const hash = identityHashOf(key64);
      if (status.identityHash && status.identityHash !== hash) {
        status.conditions = setCondition(status.conditions, {
          type: 'IdentityValid',
          status: 'False',
          reason: 'IdentityVerificationFailed',
          message: `hash mismatch: identity secret hash ${hash} must match status.identityHash ${status.identityHash}`,
        }, now);
      } else {
        status.identityHash = hash;
        status.conditions = setCondition(status.conditions, { type: 'IdentityValid', status: 'True' }, now);
      }
    }
    if (!jsonEqual(status, exp.status ?? {})) generic.update(ctx, name, { ...exp, status }, { subresource: 'status' });
    // A referenced secret may be created after the export.
    return key64 ? undefined : { requeueAfterMs: 2000 };
  }

  private secret(cluster: string, namespace: string, name: string): KubeObject | undefined {
    const { generic, secretType } = this.deps;
    try {
      return generic.get({ rt: secretType, cluster, namespace }, name);
    } catch (err) {
      if (err instanceof StatusError && err.code === 404) return undefined;
      throw err;
    }
  }

  private ensureSecret(cluster: string, namespace: string, name: string): void {
    const { generic, secretType, namespaceType, serviceAccountType } = this.deps;
    if (this.secret(cluster, namespace, name)) return;
    ensureNamespace(generic, { namespaceType, serviceAccountType }, cluster, namespace);
    generic.create(
      { rt: secretType, cluster, namespace },
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name, namespace },
        type: 'Opaque',
        data: { key: randomBytes(32).toString('base64') },
      },
    );
  }
}
