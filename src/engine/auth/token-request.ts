/**
 * TokenRequest, the `token` subresource of ServiceAccounts (`kubectl create token <sa> [--duration]
 * [--audience] [--bound-object-kind Secret --bound-object-name …]`): checks the request as kube-apiserver does and
 * answers with a freshly signed bound token. kcp serves no Pods or Nodes, so a token can only be bound to a Secret.
 */
import { badRequest, conflict, fieldErrors, invalid, notFound, type FieldError } from '../machinery/status.js';
import { nowTimestamp } from '../registry/object-rules.js';
import { objectKey } from '../registry/stored-object.js';
import type { KubeObject, ResourceType } from '../registry/types.js';
import type { Store } from '../storage/store.js';
import {
  DEFAULT_TOKEN_SECONDS,
  MAX_TOKEN_SECONDS,
  MIN_TOKEN_SECONDS,
  type ObjectRef,
  type ServiceAccountTokens,
} from './service-account-tokens.js';

const GROUP = 'authentication.k8s.io';
const tokenRequestKind = { group: GROUP, kind: 'TokenRequest' };

export interface TokenRequestDeps {
  store: Store;
  tokens: ServiceAccountTokens;
  serviceAccounts: ResourceType;
  secrets: ResourceType;
  /** Audiences a token gets when the request names none. */
  apiAudiences: readonly string[];
}

interface TokenRequestSpec {
  audiences?: unknown;
  expirationSeconds?: unknown;
  boundObjectRef?: { kind?: unknown; apiVersion?: unknown; name?: unknown; uid?: unknown } | null;
}

export async function createTokenRequest(
  deps: TokenRequestDeps,
  target: { cluster: string; namespace: string; name: string },
  input: KubeObject,
): Promise<KubeObject> {
  const { cluster, namespace, name } = target;
  const meta = input.metadata ?? {};
  if (meta.name && meta.name !== name) {
    throw invalid(tokenRequestKind, name, [fieldErrors.invalid('metadata.name', meta.name, 'must match the service account name if specified')]);
  }
  if (meta.namespace && meta.namespace !== namespace) {
    throw invalid(tokenRequestKind, name, [
      fieldErrors.invalid('metadata.namespace', meta.namespace, 'must match the service account namespace if specified'),
    ]);
  }
  const spec = (input.spec ?? {}) as TokenRequestSpec;
  const expirationSeconds = spec.expirationSeconds ?? DEFAULT_TOKEN_SECONDS;
  const audiences = Array.isArray(spec.audiences) && spec.audiences.length > 0 ? (spec.audiences as unknown[]) : [...deps.apiAudiences];
  validateSpec(name, expirationSeconds, audiences);

  const sa = readObject(deps.store, deps.serviceAccounts, cluster, namespace, name);
  if (!sa) throw notFound({ group: '', resource: 'serviceaccounts' }, name);
  const boundSecret = spec.boundObjectRef ? bindTarget(deps, target, spec.boundObjectRef) : undefined;

  const issued = await deps.tokens.issue({
    serviceAccount: { cluster, namespace, name, uid: sa.metadata!.uid! },
    audiences: audiences as string[],
    expirationSeconds: expirationSeconds as number,
    boundSecret,
  });
  return {
    kind: 'TokenRequest',
    apiVersion: `${GROUP}/v1`,
    metadata: { name, namespace, creationTimestamp: nowTimestamp() },
    spec: {
      audiences,
      expirationSeconds,
      boundObjectRef: spec.boundObjectRef ? { ...spec.boundObjectRef, uid: boundSecret!.uid } : null,
    },
    status: { token: issued.token, expirationTimestamp: new Date(issued.expiresAt * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z') },
  };
}

function validateSpec(name: string, expirationSeconds: unknown, audiences: unknown[]): void {
  const errs: FieldError[] = [];
  if (typeof expirationSeconds !== 'number' || !Number.isInteger(expirationSeconds)) {
    errs.push(fieldErrors.invalid('spec.expirationSeconds', String(expirationSeconds), 'must be an integer number of seconds'));
  } else if (expirationSeconds < MIN_TOKEN_SECONDS) {
    errs.push(fieldErrors.invalid('spec.expirationSeconds', expirationSeconds, 'may not specify a duration less than 10 minutes'));
  } else if (expirationSeconds > MAX_TOKEN_SECONDS) {
    errs.push(fieldErrors.invalid('spec.expirationSeconds', expirationSeconds, 'may not specify a duration larger than 2^32 seconds'));
  }
  audiences.forEach((a, i) => {
    if (typeof a !== 'string' || a === '') errs.push(fieldErrors.invalid(`spec.audiences[${i}]`, String(a), 'must be a non-empty string'));
  });
  if (errs.length > 0) throw invalid(tokenRequestKind, name, errs);
}

/** The object a token is bound to: only Secrets exist in kcp; Pods and Nodes are never found. */
function bindTarget(
  deps: TokenRequestDeps,
  target: { cluster: string; namespace: string; name: string },
  ref: NonNullable<TokenRequestSpec['boundObjectRef']>,
): ObjectRef {
  const kind = typeof ref.kind === 'string' ? ref.kind : '';
  const apiVersion = typeof ref.apiVersion === 'string' ? ref.apiVersion : '';
  const group = apiVersion.includes('/') ? apiVersion.split('/')[0]! : '';
  const version = apiVersion.includes('/') ? apiVersion.split('/')[1]! : apiVersion;
  const objectName = typeof ref.name === 'string' ? ref.name : '';
  if (group === '' && (kind === 'Pod' || kind === 'Node')) throw notFound({ group: '', resource: `${kind.toLowerCase()}s` }, objectName);
  if (group !== '' || kind !== 'Secret') {
    throw badRequest(`cannot bind token for serviceaccount "${target.name}" to object of kind "${group}/${version}, Kind=${kind}"`);
  }
  const secret = readObject(deps.store, deps.secrets, target.cluster, target.namespace, objectName);
  if (!secret) throw notFound({ group: '', resource: 'secrets' }, objectName);
  const uid = secret.metadata!.uid!;
  if (typeof ref.uid === 'string' && ref.uid !== '' && ref.uid !== uid) {
    throw conflict(
      { group: '', resource: 'Secret' },
      objectName,
      `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`,
    );
  }
  return { name: objectName, uid };
}

function readObject(store: Store, rt: ResourceType, cluster: string, namespace: string, name: string): KubeObject | undefined {
  const kv = store.get(objectKey(rt, cluster, namespace, name));
  return kv ? (JSON.parse(kv.value) as KubeObject) : undefined;
}
