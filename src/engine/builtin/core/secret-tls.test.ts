import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureServingCertificates, type ServingCertificates } from '../../auth/certificates.js';
import { tlsKeyPairProblem } from './secret-tls.js';

describe('TLS secret warnings', () => {
  let dir: string;
  let certs: ServingCertificates;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'kcpt-tls-'));
    certs = await ensureServingCertificates(dir, { hosts: [] });
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('accept a certificate with its own key', () => {
    expect(tlsKeyPairProblem(certs.certPem, certs.keyPem)).toBeUndefined();
  });

  it('report a key that belongs to another certificate', () => {
    expect(tlsKeyPairProblem(certs.caCertPem, certs.keyPem)).toBe('tls: private key does not match public key');
  });

  it('report swapped inputs and missing PEM data with Go’s wording', () => {
    expect(tlsKeyPairProblem(certs.keyPem, certs.keyPem)).toMatch(
      /^tls: failed to find "CERTIFICATE" PEM block in certificate input after skipping PEM blocks of the following types: \[.*PRIVATE KEY\]$/,
    );
    expect(tlsKeyPairProblem(certs.certPem, certs.certPem)).toBe(
      'tls: found a certificate rather than a key in the PEM for the private key',
    );
    expect(tlsKeyPairProblem(certs.certPem, '')).toBe('tls: failed to find any PEM data in key input');
  });
});
