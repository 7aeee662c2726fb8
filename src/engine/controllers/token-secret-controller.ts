/**
 * kube's tokens controller, for legacy service-account token Secrets: a Secret of type
 * `kubernetes.io/service-account-token` annotated `kubernetes.io/service-account.name: <sa>` gets `data.token`
 * (a never-expiring token for that account in this logical cluster), `data["ca.crt"]`, `data.namespace` and the
 * `kubernetes.io/service-account.uid` annotation. A token Secret whose account does not exist (or is another
 * account by now: uid mismatch) is deleted, and deleting an account deletes its token Secrets; the authenticator
 * refuses such tokens at once anyway, since it checks the Secret and account on every request.
 */
import { StatusError } from '../machinery/status.js';
import type { GenericStore, OpContext } from '../registry/generic-store.js';
import { decodeStored, objectKey } from '../registry/stored-object.js';
import type { KubeObject, ResourceType } from '../registry/types.js';
import type { Store } from '../storage/store.js';
import type { ServiceAccountTokens } from '../auth/service-account-tokens.js';
import { defineController, type Controller } from './controller.js';

export const SERVICE_ACCOUNT_TOKEN_TYPE = 'kubernetes.io/service-account-token';
export const SERVICE_ACCOUNT_NAME_ANNOTATION = 'kubernetes.io/service-account.name';
export const SERVICE_ACCOUNT_UID_ANNOTATION = 'kubernetes.io/service-account.uid';

export interface TokenSecretControllerDeps {
  store: Store;
  generic: GenericStore;
  secretType: ResourceType;
  serviceAccountType: ResourceType;
  tokens: ServiceAccountTokens;
  /** The cluster CA clients verify the server with, put into `ca.crt`. */
  caCertPem: string;
  onError?(controller: string, key: string, err: unknown): void;
}

const SECRET = 'secret:';
const ACCOUNT = 'account:';

export function tokenSecretController(deps: TokenSecretControllerDeps): Controller {
  const tokens = new TokenSecrets(deps);
  return defineController({
    name: 'tokens',
    store: deps.store,
    onError: deps.onError,
    watches(feed) {
      const { secretRoot, accountRoot } = tokens;
      feed.watch(secretRoot, (e) => {
        // String work only inside the commit: most Secrets are not token Secrets.
        if (e.type !== 'DELETED' && e.value.includes(SERVICE_ACCOUNT_TOKEN_TYPE)) feed.add(SECRET + e.key.slice(secretRoot.length));
      });
      feed.watch(accountRoot, (e) => {
        if (e.type !== 'DELETED') return;
        const uid = /"uid":"([^"]+)"/.exec(e.value)?.[1] ?? '';
        feed.add(`${ACCOUNT}${e.key.slice(accountRoot.length)}/${uid}`);
      });
    },
    reconcile: (key) => tokens.reconcile(key),
  });
}

/** The reconcile: a token Secret filled in or deleted, or a deleted account's token Secrets deleted. */
class TokenSecrets {
  readonly secretRoot: string;
  readonly accountRoot: string;

  constructor(private readonly deps: TokenSecretControllerDeps) {
    this.secretRoot = `/registry/${deps.secretType.storagePrefix}/`;
    this.accountRoot = `/registry/${deps.serviceAccountType.storagePrefix}/`;
  }

  async reconcile(key: string): Promise<void> {
    if (key.startsWith(SECRET)) return this.syncSecret(...splitKey(key.slice(SECRET.length)));
    // `account:<cluster>/<namespace>/<name>/<uid>`
    const rest = key.slice(ACCOUNT.length);
    const uidSlash = rest.lastIndexOf('/');
    const [cluster, namespace, name] = splitKey(rest.slice(0, uidSlash));
    return this.deleteTokensOf(cluster, namespace, name, rest.slice(uidSlash + 1));
  }

  private async syncSecret(cluster: string, namespace: string, name: string): Promise<void> {
    const { store, generic, secretType, serviceAccountType } = this.deps;
    const kv = store.get(objectKey(secretType, cluster, namespace, name));
    if (!kv) return;
    const secret = decodeStored(kv);
    if (secret.type !== SERVICE_ACCOUNT_TOKEN_TYPE || secret.metadata?.deletionTimestamp) return;
    const annotations = secret.metadata?.annotations ?? {};
    const accountName = annotations[SERVICE_ACCOUNT_NAME_ANNOTATION] ?? '';
    const accountKv = accountName ? store.get(objectKey(serviceAccountType, cluster, namespace, accountName)) : undefined;
    const account = accountKv ? (JSON.parse(accountKv.value) as KubeObject) : undefined;
    const wantedUid = annotations[SERVICE_ACCOUNT_UID_ANNOTATION];
    const ctx: OpContext = { rt: secretType, cluster, namespace };
    if (!account || (wantedUid && wantedUid !== account.metadata?.uid)) {
      deleteIgnoringGone(generic, ctx, name, secret.metadata?.uid);
      return;
    }
    const data = (secret.data ?? {}) as Record<string, string>;
    const uid = account.metadata!.uid!;
    if (data.token && data['ca.crt'] && data.namespace && wantedUid === uid) return;
    const token = data.token
      ? Buffer.from(data.token, 'base64').toString('utf8')
      : await this.deps.tokens.issueLegacy({ cluster, namespace, name: accountName, uid }, name);
    const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
    const next: KubeObject = {
      ...secret,
      metadata: { ...secret.metadata, annotations: { ...annotations, [SERVICE_ACCOUNT_UID_ANNOTATION]: uid } },
      data: { ...data, token: b64(token), 'ca.crt': b64(this.deps.caCertPem), namespace: b64(namespace) },
    };
    try {
      // Conditional on the revision read: a concurrent edit is re-read on the next round.
      generic.update(ctx, name, next, { fieldManager: 'kcpt-tokens-controller' }, kv.revision);
    } catch (err) {
      if (err instanceof StatusError && (err.code === 404 || err.code === 409)) return;
      throw err;
    }
  }

  /** kube deletes the token Secrets of a deleted ServiceAccount. */
  private deleteTokensOf(cluster: string, namespace: string, account: string, uid: string): void {
    const { store, generic, secretType } = this.deps;
    const ctx: OpContext = { rt: secretType, cluster, namespace };
    for (const kv of store.list(`${this.secretRoot}${cluster}/${namespace}/`).items) {
      if (!kv.value.includes(SERVICE_ACCOUNT_TOKEN_TYPE)) continue;
      const secret = JSON.parse(kv.value) as KubeObject;
      const annotations = secret.metadata?.annotations ?? {};
      if (secret.type !== SERVICE_ACCOUNT_TOKEN_TYPE || annotations[SERVICE_ACCOUNT_NAME_ANNOTATION] !== account) continue;
      const tokenUid = annotations[SERVICE_ACCOUNT_UID_ANNOTATION];
      if (tokenUid && uid && tokenUid !== uid) continue;
      deleteIgnoringGone(generic, ctx, secret.metadata!.name!, secret.metadata?.uid);
    }
  }
}

/** `<cluster>/<namespace>/<name>`; cluster names hold no `/`. */
function splitKey(key: string): [string, string, string] {
  const [cluster, namespace, ...name] = key.split('/');
  return [cluster!, namespace!, name.join('/')];
}

function deleteIgnoringGone(generic: GenericStore, ctx: OpContext, name: string, uid: string | undefined): void {
  try {
    generic.delete(ctx, name, { preconditions: uid ? { uid } : undefined });
  } catch (err) {
    if (err instanceof StatusError && (err.code === 404 || err.code === 409)) return;
    throw err;
  }
}
