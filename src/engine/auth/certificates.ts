/**
 * The CA and serving certificate `kcpt start` serves TLS with (decision 5: TLS by default).
 *
 * The CA is created once and then kept forever: every kubeconfig kcpt writes embeds it, so replacing it would
 * break them all. The serving certificate is cheap and is re-issued from that CA whenever it no longer fits
 * (missing SAN, close to expiry, key mismatch). ECDSA P-256 keeps first-start generation in the milliseconds.
 */

import { createPrivateKey, createPublicKey, randomBytes, webcrypto } from 'node:crypto';
import { isIP } from 'node:net';
import path from 'node:path';
// Must precede @peculiar/x509: tsyringe (its dependency) checks for the Reflect metadata API at load time.
import './reflect-metadata-shim.js';
import * as x509 from '@peculiar/x509';
import { readFileIfExists, writeFileAtomic } from './files.js';

// Node's webcrypto is the standard interface; its TypeScript type differs only nominally from the DOM one.
x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

type CryptoKey = webcrypto.CryptoKey;

export interface ServingCertificates {
  caCertPem: string;
  certPem: string;
  keyPem: string;
  /** What this call had to create, for start-up logging. */
  created: { ca: boolean; serving: boolean };
}

export interface ServingCertificateOptions {
  /** Extra SANs: the bind address and external hostnames. Unspecified addresses (0.0.0.0, ::) are skipped. */
  hosts: string[];
  /** Clock override for tests. */
  now?: Date;
}

export const CA_CERT_FILE = 'ca.crt';
export const CA_KEY_FILE = 'ca.key';
export const SERVING_CERT_FILE = 'apiserver.crt';
export const SERVING_KEY_FILE = 'apiserver.key';

const CA_COMMON_NAME = 'kcpt-ca';
const SERVING_COMMON_NAME = 'kcpt-apiserver';
const DEFAULT_HOSTS = ['127.0.0.1', '::1', 'localhost'];
const DAY_MS = 24 * 60 * 60 * 1000;
const CA_LIFETIME_MS = 3650 * DAY_MS;
const SERVING_LIFETIME_MS = 365 * DAY_MS;
const RENEW_BEFORE_MS = 30 * DAY_MS;
// Certificates start an hour in the past so a client whose clock runs slightly behind still accepts them.
const BACKDATE_MS = 60 * 60 * 1000;

const EC_ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SIGNING_ALGORITHM = { name: 'ECDSA', hash: 'SHA-256' } as const;

export async function ensureServingCertificates(
  rootDir: string,
  options: ServingCertificateOptions,
): Promise<ServingCertificates> {
  const now = options.now ?? new Date();
  const files = {
    caCert: path.join(rootDir, CA_CERT_FILE),
    caKey: path.join(rootDir, CA_KEY_FILE),
    cert: path.join(rootDir, SERVING_CERT_FILE),
    key: path.join(rootDir, SERVING_KEY_FILE),
  };
  const sans = servingSubjectAltNames(options.hosts);

  const ca = await loadOrCreateCa(files.caCert, files.caKey, now);

  const existing = await loadServing(files.cert, files.key);
  if (existing && (await servingCertFits(existing, ca.cert, sans, now))) {
    return { caCertPem: ca.certPem, certPem: existing.certPem, keyPem: existing.keyPem, created: { ca: ca.created, serving: false } };
  }

  const keys = await generateKeyPair();
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: randomSerial(),
    subject: `CN=${SERVING_COMMON_NAME}`,
    issuer: ca.cert.subject,
    notBefore: new Date(now.getTime() - BACKDATE_MS),
    notAfter: new Date(now.getTime() + SERVING_LIFETIME_MS),
    publicKey: keys.publicKey,
    signingKey: ca.key,
    signingAlgorithm: SIGNING_ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension(sans.map((s) => ({ type: s.type, value: s.value }))),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(ca.cert.publicKey),
    ],
  });
  const certPem = cert.toString('pem') + '\n';
  const keyPem = await exportPrivateKeyPem(keys.privateKey);
  // Key first: if we crash in between, the old certificate no longer matches the new key and gets re-issued.
  await writeFileAtomic(files.key, keyPem, 0o600);
  await writeFileAtomic(files.cert, certPem, 0o644);
  return { caCertPem: ca.certPem, certPem, keyPem, created: { ca: ca.created, serving: true } };
}

interface LoadedCa {
  cert: x509.X509Certificate;
  certPem: string;
  key: CryptoKey;
  created: boolean;
}

async function loadOrCreateCa(certFile: string, keyFile: string, now: Date): Promise<LoadedCa> {
  const [certPem, keyPem] = await Promise.all([readFileIfExists(certFile), readFileIfExists(keyFile)]);

  if (certPem !== undefined && keyPem === undefined) {
    throw new Error(
      `CA certificate "${certFile}" exists but its key "${keyFile}" is missing; restore the key, or remove ` +
        `"${certFile}" to create a new CA (kubeconfigs carrying the old CA will stop working)`,
    );
  }

  if (certPem !== undefined && keyPem !== undefined) {
    const cert = parseCertificate(certPem, certFile);
    const key = await importPrivateKey(keyPem, keyFile);
    if (!samePublicKey(keyPem, cert)) {
      throw new Error(`CA key "${keyFile}" does not belong to CA certificate "${certFile}"`);
    }
    return { cert, certPem, key, created: false };
  }

  // Only the key survived (e.g. ca.crt deleted): re-create the certificate around the same key and name. Clients
  // that still hold the old ca.crt keep verifying, because what they check is the issuer name and signature.
  const keys = keyPem !== undefined ? await keyPairFromPem(keyPem, keyFile) : await generateKeyPair();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomSerial(),
    name: `CN=${CA_COMMON_NAME}`,
    notBefore: new Date(now.getTime() - BACKDATE_MS),
    notAfter: new Date(now.getTime() + CA_LIFETIME_MS),
    keys,
    signingAlgorithm: SIGNING_ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature,
        true,
      ),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  const newCertPem = cert.toString('pem') + '\n';
  if (keyPem === undefined) await writeFileAtomic(keyFile, await exportPrivateKeyPem(keys.privateKey), 0o600);
  await writeFileAtomic(certFile, newCertPem, 0o644);
  return { cert, certPem: newCertPem, key: keys.privateKey, created: true };
}

interface LoadedServing {
  cert: x509.X509Certificate;
  certPem: string;
  keyPem: string;
}

async function loadServing(certFile: string, keyFile: string): Promise<LoadedServing | undefined> {
  const [certPem, keyPem] = await Promise.all([readFileIfExists(certFile), readFileIfExists(keyFile)]);
  if (certPem === undefined || keyPem === undefined) return undefined;
  try {
    const cert = new x509.X509Certificate(certPem);
    if (!samePublicKey(keyPem, cert)) return undefined;
    return { cert, certPem, keyPem };
  } catch {
    // Unreadable serving material is simply replaced; only the CA is precious.
    return undefined;
  }
}

async function servingCertFits(
  serving: LoadedServing,
  caCert: x509.X509Certificate,
  wanted: SubjectAltName[],
  now: Date,
): Promise<boolean> {
  if (serving.cert.notAfter.getTime() - now.getTime() < RENEW_BEFORE_MS) return false;
  if (serving.cert.notBefore.getTime() > now.getTime()) return false;
  // A certificate from another CA (say the user swapped ca.* by hand) would fail every client's verification.
  if (serving.cert.issuer !== caCert.subject) return false;
  const signedByCa = await serving.cert.verify({ publicKey: caCert.publicKey, signatureOnly: true }).catch(() => false);
  if (!signedByCa) return false;
  const san = serving.cert.getExtension(x509.SubjectAlternativeNameExtension);
  const present = new Set((san?.names.items ?? []).map((n) => sanKey(n.type, n.value)));
  return wanted.every((s) => present.has(sanKey(s.type, s.value)));
}

interface SubjectAltName {
  type: 'ip' | 'dns';
  value: string;
}

/** The SANs a serving certificate must carry: loopback names plus the requested hosts, deduplicated. */
export function servingSubjectAltNames(hosts: string[]): SubjectAltName[] {
  const result: SubjectAltName[] = [];
  const seen = new Set<string>();
  for (const raw of [...DEFAULT_HOSTS, ...hosts]) {
    const host = raw.trim().replace(/^\[(.*)\]$/, '$1');
    if (!host || host === '0.0.0.0' || host === '::') continue;
    const san: SubjectAltName = isIP(host) ? { type: 'ip', value: host } : { type: 'dns', value: host.toLowerCase() };
    const key = sanKey(san.type, san.value);
    if (seen.has(key)) continue;
    seen.add(key);
    result.push(san);
  }
  return result;
}

/** Comparable form of a SAN: IPv6 spellings differ (`::1` vs `0:0:…:1`), DNS names are case-insensitive. */
function sanKey(type: string, value: string): string {
  if (type === 'ip') {
    const canonical = isIP(value) === 6 ? new URL(`http://[${value}]/`).hostname : value;
    return `ip:${canonical}`;
  }
  return `${type}:${value.toLowerCase()}`;
}

function parseCertificate(pem: string, file: string): x509.X509Certificate {
  try {
    return new x509.X509Certificate(pem);
  } catch (err) {
    throw new Error(`cannot parse certificate "${file}": ${(err as Error).message}`);
  }
}

async function importPrivateKey(pem: string, file: string): Promise<CryptoKey> {
  try {
    const der = x509.PemConverter.decodeFirst(pem);
    return await webcrypto.subtle.importKey('pkcs8', der, EC_ALGORITHM, true, ['sign']);
  } catch (err) {
    throw new Error(`cannot load private key "${file}" (expected a PKCS#8 ECDSA P-256 key): ${(err as Error).message}`);
  }
}

async function keyPairFromPem(pem: string, file: string): Promise<webcrypto.CryptoKeyPair> {
  const privateKey = await importPrivateKey(pem, file);
  const spki = createPublicKey(createPrivateKey(pem)).export({ type: 'spki', format: 'der' });
  const publicKey = await webcrypto.subtle.importKey('spki', spki, EC_ALGORITHM, true, ['verify']);
  return { privateKey, publicKey };
}

function samePublicKey(keyPem: string, cert: x509.X509Certificate): boolean {
  try {
    const fromKey = createPublicKey(createPrivateKey(keyPem)).export({ type: 'spki', format: 'der' });
    return Buffer.from(cert.publicKey.rawData).equals(fromKey);
  } catch {
    return false;
  }
}

async function generateKeyPair(): Promise<webcrypto.CryptoKeyPair> {
  return webcrypto.subtle.generateKey(EC_ALGORITHM, true, ['sign', 'verify']);
}

async function exportPrivateKeyPem(key: CryptoKey): Promise<string> {
  const der = await webcrypto.subtle.exportKey('pkcs8', key);
  return x509.PemConverter.encode(der, 'PRIVATE KEY') + '\n';
}

/** 16 random bytes, top bit cleared (serials must be positive; Go rejects negative ones) and first byte non-zero. */
function randomSerial(): string {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0]! & 0x7f) | 0x01;
  return bytes.toString('hex');
}
