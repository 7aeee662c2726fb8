/**
 * The JWTs themselves: kube's claims plus kcp's cluster, expiry with kube's one-minute leeway, and which tokens are
 * "not ours" (left to other authenticators) versus ours but invalid. Also the key file: 0600, kept across starts.
 */
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadOrCreateServiceAccountKey, type ServiceAccountKey } from './service-account-key.js';
import { LEGACY_ISSUER, SERVICE_ACCOUNT_ISSUER, ServiceAccountTokens, TokenInvalidError } from './service-account-tokens.js';

const sa = { cluster: 'abc123', namespace: 'team', name: 'robot', uid: '11111111-2222-3333-4444-555555555555' };
let dir: string;
let key: ServiceAccountKey;
let tokens: ServiceAccountTokens;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'kcpt-sa-'));
  key = await loadOrCreateServiceAccountKey(dir);
  tokens = new ServiceAccountTokens(key);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('sa.key', () => {
  it('is written 0600 on first start and reused afterwards', async () => {
    const file = path.join(dir, 'sa.key');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const again = await loadOrCreateServiceAccountKey(dir);
    expect(again.keyId).toBe(key.keyId);
    expect(await readFile(file, 'utf8')).toMatch(/^-----BEGIN RSA PRIVATE KEY-----/);
  });

  it('refuses a broken key file with advice instead of replacing it', async () => {
    const other = await mkdtemp(path.join(os.tmpdir(), 'kcpt-sa-bad-'));
    try {
      await (await import('node:fs/promises')).writeFile(path.join(other, 'sa.key'), 'not a key');
      await expect(loadOrCreateServiceAccountKey(other)).rejects.toThrow(/sa.key" is not a valid PEM private key.*remove it and restart kcpt/);
    } finally {
      await rm(other, { recursive: true, force: true });
    }
  });
});

describe('bound tokens', () => {
  it("carry kube's claims and kcp's cluster name", async () => {
    const now = 1_900_000_000;
    const secret = { name: 'bound', uid: '99999999-0000-0000-0000-000000000000' };
    const { token, expiresAt, jti } = await tokens.issue({ serviceAccount: sa, audiences: ['aud-1'], expirationSeconds: 1200, boundSecret: secret, now });
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'RS256', kid: key.keyId });
    expect(decodeJwt(token)).toEqual({
      iss: SERVICE_ACCOUNT_ISSUER,
      sub: 'system:serviceaccount:team:robot',
      aud: ['aud-1'],
      iat: now,
      nbf: now,
      exp: now + 1200,
      jti,
      'kubernetes.io': { clusterName: 'abc123', namespace: 'team', serviceaccount: { name: 'robot', uid: sa.uid }, secret },
    });
    expect(expiresAt).toBe(now + 1200);
    expect(await tokens.verify(token, now + 10)).toEqual({ ...sa, legacy: false, audiences: ['aud-1'], secret, jti, expiresAt: now + 1200 });
  });

  it('expire (with a minute of leeway)', async () => {
    const now = 1_900_000_000;
    const { token } = await tokens.issue({ serviceAccount: sa, audiences: ['a'], expirationSeconds: 600, now });
    await expect(tokens.verify(token, now + 600 + 59)).resolves.toBeDefined();
    await expect(tokens.verify(token, now + 600 + 61)).rejects.toThrow(new TokenInvalidError('service account token has expired'));
  });

  it('from another key or in another shape are not ours', async () => {
    const otherDir = await mkdtemp(path.join(os.tmpdir(), 'kcpt-sa-other-'));
    try {
      const other = new ServiceAccountTokens(await loadOrCreateServiceAccountKey(otherDir));
      const { token } = await other.issue({ serviceAccount: sa, audiences: ['a'], expirationSeconds: 600 });
      await expect(tokens.verify(token)).resolves.toBeUndefined();
      await expect(tokens.verify('admin-token')).resolves.toBeUndefined();
      await expect(tokens.verify('a.b.c')).resolves.toBeUndefined();
      const [h, p, s] = (await tokens.issue({ serviceAccount: sa, audiences: ['a'], expirationSeconds: 600 })).token.split('.');
      const forged = Buffer.from(JSON.stringify({ ...decodeJwt(`${h}.${p}.${s}`), sub: 'system:serviceaccount:kube-system:admin' })).toString('base64url');
      await expect(tokens.verify(`${h}.${forged}.${s}`)).resolves.toBeUndefined();
    } finally {
      await rm(otherDir, { recursive: true, force: true });
    }
  });
});

describe('legacy tokens', () => {
  it("carry kube's flat claims, kcp's cluster, and never expire", async () => {
    const token = await tokens.issueLegacy(sa, 'robot-token');
    expect(decodeJwt(token)).toEqual({
      iss: LEGACY_ISSUER,
      sub: 'system:serviceaccount:team:robot',
      'kubernetes.io/serviceaccount/namespace': 'team',
      'kubernetes.io/serviceaccount/secret.name': 'robot-token',
      'kubernetes.io/serviceaccount/service-account.name': 'robot',
      'kubernetes.io/serviceaccount/service-account.uid': sa.uid,
      'kubernetes.io/serviceaccount/clusterName': 'abc123',
    });
    const verified = await tokens.verify(token, 4_000_000_000);
    expect(verified).toMatchObject({ ...sa, legacy: true, audiences: [], secret: { name: 'robot-token' } });
    expect(verified?.expiresAt).toBeUndefined();
  });
});
