import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeAdminKubeconfig } from './kubeconfig.js';
import { parseTokenAuthFile } from './token-file.js';
import {
  adminTokenEntries,
  loadOrCreateAdminTokens,
  StaticTokenAuthenticator,
  type AdminTokens,
} from './token-store.js';

let root: string;
let kubeconfig: string;
let store: string;
beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'kcpt-tokens-'));
  kubeconfig = path.join(root, 'admin.kubeconfig');
  store = path.join(root, '.admin-token-store');
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

const sha = (t: string) => createHash('sha256').update(t).digest('hex');
const writeKubeconfig = (tokens: AdminTokens) =>
  writeAdminKubeconfig({ path: kubeconfig, baseUrl: 'https://127.0.0.1:6443', caCertPem: 'CA', tokens, batteries: ['admin', 'user'] });

/** What `kcpt start` does: load tokens, then rewrite admin.kubeconfig with them. */
async function start(withUser = false): Promise<AdminTokens> {
  const tokens = await loadOrCreateAdminTokens(root, { withUser });
  await writeKubeconfig(tokens);
  return tokens;
}

describe('loadOrCreateAdminTokens', () => {
  it('creates random tokens and stores only their sha256 digests, 0600', async () => {
    const tokens = await start();
    expect(tokens.kcpAdmin).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(tokens.shardAdmin).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(tokens.kcpAdmin).not.toBe(tokens.shardAdmin);
    expect(tokens.user).toBeUndefined();
    const text = await fs.readFile(store, 'utf8');
    expect(JSON.parse(text)).toEqual({ 'kcp-admin': sha(tokens.kcpAdmin), 'shard-admin': sha(tokens.shardAdmin) });
    expect(text).not.toContain(tokens.kcpAdmin);
    expect((await fs.stat(store)).mode & 0o777).toBe(0o600);
  });

  it('keeps the tokens across restarts', async () => {
    const first = await start(true);
    expect(first.user).toBeDefined();
    const storeBefore = await fs.readFile(store, 'utf8');
    const second = await start(true);
    expect(second).toEqual(first);
    expect(await fs.readFile(store, 'utf8')).toBe(storeBefore);
  });

  it('adds and drops the user token with the user battery', async () => {
    const first = await start(false);
    const withUser = await start(true);
    expect(withUser.kcpAdmin).toBe(first.kcpAdmin);
    expect(withUser.user).toBeDefined();
    const without = await start(false);
    expect(without).toEqual(first);
    expect(Object.keys(JSON.parse(await fs.readFile(store, 'utf8')))).toEqual(['kcp-admin', 'shard-admin']);
  });

  it('keeps the tokens when a person reformatted admin.kubeconfig (other indentation, flow style, quotes)', async () => {
    const first = await start(true);
    const text = await fs.readFile(kubeconfig, 'utf8');
    const reformatted = text
      .replace(/^- name: kcp-admin\n {2}user:\n {4}token: (\S+)$/m, '- {name: kcp-admin, user: {token: "$1"}}')
      .replace(/^- name: shard-admin\n {2}user:\n {4}token: (\S+)$/m, '-   name: shard-admin\n    user:\n        token: \'$1\'');
    expect(reformatted).not.toBe(text);
    await fs.writeFile(kubeconfig, reformatted);
    expect(await loadOrCreateAdminTokens(root, { withUser: true })).toEqual(first);
  });

  it('fails with kcp\'s message when the kubeconfig token no longer matches the store', async () => {
    const tokens = await start();
    await writeKubeconfig({ ...tokens, shardAdmin: 'tampered' });
    await expect(loadOrCreateAdminTokens(root)).rejects.toThrow(
      `admin token in file "${kubeconfig}" is not valid anymore. Remove file "${store}" and restart kcpt`,
    );
  });

  it('fails the same way when the store was tampered with', async () => {
    const tokens = await start();
    await fs.writeFile(store, JSON.stringify({ 'kcp-admin': sha('other'), 'shard-admin': sha(tokens.shardAdmin) }));
    await expect(loadOrCreateAdminTokens(root)).rejects.toThrow(/is not valid anymore\. Remove file ".*\.admin-token-store"/);
  });

  it('recovers as the message says: removing the store issues fresh tokens', async () => {
    const tokens = await start();
    await writeKubeconfig({ ...tokens, kcpAdmin: 'tampered' });
    await fs.rm(store);
    const fresh = await start();
    expect(fresh.kcpAdmin).not.toBe('tampered');
    expect(fresh.shardAdmin).not.toBe(tokens.shardAdmin);
    expect(await start()).toEqual(fresh);
  });

  it('issues fresh tokens when admin.kubeconfig was deleted', async () => {
    const tokens = await start();
    await fs.rm(kubeconfig);
    const fresh = await start();
    expect(fresh.kcpAdmin).not.toBe(tokens.kcpAdmin);
    expect(JSON.parse(await fs.readFile(store, 'utf8'))['kcp-admin']).toBe(sha(fresh.kcpAdmin));
  });

  it('rejects a corrupt store and an unparsable kubeconfig with instructions', async () => {
    await start();
    await fs.writeFile(path.join(root, 'admin.kubeconfig'), 'users: [\n');
    await expect(loadOrCreateAdminTokens(root)).rejects.toThrow(/cannot parse admin kubeconfig .* restart kcpt/);
    await fs.writeFile(store, '{"kcp-admin": "nothex"}');
    await expect(loadOrCreateAdminTokens(root)).rejects.toThrow(`token store "${store}" is not valid (bad digest for "kcp-admin")`);
  });

  it('honours custom kubeconfig and store paths', async () => {
    const custom = { kubeconfigPath: path.join(root, 'k.yaml'), tokenStorePath: path.join(root, 'store.json') };
    const tokens = await loadOrCreateAdminTokens(root, custom);
    await writeAdminKubeconfig({ path: custom.kubeconfigPath, baseUrl: 'https://h', caCertPem: 'CA', tokens });
    expect(await loadOrCreateAdminTokens(root, custom)).toEqual(tokens);
    await expect(fs.stat(store)).rejects.toThrow();
  });
});

describe('StaticTokenAuthenticator', () => {
  const tokens: AdminTokens = { kcpAdmin: 'kcp-admin-token', shardAdmin: 'shard-admin-token', user: 'user-token' };

  it('knows the admin users with kcp\'s groups plus system:authenticated', () => {
    const auth = new StaticTokenAuthenticator(adminTokenEntries(tokens));
    expect(auth.authenticate('kcp-admin-token')).toMatchObject({
      username: 'kcp-admin',
      groups: ['system:kcp:admin', 'system:authenticated'],
    });
    expect(auth.authenticate('shard-admin-token')).toMatchObject({
      username: 'shard-admin',
      groups: ['system:masters', 'system:authenticated'],
    });
    expect(auth.authenticate('user-token')).toMatchObject({ username: 'user', groups: ['system:authenticated'] });
    expect(auth.authenticate('user-token')!.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(auth.authenticate('nope')).toBeUndefined();
    expect(auth.authenticate('')).toBeUndefined();
    expect(new StaticTokenAuthenticator(adminTokenEntries({ ...tokens, user: undefined })).authenticate('user-token')).toBeUndefined();
  });

  it('serves token-file users, does not add system:authenticated twice and returns copies', () => {
    const entries = parseTokenAuthFile('t1,alice,a-1,"devs,system:authenticated"\nt2,anon,x,"system:unauthenticated"\n');
    const auth = new StaticTokenAuthenticator(entries);
    const alice = auth.authenticate('t1')!;
    expect(alice).toEqual({ username: 'alice', uid: 'a-1', groups: ['devs', 'system:authenticated'] });
    alice.groups.push('system:masters');
    expect(auth.authenticate('t1')!.groups).toEqual(['devs', 'system:authenticated']);
    expect(auth.authenticate('t2')!.groups).toEqual(['system:unauthenticated']);
  });

  it('keeps only digests in memory and lets the first entry win on a shared token', () => {
    const auth = new StaticTokenAuthenticator([
      ...adminTokenEntries(tokens),
      ...parseTokenAuthFile('shard-admin-token,impostor,1\n'),
    ]);
    expect(auth.authenticate('shard-admin-token')!.username).toBe('shard-admin');
    expect(auth.size).toBe(3);
    expect(JSON.stringify([...(auth as unknown as { users: Map<string, unknown> }).users.keys()])).not.toContain('token');
  });

  it('remembers only tokens that matched: a flood of guesses leaves nothing behind', () => {
    const auth = new StaticTokenAuthenticator(parseTokenAuthFile('t1,alice,a-1\nt2,bob,b-1\n'));
    const recent = (auth as unknown as { recent: Map<string, unknown> }).recent;
    for (let i = 0; i < 1000; i++) expect(auth.authenticate(`guess-${i}`)).toBeUndefined();
    expect(recent.size).toBe(0);
    for (let i = 0; i < 3; i++) {
      expect(auth.authenticate('t1')!.username).toBe('alice');
      expect(auth.authenticate('t2')!.username).toBe('bob');
    }
    expect(recent.size).toBe(2);
    // A remembered token still gets a copy the caller may change.
    auth.authenticate('t1')!.groups.push('system:masters');
    expect(auth.authenticate('t1')!.groups).toEqual(['system:authenticated']);
  });
});

