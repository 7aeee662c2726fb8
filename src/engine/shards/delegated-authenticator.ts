/**
 * Bearer tokens on a non-root shard: the shard's own tokens first (its admin tokens, `--token-auth-file`, its
 * service accounts), then a TokenReview to the root shard, the way kube's webhook token authenticator delegates:
 * answers are cached (valid ones ~2 minutes, invalid ones ~10 seconds), so kcp-admin, root's users and
 * `--token-auth-file` users work on every shard while root is asked about each token rarely. Root being
 * unreachable is not cached: the request gets 401 and the next one asks again.
 */
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { BearerTokenAuthenticator, TokenReviewResult } from '../auth/bearer-authenticator.js';
import type { UserInfo } from '../auth/user.js';
import type { ShardClient } from './shard-client.js';

const VALID_TTL_MS = 2 * 60_000;
const INVALID_TTL_MS = 10_000;
const CACHED_TOKENS = 4096;
const TOKEN_REVIEW_PATH = '/clusters/root/apis/authentication.k8s.io/v1/tokenreviews';

interface ReviewBody {
  status?: { authenticated?: boolean; user?: Partial<UserInfo>; audiences?: string[]; error?: string };
}

export class DelegatedTokenAuthenticator {
  /** sha256(token) → root's answer; the token itself is never kept. */
  private readonly answers = new LRUCache<string, TokenReviewResult>({ max: CACHED_TOKENS, ttlAutopurge: false });
  /** One TokenReview in flight per token, however many requests carry it at once. */
  private readonly inflight = new Map<string, Promise<TokenReviewResult>>();

  constructor(
    private readonly local: BearerTokenAuthenticator,
    private readonly client: ShardClient,
  ) {}

  get apiAudiences(): readonly string[] {
    return this.local.apiAudiences;
  }

  async authenticate(token: string): Promise<UserInfo | undefined> {
    const result = await this.review(token);
    return result.authenticated ? result.user : undefined;
  }

  /** This shard's answer when it knows the token; otherwise root's (for root's own audiences). */
  async review(token: string, audiences: readonly string[] = []): Promise<TokenReviewResult> {
    const mine = await this.local.review(token, audiences);
    if (mine.authenticated || token === '' || audiences.length > 0) return mine;
    const key = createHash('sha256').update(token).digest('base64url');
    const cached = this.answers.get(key);
    if (cached) return cached;
    let pending = this.inflight.get(key);
    if (!pending) {
      pending = this.askRoot(token, key).finally(() => this.inflight.delete(key));
      this.inflight.set(key, pending);
    }
    return pending;
  }

  private async askRoot(token: string, key: string): Promise<TokenReviewResult> {
    let res;
    try {
      res = await this.client.root<ReviewBody>('POST', TOKEN_REVIEW_PATH, {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenReview',
        spec: { token },
      });
    } catch (err) {
      return { authenticated: false, error: `the root shard could not review the token: ${(err as Error).message}` };
    }
    if (res.status !== 201 && res.status !== 200) {
      return { authenticated: false, error: `the root shard could not review the token (HTTP ${res.status})` };
    }
    const status = res.body.status ?? {};
    const user = status.user;
    const result: TokenReviewResult =
      status.authenticated && user?.username
        ? {
            authenticated: true,
            user: { username: user.username, uid: user.uid ?? '', groups: [...(user.groups ?? [])], ...(user.extra ? { extra: user.extra } : {}) },
            audiences: [...this.local.apiAudiences],
          }
        : { authenticated: false, error: status.error ?? 'invalid bearer token' };
    this.answers.set(key, result, { ttl: result.authenticated ? VALID_TTL_MS : INVALID_TTL_MS });
    return result;
  }
}
