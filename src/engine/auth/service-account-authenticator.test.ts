/**
 * Service-account authentication over a real generic store: the identity kube gives an account (plus kcp's
 * cluster), audiences as TokenReview asks for them, tokens invalidated when their account or Secret goes away or
 * is replaced, and the foreign-identity mapping of kcp when a token is used in another logical cluster.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { namespaces, secrets, serviceAccounts } from '../builtin/core/resources.js';
import { GenericStore, type OpContext } from '../registry/generic-store.js';
import type { ResourceType } from '../registry/types.js';
import { createMemoryStore } from '../storage/index.js';
import { openSqliteStore } from '../storage/sqlite-store.js';
import type { Store } from '../storage/store.js';
import { BearerTokenAuthenticator } from './bearer-authenticator.js';
import { identityInCluster, isForeignIn, isInScope, scopedToCluster } from './foreign-identity.js';
import { ServiceAccountAuthenticator } from './service-account-authenticator.js';
import { loadOrCreateServiceAccountKey } from './service-account-key.js';
import { SERVICE_ACCOUNT_ISSUER, ServiceAccountTokens } from './service-account-tokens.js';
import { StaticTokenAuthenticator } from './token-store.js';
import { WriteAuthority } from '../admission/write-authority.js';

let dir: string;
let tokens: ServiceAccountTokens;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'kcpt-saauth-'));
  tokens = new ServiceAccountTokens(await loadOrCreateServiceAccountKey(dir));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

function setup(store: Store = createMemoryStore()) {
  const generic = new GenericStore(store, namespaces, { authority: new WriteAuthority() });
  const ctx = (rt: ResourceType, cluster = 'ws1', namespace = 'default'): OpContext => ({ rt, cluster, namespace });
  for (const c of ['ws1', 'ws2']) generic.create(ctx(namespaces, c, ''), { metadata: { name: 'default' } });
  const account = (name: string, cluster = 'ws1') => generic.create(ctx(serviceAccounts, cluster), { metadata: { name } });
  const saAuth = new ServiceAccountAuthenticator({ store, tokens, serviceAccounts, secrets });
  const staticUsers = new StaticTokenAuthenticator([{ token: 'admin-token', user: { username: 'admin', uid: '1', groups: ['system:masters'] } }]);
  const authn = new BearerTokenAuthenticator(staticUsers, saAuth, [SERVICE_ACCOUNT_ISSUER]);
  const issue = async (name: string, o: { cluster?: string; audiences?: string[]; secret?: { name: string; uid: string } } = {}) => {
    const sa = generic.get(ctx(serviceAccounts, o.cluster ?? 'ws1'), name);
    const issued = await tokens.issue({
      serviceAccount: { cluster: o.cluster ?? 'ws1', namespace: 'default', name, uid: sa.metadata!.uid! },
      audiences: o.audiences ?? [SERVICE_ACCOUNT_ISSUER],
      expirationSeconds: 3600,
      boundSecret: o.secret,
    });
    return issued.token;
  };
  return { store, generic, ctx, account, authn, issue };
}

describe('service-account tokens', () => {
  it("authenticate as kube's service-account user, with kcp's cluster and the credential id", async () => {
    const { account, authn, issue } = setup();
    const sa = account('robot');
    const review = await authn.review(await issue('robot'));
    expect(review).toMatchObject({
      authenticated: true,
      audiences: [SERVICE_ACCOUNT_ISSUER],
      user: {
        username: 'system:serviceaccount:default:robot',
        uid: sa.metadata!.uid,
        groups: ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated'],
        extra: { 'authentication.kcp.io/cluster-name': ['ws1'] },
      },
    });
    expect(review.authenticated && review.user.extra?.['authentication.kubernetes.io/credential-id']?.[0]).toMatch(/^JTI=[0-9a-f-]{36}$/);
  });

  it('are only valid for their audiences; TokenReview may ask for others', async () => {
    const { account, authn, issue } = setup();
    account('robot');
    const token = await issue('robot', { audiences: ['vault'] });
    expect(await authn.authenticate(token)).toBeUndefined();
    expect(await authn.review(token)).toEqual({
      authenticated: false,
      error: `[invalid bearer token, token audiences ["vault"] is invalid for the target audiences ["${SERVICE_ACCOUNT_ISSUER}"]]`,
    });
    expect(await authn.review(token, ['vault', 'other'])).toMatchObject({ authenticated: true, audiences: ['vault'] });
    // Static tokens are audience-agnostic: good for the API audiences only.
    expect(await authn.review('admin-token', ['vault'])).toEqual({ authenticated: false, error: 'invalid bearer token' });
    expect(await authn.review('admin-token')).toMatchObject({ authenticated: true, audiences: [SERVICE_ACCOUNT_ISSUER] });
  });

  it('stop working when the account is deleted or replaced by one of the same name', async () => {
    const { account, authn, issue, generic, ctx } = setup();
    account('robot');
    const token = await issue('robot');
    expect(await authn.authenticate(token)).toBeDefined(); // now cached
    generic.delete(ctx(serviceAccounts), 'robot');
    expect(await authn.review(token)).toEqual({ authenticated: false, error: '[invalid bearer token, service account token has been invalidated]' });
    account('robot');
    expect(await authn.authenticate(token)).toBeUndefined();
  });

  it('stop working at once over the SQLite store, whose reads are cached', async () => {
    const store = openSqliteStore(path.join(dir, 'revoke.db'));
    try {
      const { account, authn, issue, generic, ctx } = setup(store);
      account('robot');
      const secret = generic.create(ctx(secrets), { metadata: { name: 'anchor' } });
      const token = await issue('robot', { secret: { name: 'anchor', uid: secret.metadata!.uid! } });
      for (let i = 0; i < 3; i++) expect(await authn.authenticate(token)).toBeDefined();
      generic.delete(ctx(secrets), 'anchor');
      expect(await authn.authenticate(token)).toBeUndefined();
      generic.create(ctx(secrets), { metadata: { name: 'anchor' } });
      expect(await authn.authenticate(token)).toBeUndefined();
      const other = await issue('robot');
      expect(await authn.authenticate(other)).toBeDefined();
      generic.delete(ctx(serviceAccounts), 'robot');
      expect(await authn.authenticate(other)).toBeUndefined();
    } finally {
      store.close();
    }
  });

  it('bound to a Secret stop working with the Secret', async () => {
    const { account, authn, issue, generic, ctx } = setup();
    account('robot');
    const secret = generic.create(ctx(secrets), { metadata: { name: 'anchor' } });
    const token = await issue('robot', { secret: { name: 'anchor', uid: secret.metadata!.uid! } });
    expect(await authn.authenticate(token)).toBeDefined();
    generic.delete(ctx(secrets), 'anchor');
    expect(await authn.authenticate(token)).toBeUndefined();
  });

  it('from a legacy Secret are valid while the Secret holds them', async () => {
    const { account, authn, generic, ctx } = setup();
    const sa = account('robot');
    const token = await tokens.issueLegacy({ cluster: 'ws1', namespace: 'default', name: 'robot', uid: sa.metadata!.uid! }, 'robot-token');
    expect(await authn.authenticate(token)).toBeUndefined(); // no Secret holds it yet
    generic.create(ctx(secrets), {
      metadata: { name: 'robot-token', annotations: { 'kubernetes.io/service-account.name': 'robot' } },
      type: 'kubernetes.io/service-account-token',
      data: { token: Buffer.from(token).toString('base64') },
    });
    expect((await authn.authenticate(token))?.username).toBe('system:serviceaccount:default:robot');
    generic.delete(ctx(secrets), 'robot-token');
    expect(await authn.authenticate(token)).toBeUndefined();
  });

  it('are checked in their own cluster: the same name elsewhere does not count', async () => {
    const { account, authn, issue, generic, ctx } = setup();
    account('robot', 'ws1');
    account('robot', 'ws2');
    const token = await issue('robot', { cluster: 'ws1' });
    generic.delete(ctx(serviceAccounts, 'ws1'), 'robot');
    expect(await authn.authenticate(token)).toBeUndefined();
  });
});

describe('foreign identities', () => {
  const robot = {
    username: 'system:serviceaccount:default:robot',
    uid: 'u1',
    groups: ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated'],
    extra: { 'authentication.kcp.io/cluster-name': ['ws1'] },
  };

  it('are themselves in their own cluster', () => {
    expect(identityInCluster(robot, 'ws1')).toBe(robot);
    expect(isForeignIn(robot, 'ws1')).toBe(false);
  });

  it('are system:anonymous in system:cluster:<origin> anywhere else, wildcard included', () => {
    const foreign = { username: 'system:anonymous', groups: ['system:authenticated', 'system:cluster:ws1'] };
    expect(identityInCluster(robot, 'ws2')).toEqual(foreign);
    expect(identityInCluster(robot, undefined)).toEqual(foreign);
    expect(isForeignIn(robot, 'ws2')).toBe(true);
  });

  it('do not apply to users that belong to no cluster', () => {
    const admin: { username: string; groups: string[]; extra?: Record<string, string[]> } = { username: 'kcp-admin', groups: ['system:kcp:admin', 'system:authenticated'] };
    expect(identityInCluster(admin, 'ws2')).toBe(admin);
    expect(isForeignIn(admin, 'ws2')).toBe(false);
  });

  // kcp's IsInScope: every scopes value must name the cluster among its `,`-separated alternatives.
  it('scoped identities are themselves only inside every scope, and an authenticated anonymous elsewhere', () => {
    const alice = { username: 'alice', groups: ['team-b', 'system:authenticated'] };
    const scoped = scopedToCluster(alice, 'ws1');
    expect(scoped.extra).toEqual({ 'authentication.kcp.io/scopes': ['cluster:ws1'] });
    expect(identityInCluster(scoped, 'ws1')).toBe(scoped);
    const nobody = { username: 'system:anonymous', groups: ['system:authenticated'] };
    expect(identityInCluster(scoped, 'ws2')).toEqual(nobody);
    expect(identityInCluster(scoped, undefined)).toEqual(nobody);
    const either = { ...alice, extra: { 'authentication.kcp.io/scopes': ['cluster:ws1,cluster:ws2'] } };
    expect(isInScope(either, 'ws2')).toBe(true);
    expect(isInScope(scopedToCluster(either, 'ws1'), 'ws2')).toBe(false);
    expect(isInScope({ extra: { 'authentication.kcp.io/scopes': [''] } }, 'ws1')).toBe(false);
    expect(identityInCluster({ username: 'x', groups: [], extra: { 'authentication.kcp.io/scopes': ['cluster:a'] } }, 'b')).toEqual({
      username: 'system:anonymous',
      groups: ['system:unauthenticated'],
    });
  });
});
