import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureServingCertificates } from '../engine/auth/certificates.js';
import { caCertificates, trustedLeaf } from './https-agent.js';

interface Pki {
  ca: X509Certificate;
  caPem: string;
  leaf: X509Certificate;
}

const dirs: string[] = [];
let ours: Pki;
let theirs: Pki;

async function pki(hosts: string[]): Promise<Pki> {
  const dir = mkdtempSync(join(tmpdir(), 'kcpt-https-agent-'));
  dirs.push(dir);
  const made = await ensureServingCertificates(dir, { hosts });
  return { ca: new X509Certificate(made.caCertPem), caPem: made.caCertPem, leaf: new X509Certificate(made.certPem) };
}

beforeAll(async () => {
  [ours, theirs] = await Promise.all([pki(['kcp.example.com']), pki([])]);
});
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('the direct-issuer check that spares Node its root store', () => {
  it('trusts a leaf the kubeconfig CA signed, for the hosts it names', () => {
    for (const host of ['127.0.0.1', '::1', 'localhost', 'kcp.example.com']) expect(trustedLeaf(ours.leaf, [ours.ca], host)).toBe(true);
    // The CA may sit anywhere in a bundle.
    expect(trustedLeaf(ours.leaf, caCertificates(Buffer.from(theirs.caPem + ours.caPem)), 'localhost')).toBe(true);
  });

  it('leaves everything else to OpenSSL: another CA, another host, the leaf as its own anchor, expired or not yet valid', () => {
    expect(trustedLeaf(ours.leaf, [theirs.ca], 'localhost')).toBe(false);
    expect(trustedLeaf(theirs.leaf, [ours.ca], 'localhost')).toBe(false);
    expect(trustedLeaf(ours.leaf, [ours.ca], 'other.example.com')).toBe(false);
    expect(trustedLeaf(ours.leaf, [ours.ca], '10.0.0.1')).toBe(false);
    expect(trustedLeaf(ours.leaf, [ours.leaf], 'localhost')).toBe(false);
    expect(trustedLeaf(ours.leaf, [ours.ca], 'localhost', Date.parse(ours.leaf.validTo) + 1000)).toBe(false);
    expect(trustedLeaf(ours.leaf, [ours.ca], 'localhost', Date.parse(ours.leaf.validFrom) - 1000)).toBe(false);
  });

  it('reads every certificate of a PEM bundle, and none when one of them is not a certificate', () => {
    expect(caCertificates(Buffer.from(`${ours.caPem}\n${theirs.caPem}`)).map((c) => c.subject)).toEqual([ours.ca.subject, theirs.ca.subject]);
    expect(caCertificates(Buffer.from('not a certificate'))).toEqual([]);
    expect(caCertificates(Buffer.from(`${ours.caPem}-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n`))).toEqual([]);
  });
});
