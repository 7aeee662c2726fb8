/**
 * Admin tokens and static bearer-token authentication.
 *
 * kcp regenerates the kcp-admin token on every start; kcpt keeps every token it issued (decision 3) so that
 * kubeconfigs copied from admin.kubeconfig keep working across restarts. Only sha256 digests are stored, in
 * `<root>/.admin-token-store`; the plaintext lives solely in admin.kubeconfig, which we read back on the next
 * start and accept only if it still matches the stored digests.
 */

import { hash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { readFileIfExists, writeFileAtomic } from './files.js';

import type { UserInfo } from './user.js';

export interface TokenAuthenticator {
  /** The user a bearer token belongs to, or `undefined` when this authenticator does not know the token. */
  authenticate(token: string): UserInfo | undefined;
}

export interface TokenEntry {
  token: string;
  user: UserInfo;
}

export interface AdminTokens {
  kcpAdmin: string;
  shardAdmin: string;
  /** Present only with the `user` battery. */
  user?: string;
}

export const KCP_ADMIN_USER = 'kcp-admin';
export const SHARD_ADMIN_USER = 'shard-admin';
export const BATTERY_USER = 'user';
export const ADMIN_KUBECONFIG_FILE = 'admin.kubeconfig';
export const ADMIN_TOKEN_STORE_FILE = '.admin-token-store';

const SYSTEM_AUTHENTICATED = 'system:authenticated';
const SYSTEM_UNAUTHENTICATED = 'system:unauthenticated';

export interface AdminTokenOptions {
  /** `--kubeconfig-path`; default `<root>/admin.kubeconfig`. */
  kubeconfigPath?: string;
  /** `--authentication-admin-token-path`; default `<root>/.admin-token-store`. */
  tokenStorePath?: string;
  /** Whether the `user` battery is enabled. */
  withUser?: boolean;
}

type AdminUserName = typeof KCP_ADMIN_USER | typeof SHARD_ADMIN_USER | typeof BATTERY_USER;

/**
 * Returns the admin tokens to serve and to write into admin.kubeconfig. A token is reused when the existing
 * kubeconfig carries it and its digest matches the store; a user with no stored digest, or whose token is gone
 * from the kubeconfig (say the file was deleted), gets a fresh token. A kubeconfig token that contradicts its
 * stored digest is fatal, as in kcp: silently rotating would lock out every copy of the old kubeconfig.
 */
export async function loadOrCreateAdminTokens(rootDir: string, options: AdminTokenOptions = {}): Promise<AdminTokens> {
  const kubeconfigPath = options.kubeconfigPath ?? path.join(rootDir, ADMIN_KUBECONFIG_FILE);
  const storePath = options.tokenStorePath ?? path.join(rootDir, ADMIN_TOKEN_STORE_FILE);
  const stored = await readTokenStore(storePath);
  const wanted: AdminUserName[] = [KCP_ADMIN_USER, SHARD_ADMIN_USER];
  if (options.withUser) wanted.push(BATTERY_USER);

  // Only read the kubeconfig when something in it could be reused; a broken file without stored digests is
  // about to be overwritten anyway.
  const needKubeconfig = wanted.some((u) => stored[u] !== undefined);
  const existing = needKubeconfig
    ? await readKubeconfigTokens(kubeconfigPath, storePath, {
        expected: wanted.filter((u) => stored[u] !== undefined),
        known: (user, token) => stored[user as AdminUserName] !== undefined && digestMatches(token, stored[user as AdminUserName]!),
      })
    : new Map<string, string>();

  const tokens = new Map<AdminUserName, string>();
  const digests: Partial<Record<AdminUserName, string>> = {};
  for (const user of wanted) {
    const storedDigest = stored[user];
    const candidate = existing.get(user);
    if (storedDigest !== undefined && candidate) {
      if (!digestMatches(candidate, storedDigest)) {
        throw new Error(
          `admin token in file "${kubeconfigPath}" is not valid anymore. Remove file "${storePath}" and restart kcpt`,
        );
      }
      tokens.set(user, candidate);
      digests[user] = storedDigest;
      continue;
    }
    const token = randomBytes(32).toString('base64url');
    tokens.set(user, token);
    digests[user] = sha256Hex(token);
  }

  const changed = wanted.some((u) => digests[u] !== stored[u]) || Object.keys(stored).some((u) => !(u in digests));
  if (changed) await writeFileAtomic(storePath, JSON.stringify(digests, null, 2) + '\n', 0o600);

  const result: AdminTokens = { kcpAdmin: tokens.get(KCP_ADMIN_USER)!, shardAdmin: tokens.get(SHARD_ADMIN_USER)! };
  const userToken = tokens.get(BATTERY_USER);
  if (userToken !== undefined) result.user = userToken;
  return result;
}

async function readTokenStore(storePath: string): Promise<Partial<Record<string, string>>> {
  const text = await readFileIfExists(storePath);
  if (text === undefined) return {};
  const broken = (why: string) =>
    new Error(`token store "${storePath}" is not valid (${why}). Remove file "${storePath}" and restart kcpt`);
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw broken((err as Error).message);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw broken('expected a JSON object');
  const result: Record<string, string> = {};
  for (const [user, digest] of Object.entries(data)) {
    if (typeof digest !== 'string' || !/^[0-9a-f]{64}$/.test(digest)) throw broken(`bad digest for "${user}"`);
    result[user] = digest;
  }
  return result;
}

/** `users:` entries exactly as kcpt writes them (renderKubeconfigText): `- name: <user>` / `  user:` / `    token: <token>`. */
const OWN_USER_ENTRY = /^- name: ([^\s'"]+)\n {2}user:\n {4}token: ([A-Za-z0-9_-]+)$/gm;

/**
 * The tokens of admin.kubeconfig's users. A file as kcpt wrote it is read with a pattern when that finds every
 * `expected` user and each token it finds is `known` (its digest is the stored one, so nothing wrong slips through):
 * parsing YAML costs ~50 ms of CPU at every restart, mostly the parser's first run. Anything else (edited,
 * reformatted, broken) gets the YAML parser, as before.
 */
async function readKubeconfigTokens(
  kubeconfigPath: string,
  storePath: string,
  { expected, known }: { expected: string[]; known: (user: string, token: string) => boolean },
): Promise<Map<string, string>> {
  const tokens = new Map<string, string>();
  const text = await readFileIfExists(kubeconfigPath);
  if (text === undefined) return tokens;
  const own = [...text.matchAll(OWN_USER_ENTRY)].map((m) => [m[1]!, m[2]!] as const);
  const found = new Map(own);
  if (found.size === own.length && expected.every((u) => found.has(u)) && own.every(([user, token]) => known(user, token))) return found;
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    // yaml's messages append a multi-line source excerpt; the first line names the problem and position.
    const why = (err as Error).message.split('\n')[0]!.replace(/:$/, '');
    throw new Error(
      `cannot parse admin kubeconfig "${kubeconfigPath}": ${why}. ` +
        `Repair it, or remove files "${kubeconfigPath}" and "${storePath}" and restart kcpt`,
    );
  }
  const users = (doc as { users?: unknown } | null)?.users;
  if (!Array.isArray(users)) return tokens;
  for (const entry of users as Array<{ name?: unknown; user?: { token?: unknown } } | null>) {
    const token = entry?.user?.token;
    if (typeof entry?.name === 'string' && typeof token === 'string' && token !== '') tokens.set(entry.name, token);
  }
  return tokens;
}

// One-shot hash(): no Hash object per request (every bearer request digests its token).
function sha256(token: string): Buffer {
  return hash('sha256', token, 'buffer');
}

function sha256Hex(token: string): string {
  return hash('sha256', token, 'hex');
}

function digestMatches(token: string, digestHex: string): boolean {
  return timingSafeEqual(sha256(token), Buffer.from(digestHex, 'hex'));
}

/** The users kcp's admin authenticator knows. UIDs are fresh per start, as in kcp. */
export function adminTokenEntries(tokens: AdminTokens): TokenEntry[] {
  const entries: TokenEntry[] = [
    { token: tokens.kcpAdmin, user: { username: KCP_ADMIN_USER, uid: randomUUID(), groups: ['system:kcp:admin'] } },
    { token: tokens.shardAdmin, user: { username: SHARD_ADMIN_USER, uid: randomUUID(), groups: ['system:masters'] } },
  ];
  if (tokens.user !== undefined) {
    entries.push({ token: tokens.user, user: { username: BATTERY_USER, uid: randomUUID(), groups: [] } });
  }
  return entries;
}

/**
 * Bearer tokens known up front (admin users, `--token-auth-file`). The first lookup of a token is a map keyed by
 * its digest: timing can at most reveal how much of a guess's digest matches a real digest, which says nothing
 * about the token itself, so this is as safe as a constant-time scan over all entries while staying O(1) per
 * request. When two entries share a token the first wins, matching kcp's
 * union where the admin authenticator is consulted before the token file.
 */
export class StaticTokenAuthenticator implements TokenAuthenticator {
  private readonly users = new Map<string, UserInfo>();
  /**
   * Tokens that matched, by their text: a repeated request skips the digest (~1.4 µs). Only hits are added, so it
   * holds at most one entry per known token whatever a caller sends, and the set of known tokens never changes
   * after start (like kube's token file), so nothing in it can go stale. A guess is compared with a known token's
   * text only when V8's seeded string hashes of the two collide, as in kube's own map lookup of token-file tokens.
   */
  private readonly recent = new Map<string, UserInfo>();

  constructor(entries: Iterable<TokenEntry>) {
    for (const { token, user } of entries) {
      if (token === '') continue;
      const key = sha256Hex(token);
      if (!this.users.has(key)) this.users.set(key, withAuthenticatedGroup(user));
    }
  }

  get size(): number {
    return this.users.size;
  }

  authenticate(token: string): UserInfo | undefined {
    if (token === '') return undefined;
    let user = this.recent.get(token);
    if (!user) {
      user = this.users.get(sha256Hex(token));
      if (!user) return undefined;
      if (this.recent.size < this.users.size) this.recent.set(token, user);
    }
    return cloneUser(user);
  }
}

/** kube's AuthenticatedGroupAdder: every authenticated user is in system:authenticated unless it says otherwise. */
function withAuthenticatedGroup(user: UserInfo): UserInfo {
  const groups = user.groups.filter((g, i, all) => all.indexOf(g) === i);
  if (!groups.includes(SYSTEM_AUTHENTICATED) && !groups.includes(SYSTEM_UNAUTHENTICATED)) {
    groups.push(SYSTEM_AUTHENTICATED);
  }
  return cloneUser({ ...user, groups });
}

function cloneUser(user: UserInfo): UserInfo {
  const copy: UserInfo = { username: user.username, uid: user.uid, groups: [...user.groups] };
  if (user.extra) copy.extra = Object.fromEntries(Object.entries(user.extra).map(([k, v]) => [k, [...v]]));
  return copy;
}
