/**
 * The CA and serving certificate `kcpt start` serves TLS with (decision 5: TLS by default).
 *
 * The CA is created once and then kept forever: every kubeconfig kcpt writes embeds it, so replacing it would
 * break them all. The serving certificate is cheap and is re-issued from that CA whenever it no longer fits
 * (missing SAN, close to expiry, key mismatch). ECDSA P-256 keeps first-start generation in the milliseconds.
 */

import { createPrivateKey, createPublicKey, KeyObject, randomBytes, webcrypto, X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import path from 'node:path';
import type * as X509 from '@peculiar/x509';
import { readFileIfExists, writeFileAtomic } from './files.js';

type X509Module = typeof X509;
let x509Module: Promise<X509Module> | undefined;

/**
 * @peculiar/x509 takes ~200 ms to import, so it is loaded only when something has to be generated; checking and
 * reusing existing files (every start but the first) needs nothing beyond node:crypto.
 */
function loadX509(): Promise<X509Module> {
  x509Module ??= (async () => {
    // Must precede @peculiar/x509: tsyringe (its dependency) checks for the Reflect metadata API at load time.
    await import('reflect-metadata');
    const x509 = await import('@peculiar/x509');
    // Node's webcrypto is the standard interface; its TypeScript type differs only nominally from the DOM one.
    x509.cryptoProvider.set(webcrypto as unknown as ReturnType<typeof x509.cryptoProvider.get>);
    return x509;
  })();
  return x509Module;
}

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

/**
 * Makes sure `<root>/ca.{crt,key}` and `<root>/apiserver.{crt,key}` exist and fit: the serving certificate must be
 * signed by the CA, match its key, carry every SAN in `127.0.0.1, ::1, localhost` + `hosts`, and have more than 30
 * days left. Missing pieces are generated; the CA is never replaced once it exists.
 */
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
  const [caCertPem, caKeyPem, certPem, keyPem] = await Promise.all(
    [files.caCert, files.caKey, files.cert, files.key].map(readFileIfExists),
  );

  let ca: PemPair;
  let caCreated = false;
  if (caCertPem !== undefined && caKeyPem !== undefined) {
    ca = { certPem: caCertPem, keyPem: caKeyPem };
    checkCa(ca, files.caCert, files.caKey);
  } else if (caCertPem !== undefined) {
    throw new Error(
      `CA certificate "${files.caCert}" exists but its key "${files.caKey}" is missing; restore the key, or remove ` +
        `"${files.caCert}" to create a new CA (kubeconfigs carrying the old CA will stop working)`,
    );
  } else {
    ca = await createCa(caKeyPem, files.caKey, now);
    caCreated = true;
    if (caKeyPem === undefined) await writeFileAtomic(files.caKey, ca.keyPem, 0o600);
    await writeFileAtomic(files.caCert, ca.certPem, 0o644);
  }

  if (certPem !== undefined && keyPem !== undefined && servingCertFits({ certPem, keyPem }, ca.certPem, sans, now)) {
    return { caCertPem: ca.certPem, certPem, keyPem, created: { ca: caCreated, serving: false } };
  }

  const serving = await issueServingCert(ca, files.caKey, sans, now);
  // Key first: if we crash in between, the old certificate no longer matches the new key and gets re-issued.
  await writeFileAtomic(files.key, serving.keyPem, 0o600);
  await writeFileAtomic(files.cert, serving.certPem, 0o644);
  return { caCertPem: ca.certPem, ...serving, created: { ca: caCreated, serving: true } };
}

interface PemPair {
  certPem: string;
  keyPem: string;
}

function checkCa(ca: PemPair, certFile: string, keyFile: string): void {
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(ca.certPem);
  } catch (err) {
    throw new Error(`cannot parse CA certificate "${certFile}": ${(err as Error).message}`);
  }
  let matches: boolean;
  try {
    matches = cert.checkPrivateKey(createPrivateKey(ca.keyPem));
  } catch (err) {
    throw new Error(`cannot load CA key "${keyFile}": ${(err as Error).message}`);
  }
  if (!matches) throw new Error(`CA key "${keyFile}" does not belong to CA certificate "${certFile}"`);
}

/**
 * A new self-signed CA. When only the key survived (e.g. ca.crt deleted) the certificate is re-created around
 * that key with the same name, so clients still holding the old ca.crt keep verifying what it signs.
 */
async function createCa(existingKeyPem: string | undefined, keyFile: string, now: Date): Promise<PemPair> {
  const x509 = await loadX509();
  const keys = existingKeyPem !== undefined ? await keyPairFromPem(existingKeyPem, keyFile) : await generateKeyPair();
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
  const keyPem = existingKeyPem ?? (await exportPrivateKeyPem(keys.privateKey));
  return { certPem: cert.toString('pem') + '\n', keyPem };
}

async function issueServingCert(
  ca: PemPair,
  caKeyFile: string,
  sans: SubjectAltName[],
  now: Date,
): Promise<PemPair> {
  const x509 = await loadX509();
  const caCert = new x509.X509Certificate(ca.certPem);
  const caKey = await importPrivateKey(ca.keyPem, caKeyFile);
  const keys = await generateKeyPair();
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: randomSerial(),
    subject: `CN=${SERVING_COMMON_NAME}`,
    issuer: caCert.subject,
    notBefore: new Date(now.getTime() - BACKDATE_MS),
    notAfter: new Date(now.getTime() + SERVING_LIFETIME_MS),
    publicKey: keys.publicKey,
    signingKey: caKey,
    signingAlgorithm: SIGNING_ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension(sans.map((s) => ({ type: s.type, value: s.value }))),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(caCert.publicKey),
    ],
  });
  return { certPem: cert.toString('pem') + '\n', keyPem: await exportPrivateKeyPem(keys.privateKey) };
}

/** Whether an existing serving certificate can be kept. Unreadable serving material is simply replaced. */
function servingCertFits(serving: PemPair, caCertPem: string, wanted: SubjectAltName[], now: Date): boolean {
  try {
    const cert = new X509Certificate(serving.certPem);
    const ca = new X509Certificate(caCertPem);
    if (!cert.checkPrivateKey(createPrivateKey(serving.keyPem))) return false;
    if (Date.parse(cert.validTo) - now.getTime() < RENEW_BEFORE_MS) return false;
    if (Date.parse(cert.validFrom) > now.getTime()) return false;
    // A certificate from another CA (say the user swapped ca.* by hand) would fail every client's verification.
    if (!cert.checkIssued(ca) || !cert.verify(ca.publicKey)) return false;
    const present = new Set(parseNodeSubjectAltName(cert.subjectAltName ?? ''));
    return wanted.every((s) => present.has(sanKey(s.type, s.value)));
  } catch {
    return false;
  }
}

/** Node prints SANs as `DNS:localhost, IP Address:127.0.0.1`; turn them into `sanKey` form. */
function parseNodeSubjectAltName(text: string): string[] {
  const keys: string[] = [];
  for (const part of text.split(', ')) {
    if (part.startsWith('DNS:')) keys.push(sanKey('dns', part.slice(4)));
    else if (part.startsWith('IP Address:')) keys.push(sanKey('ip', part.slice(11)));
  }
  return keys;
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

async function importPrivateKey(pem: string, file: string): Promise<CryptoKey> {
  try {
    const der = createPrivateKey(pem).export({ type: 'pkcs8', format: 'der' });
    return await webcrypto.subtle.importKey('pkcs8', der, EC_ALGORITHM, true, ['sign']);
  } catch (err) {
    const why = (err as Error).message;
    throw new Error(`cannot load private key "${file}" (expected a PKCS#8 ECDSA P-256 key): ${why}`);
  }
}

async function keyPairFromPem(pem: string, file: string): Promise<webcrypto.CryptoKeyPair> {
  const privateKey = await importPrivateKey(pem, file);
  const spki = createPublicKey(createPrivateKey(pem)).export({ type: 'spki', format: 'der' });
  const publicKey = await webcrypto.subtle.importKey('spki', spki, EC_ALGORITHM, true, ['verify']);
  return { privateKey, publicKey };
}

async function generateKeyPair(): Promise<webcrypto.CryptoKeyPair> {
  return webcrypto.subtle.generateKey(EC_ALGORITHM, true, ['sign', 'verify']);
}

async function exportPrivateKeyPem(key: CryptoKey): Promise<string> {
  // PKCS#8 PEM (`BEGIN PRIVATE KEY`), which tls.createServer and kube tooling both read.
  return KeyObject.from(key).export({ type: 'pkcs8', format: 'pem' }) as string;
}

/** 16 random bytes, top bit cleared (serials must be positive; Go rejects negative ones) and first byte non-zero. */
function randomSerial(): string {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0]! & 0x7f) | 0x01;
  return bytes.toString('hex');
}
