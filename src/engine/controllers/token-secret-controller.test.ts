/**
 * The tokens controller and the default ServiceAccount controller on an in-memory store: token Secrets filled as
 * kube fills them, deleted when their account is missing or gone; `default` accounts for namespaces made through
 * the API and recreated after deletion.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { namespaces, secrets, serviceAccounts } from '../builtin/core/resources.js';
import { loadOrCreateServiceAccountKey } from '../auth/service-account-key.js';
import { ServiceAccountTokens } from '../auth/service-account-tokens.js';
import { GenericStore, WriteBatch, type OpContext } from '../registry/generic-store.js';
import type { KubeObject, ResourceType } from '../registry/types.js';
import { createMemoryStore } from '../storage/index.js';
import { defaultServiceAccount, serviceAccountController } from './service-account-controller.js';
import { tokenSecretController } from './token-secret-controller.js';
import { WriteAuthority } from '../admission/write-authority.js';

let dir: string;
let tokens: ServiceAccountTokens;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'kcpt-tokens-'));
  tokens = new ServiceAccountTokens(await loadOrCreateServiceAccountKey(dir));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const stops: Array<() => void> = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
});

function setup() {
  const store = createMemoryStore();
  const generic = new GenericStore(store, namespaces, { authority: new WriteAuthority() });
  const errors: unknown[] = [];
  const onError = (_c: string, _k: string, err: unknown) => errors.push(err);
  const tokensController = tokenSecretController({
    store,
    generic,
    secretType: secrets,
    serviceAccountType: serviceAccounts,
    tokens,
    caCertPem: '-----BEGIN CERTIFICATE-----\nca\n-----END CERTIFICATE-----\n',
    onError,
  });
  const accounts = serviceAccountController({ store, generic, namespaceType: namespaces, serviceAccountType: serviceAccounts, onError });
  tokensController.start();
  accounts.start();
  stops.push(() => tokensController.stop(), () => accounts.stop());
  const ctx = (rt: ResourceType, namespace = 'default', cluster = 'ws1'): OpContext => ({ rt, cluster, namespace });
  const idle = async () => {
    for (let i = 0; i < 3; i++) {
      await tokensController.idle();
      await accounts.idle();
    }
  };
  const find = (rt: ResourceType, name: string, namespace = 'default'): KubeObject | undefined => {
    try {
      return generic.get(ctx(rt, namespace), name);
    } catch {
      return undefined;
    }
  };
  const tokenSecret = (name: string, account: string) =>
    generic.create(ctx(secrets), {
      metadata: { name, annotations: { 'kubernetes.io/service-account.name': account } },
      type: 'kubernetes.io/service-account-token',
    });
  return { store, generic, ctx, idle, find, tokenSecret, errors };
}

const decode = (v: unknown) => Buffer.from(String(v), 'base64').toString('utf8');

describe('tokens controller', () => {
  it('fills a token Secret with a token for its account, the CA, the namespace and the account uid', async () => {
    const t = setup();
    t.generic.create(t.ctx(namespaces, ''), { metadata: { name: 'default' } });
    await t.idle();
    const sa = t.find(serviceAccounts, 'default')!;
    t.tokenSecret('default-token', 'default');
    await t.idle();
    const secret = t.find(secrets, 'default-token')!;
    const data = secret.data as Record<string, string>;
    expect(decode(data.namespace)).toBe('default');
    expect(decode(data['ca.crt'])).toContain('BEGIN CERTIFICATE');
    expect(secret.metadata?.annotations?.['kubernetes.io/service-account.uid']).toBe(sa.metadata!.uid);
    expect(await tokens.verify(decode(data.token))).toMatchObject({ cluster: 'ws1', namespace: 'default', name: 'default', uid: sa.metadata!.uid, legacy: true });
    expect(t.errors).toEqual([]);
  });

  it('deletes token Secrets whose account does not exist, and those of a deleted account', async () => {
    const t = setup();
    t.generic.create(t.ctx(namespaces, ''), { metadata: { name: 'default' } });
    t.generic.create(t.ctx(serviceAccounts), { metadata: { name: 'robot' } });
    t.tokenSecret('orphan', 'nobody');
    t.tokenSecret('robot-token', 'robot');
    await t.idle();
    expect(t.find(secrets, 'orphan')).toBeUndefined();
    expect(t.find(secrets, 'robot-token')?.data).toHaveProperty('token');
    t.generic.delete(t.ctx(serviceAccounts), 'robot');
    await t.idle();
    expect(t.find(secrets, 'robot-token')).toBeUndefined();
  });
});

describe('default ServiceAccounts', () => {
  it('exist in namespaces made through the API and come back after deletion', async () => {
    const t = setup();
    t.generic.create(t.ctx(namespaces, ''), { metadata: { name: 'apps' } });
    await t.idle();
    expect(t.find(serviceAccounts, 'default', 'apps')).toBeDefined();
    t.generic.delete(t.ctx(serviceAccounts, 'apps'), 'default');
    await t.idle();
    expect(t.find(serviceAccounts, 'default', 'apps')).toBeDefined();
  });

  it('are created in the same commit as a namespace kcpt creates itself (all or nothing)', async () => {
    const t = setup();
    const batch = new WriteBatch();
    t.generic.create(t.ctx(namespaces, ''), { metadata: { name: 'kube-system' } }, { batch });
    defaultServiceAccount(t.generic, serviceAccounts, 'ws1', 'kube-system', batch);
    expect(t.find(namespaces, 'kube-system', '')).toBeUndefined();
    t.generic.commitBatch(batch);
    expect(t.find(serviceAccounts, 'default', 'kube-system')).toBeDefined();
    // A batch that cannot commit writes neither the namespace nor its account.
    const failing = new WriteBatch();
    t.generic.create(t.ctx(namespaces, ''), { metadata: { name: 'apps' } }, { batch: failing });
    defaultServiceAccount(t.generic, serviceAccounts, 'ws1', 'apps', failing);
    t.generic.create(t.ctx(namespaces, ''), { metadata: { name: 'kube-system' } }, { batch: failing });
    expect(() => t.generic.commitBatch(failing)).toThrow();
    await t.idle();
    expect(t.find(namespaces, 'apps', '')).toBeUndefined();
    expect(t.find(serviceAccounts, 'default', 'apps')).toBeUndefined();
  });
});
