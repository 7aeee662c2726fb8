/**
 * The service-account signing key, `<root>/sa.key`, as kcp keeps it: generated on first start, kept forever (every
 * token ever issued is signed with it), private to the owner (0600). RSA 2048 signing with RS256, kube-apiserver's
 * default, so anything that verifies kube service-account tokens (OIDC discovery consumers included) accepts ours.
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import path from 'node:path';
import { readFileIfExists, writeFileAtomic } from './files.js';

export const SERVICE_ACCOUNT_KEY_FILE = 'sa.key';

export interface ServiceAccountKey {
  privateKey: KeyObject;
  publicKey: KeyObject;
  /** kube's `kid`: base64url of the sha256 of the public key's DER, so verifiers can tell keys apart. */
  keyId: string;
}

export async function loadOrCreateServiceAccountKey(rootDir: string): Promise<ServiceAccountKey> {
  const file = path.join(rootDir, SERVICE_ACCOUNT_KEY_FILE);
  const existing = await readFileIfExists(file);
  let privateKey: KeyObject;
  if (existing !== undefined) {
    try {
      privateKey = createPrivateKey(existing);
    } catch (err) {
      throw new Error(
        `service-account key "${file}" is not a valid PEM private key (${(err as Error).message}); ` +
          `restore it from a backup, or remove it and restart kcpt (every service-account token issued so far stops working)`,
      );
    }
    if (privateKey.asymmetricKeyType !== 'rsa') {
      throw new Error(`service-account key "${file}" is a ${privateKey.asymmetricKeyType} key; kcpt signs with an RSA key`);
    }
  } else {
    privateKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    await writeFileAtomic(file, privateKey.export({ type: 'pkcs1', format: 'pem' }) as string, 0o600);
  }
  const publicKey = createPublicKey(privateKey);
  const der = publicKey.export({ type: 'spki', format: 'der' });
  return { privateKey, publicKey, keyId: createHash('sha256').update(der).digest('base64url') };
}
