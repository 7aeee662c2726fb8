/**
 * Who is asking, for the few answers the proxy gives itself: `~` in a `/clusters/` path (the caller's home) and
 * kcp's 403 for a path it cannot route, which names the user. The proxy otherwise never authenticates (the shard
 * does, from the forwarded header), so it asks the root shard with a TokenReview and caches the answer as kube's
 * webhook token authenticator does: valid answers ~2 minutes, rejections ~10 seconds.
 */
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { ShardClient } from '../shards/shard-client.js';

const VALID_TTL_MS = 2 * 60_000;
const INVALID_TTL_MS = 10_000;

interface Review {
  username?: string;
}

interface TokenReviewAnswer {
  status?: { authenticated?: boolean; user?: { username?: string } };
}

export class TokenReviewer {
  private readonly cache = new LRUCache<string, Review>({ max: 4096, ttlAutopurge: false });

  constructor(private readonly root: ShardClient) {}

  /** The username of a `Bearer` Authorization header, or undefined when there is none or root rejects it. */
  async username(authorization: string | undefined): Promise<string | undefined> {
    const match = authorization ? /^Bearer\s+(\S+)\s*$/i.exec(authorization) : null;
    if (!match) return undefined;
    const key = createHash('sha256').update(match[1]!).digest('base64');
    let review = this.cache.get(key);
    if (!review) {
      const answer = await this.root.requestJson<TokenReviewAnswer>('/clusters/root/apis/authentication.k8s.io/v1/tokenreviews', {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenReview',
        spec: { token: match[1] },
      });
      const username = answer.status?.authenticated ? answer.status.user?.username : undefined;
      review = username ? { username } : {};
      this.cache.set(key, review, { ttl: username ? VALID_TTL_MS : INVALID_TTL_MS });
    }
    return review.username;
  }
}
