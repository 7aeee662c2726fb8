/**
 * Authenticates service-account tokens as kube-apiserver does, in the logical cluster the token names: the JWT
 * must verify and be meant for one of the target audiences, and its ServiceAccount (and the Secret it is bound
 * to, or that holds it) must still exist with the same uid in that cluster. The result carries kcp's
 * `authentication.kcp.io/cluster-name` extra, from which foreign-identity.ts tells local from foreign use.
 *
 * Signature checks are the expensive part and are cached (bounded, at most five minutes, never past the token's
 * expiry); the existence checks are point reads done on every request, so deleting a ServiceAccount or its
 * Secret takes effect at once.
 */
import { hash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { objectKey } from '../registry/stored-object.js';
import type { KubeObject, ResourceType } from '../registry/types.js';
import type { Store } from '../storage/store.js';
import { CLUSTER_NAME_EXTRA } from './foreign-identity.js';
import {
  serviceAccountUsername,
  TokenInvalidError,
  type ServiceAccountTokens,
  type VerifiedServiceAccountToken,
} from './service-account-tokens.js';
import type { UserInfo } from './user.js';

export const CREDENTIAL_ID_EXTRA = 'authentication.kubernetes.io/credential-id';
const CACHE_TTL_MS = 5 * 60_000;
const INVALIDATED = 'service account token has been invalidated';

export interface ServiceAccountAuthenticatorDeps {
  store: Store;
  tokens: ServiceAccountTokens;
  serviceAccounts: ResourceType;
  secrets: ResourceType;
  /** Verified tokens kept in memory (default 10,000). */
  cacheSize?: number;
}

export class ServiceAccountAuthenticator {
  private readonly verified: LRUCache<string, VerifiedServiceAccountToken>;

  constructor(private readonly deps: ServiceAccountAuthenticatorDeps) {
    this.verified = new LRUCache({ max: deps.cacheSize ?? 10_000, ttl: CACHE_TTL_MS });
  }

  /**
   * The user behind `token` for one of `audiences`; undefined when the token is not a service-account token of
   * ours; throws TokenInvalidError (with kube's reason) when it is ours but not valid (any more).
   */
  async authenticate(token: string, audiences: readonly string[]): Promise<{ user: UserInfo; audiences: string[] } | undefined> {
    const claims = await this.verify(token);
    if (!claims) return undefined;
    if (claims.expiresAt !== undefined && claims.expiresAt * 1000 + 60_000 < Date.now()) {
      throw new TokenInvalidError('service account token has expired');
    }
    // Legacy tokens name no audience: like kube, they count as meant for the API audiences.
    const matched = claims.legacy ? [...audiences] : claims.audiences.filter((a) => audiences.includes(a));
    if (matched.length === 0) {
      throw new TokenInvalidError(`token audiences ${JSON.stringify(claims.audiences)} is invalid for the target audiences ${JSON.stringify(audiences)}`);
    }
    this.checkStillValid(token, claims);
    return { user: serviceAccountUser(claims), audiences: matched };
  }

  private async verify(token: string): Promise<VerifiedServiceAccountToken | undefined> {
    // One-shot hash(): no Hash object per request.
    const key = hash('sha256', token, 'base64url');
    const hit = this.verified.get(key);
    if (hit) return hit;
    const claims = await this.deps.tokens.verify(token);
    if (!claims) return undefined;
    const ttl = claims.expiresAt === undefined ? CACHE_TTL_MS : Math.min(CACHE_TTL_MS, claims.expiresAt * 1000 - Date.now());
    if (ttl > 0) this.verified.set(key, claims, { ttl });
    return claims;
  }

  /** The ServiceAccount, and the Secret the token is tied to, exist unchanged in the token's own cluster. */
  private checkStillValid(token: string, claims: VerifiedServiceAccountToken): void {
    const sa = this.read(this.deps.serviceAccounts, claims, claims.name);
    if (!sa || sa.metadata?.uid !== claims.uid || sa.metadata?.deletionTimestamp) throw new TokenInvalidError(INVALIDATED);
    if (!claims.secret) return;
    const secret = this.read(this.deps.secrets, claims, claims.secret.name);
    if (!secret || secret.metadata?.deletionTimestamp) throw new TokenInvalidError(INVALIDATED);
    if (claims.legacy) {
      // kube's legacy validator: the Secret must still hold exactly this token, for exactly this account.
      const stored = (secret.data as Record<string, string> | undefined)?.token;
      if (!stored || Buffer.from(stored, 'base64').toString('utf8') !== token) throw new TokenInvalidError(INVALIDATED);
    } else if (secret.metadata?.uid !== claims.secret.uid) {
      throw new TokenInvalidError(INVALIDATED);
    }
  }

  private read(rt: ResourceType, claims: VerifiedServiceAccountToken, name: string): KubeObject | undefined {
    const kv = this.deps.store.get(objectKey(rt, claims.cluster, claims.namespace, name));
    return kv ? (JSON.parse(kv.value) as KubeObject) : undefined;
  }
}

/** kube's service-account user: its name, uid and groups, plus kcp's cluster of origin. */
export function serviceAccountUser(claims: VerifiedServiceAccountToken): UserInfo {
  const extra: Record<string, string[]> = { [CLUSTER_NAME_EXTRA]: [claims.cluster] };
  if (claims.jti) extra[CREDENTIAL_ID_EXTRA] = [`JTI=${claims.jti}`];
  return {
    username: serviceAccountUsername(claims.namespace, claims.name),
    uid: claims.uid,
    groups: ['system:serviceaccounts', `system:serviceaccounts:${claims.namespace}`, 'system:authenticated'],
    extra,
  };
}
