/**
 * Service-account JWTs as kube-apiserver issues them, plus kcp's logical-cluster claim:
 * - bound tokens (TokenRequest, `kubectl create token`): issuer `https://kcp.default.svc`, an audience, an expiry,
 *   a `jti`, and the private `kubernetes.io` claim {clusterName, namespace, serviceaccount {name, uid}, secret?};
 * - legacy tokens (Secrets of type kubernetes.io/service-account-token): issuer `kubernetes/serviceaccount`, no
 *   expiry, flat `kubernetes.io/serviceaccount/…` claims (kcp adds `kubernetes.io/serviceaccount/clusterName`).
 * This module signs and checks the JWT itself (signature, issuer, times, claim shapes); whether the service account
 * still exists is the authenticator's job.
 */
import { randomUUID } from 'node:crypto';
import { errors as joseErrors, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import type { ServiceAccountKey } from './service-account-key.js';

/** kcp's service-account issuer (kube-apiserver's `--service-account-issuer`). */
export const SERVICE_ACCOUNT_ISSUER = 'https://kcp.default.svc';
/** The issuer kube writes into Secret-based tokens. */
export const LEGACY_ISSUER = 'kubernetes/serviceaccount';
/** kube's TokenRequest default (`expirationSeconds`) and bounds. */
export const DEFAULT_TOKEN_SECONDS = 3600;
export const MIN_TOKEN_SECONDS = 600;
export const MAX_TOKEN_SECONDS = 2 ** 32;
/** Clock skew tolerated on exp/nbf, as kube's JWT validation (one minute). */
const LEEWAY_SECONDS = 60;

const LEGACY = 'kubernetes.io/serviceaccount/';

export interface ServiceAccountRef {
  /** The logical cluster the ServiceAccount lives in. */
  cluster: string;
  namespace: string;
  name: string;
  uid: string;
}

export interface ObjectRef {
  name: string;
  uid: string;
}

/** What a valid token says about its subject. */
export interface VerifiedServiceAccountToken extends ServiceAccountRef {
  legacy: boolean;
  /** Audiences the token was issued for; empty for legacy tokens (they count for the API audiences). */
  audiences: string[];
  /** Bound tokens: the Secret the token is bound to. Legacy tokens: the Secret holding the token. */
  secret?: ObjectRef;
  /** Bound tokens' unique id (kube's credential id is `JTI=<jti>`). */
  jti?: string;
  /** Seconds since the epoch; undefined for legacy tokens, which never expire. */
  expiresAt?: number;
}

export interface BoundTokenRequest {
  serviceAccount: ServiceAccountRef;
  audiences: string[];
  expirationSeconds: number;
  boundSecret?: ObjectRef;
  /** Seconds since the epoch (tests pin it). */
  now?: number;
}

export class TokenInvalidError extends Error {}

export class ServiceAccountTokens {
  constructor(
    private readonly key: ServiceAccountKey,
    readonly issuer: string = SERVICE_ACCOUNT_ISSUER,
  ) {}

  /** Signs a bound token; returns it with its expiry (seconds since the epoch). */
  async issue(request: BoundTokenRequest): Promise<{ token: string; expiresAt: number; jti: string }> {
    const now = request.now ?? Math.floor(Date.now() / 1000);
    const sa = request.serviceAccount;
    const jti = randomUUID();
    const expiresAt = now + request.expirationSeconds;
    const privateClaim: Record<string, unknown> = {
      clusterName: sa.cluster,
      namespace: sa.namespace,
      serviceaccount: { name: sa.name, uid: sa.uid },
    };
    if (request.boundSecret) privateClaim.secret = { name: request.boundSecret.name, uid: request.boundSecret.uid };
    const token = await new SignJWT({ 'kubernetes.io': privateClaim })
      .setProtectedHeader({ alg: 'RS256', kid: this.key.keyId })
      .setIssuer(this.issuer)
      .setSubject(serviceAccountUsername(sa.namespace, sa.name))
      .setAudience(request.audiences)
      .setIssuedAt(now)
      .setNotBefore(now)
      .setExpirationTime(expiresAt)
      .setJti(jti)
      .sign(this.key.privateKey);
    return { token, expiresAt, jti };
  }

  /** Signs the never-expiring token kube's tokens controller puts into a service-account-token Secret. */
  issueLegacy(sa: ServiceAccountRef, secretName: string): Promise<string> {
    return new SignJWT({
      [`${LEGACY}namespace`]: sa.namespace,
      [`${LEGACY}secret.name`]: secretName,
      [`${LEGACY}service-account.name`]: sa.name,
      [`${LEGACY}service-account.uid`]: sa.uid,
      [`${LEGACY}clusterName`]: sa.cluster,
    })
      .setProtectedHeader({ alg: 'RS256', kid: this.key.keyId })
      .setIssuer(LEGACY_ISSUER)
      .setSubject(serviceAccountUsername(sa.namespace, sa.name))
      .sign(this.key.privateKey);
  }

  /**
   * Checks signature, issuer, expiry and the claims' shape. Resolves undefined for tokens that are not ours at all
   * (not a JWT, another issuer) so other authenticators may try them; throws TokenInvalidError for our tokens
   * that fail a check.
   */
  async verify(token: string, nowSeconds?: number): Promise<VerifiedServiceAccountToken | undefined> {
    if (!looksLikeJwt(token)) return undefined;
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.key.publicKey, {
        issuer: [this.issuer, LEGACY_ISSUER],
        algorithms: ['RS256'],
        clockTolerance: LEEWAY_SECONDS,
        ...(nowSeconds !== undefined ? { currentDate: new Date(nowSeconds * 1000) } : {}),
      }));
    } catch (err) {
      if (err instanceof joseErrors.JWTExpired) throw new TokenInvalidError('service account token has expired');
      if (err instanceof joseErrors.JWTClaimValidationFailed && err.claim === 'iss') return undefined;
      if (err instanceof joseErrors.JOSEError) return undefined;
      throw err;
    }
    return payload.iss === LEGACY_ISSUER ? legacyClaims(payload) : boundClaims(payload);
  }
}

export function serviceAccountUsername(namespace: string, name: string): string {
  return `system:serviceaccount:${namespace}:${name}`;
}

/** Cheap shape test before any crypto: three base64url segments, the header decoding to JSON with `alg`. */
function looksLikeJwt(token: string): boolean {
  const parts = token.split('.');
  if (parts.length !== 3 || parts.some((p) => !/^[A-Za-z0-9_-]+$/.test(p))) return false;
  try {
    return typeof (JSON.parse(Buffer.from(parts[0]!, 'base64url').toString('utf8')) as { alg?: unknown }).alg === 'string';
  } catch {
    return false;
  }
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function boundClaims(payload: JWTPayload): VerifiedServiceAccountToken {
  const kube = (payload['kubernetes.io'] ?? {}) as {
    clusterName?: unknown;
    namespace?: unknown;
    serviceaccount?: { name?: unknown; uid?: unknown };
    secret?: { name?: unknown; uid?: unknown };
  };
  const cluster = text(kube.clusterName);
  const namespace = text(kube.namespace);
  const name = text(kube.serviceaccount?.name);
  const uid = text(kube.serviceaccount?.uid);
  if (!cluster || !namespace || !name || !uid) throw new TokenInvalidError('service account token claims are incomplete');
  if (payload.sub !== serviceAccountUsername(namespace, name)) throw new TokenInvalidError('service account token subject does not match its claims');
  if (payload.exp === undefined) throw new TokenInvalidError('service account token has no expiry');
  const audiences = typeof payload.aud === 'string' ? [payload.aud] : (payload.aud ?? []);
  const result: VerifiedServiceAccountToken = { cluster, namespace, name, uid, legacy: false, audiences, expiresAt: payload.exp };
  if (payload.jti) result.jti = payload.jti;
  const secretName = text(kube.secret?.name);
  const secretUid = text(kube.secret?.uid);
  if (secretName && secretUid) result.secret = { name: secretName, uid: secretUid };
  return result;
}

function legacyClaims(payload: JWTPayload): VerifiedServiceAccountToken {
  const cluster = text(payload[`${LEGACY}clusterName`]);
  const namespace = text(payload[`${LEGACY}namespace`]);
  const name = text(payload[`${LEGACY}service-account.name`]);
  const uid = text(payload[`${LEGACY}service-account.uid`]);
  const secretName = text(payload[`${LEGACY}secret.name`]);
  if (!cluster || !namespace || !name || !uid || !secretName) throw new TokenInvalidError('service account token claims are incomplete');
  if (payload.sub !== serviceAccountUsername(namespace, name)) throw new TokenInvalidError('service account token subject does not match its claims');
  return { cluster, namespace, name, uid, legacy: true, audiences: [], secret: { name: secretName, uid: '' } };
}
