import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { promises as fs } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ensureServingCertificates, servingSubjectAltNames } from './certificates.js';

const execFileAsync = promisify(execFile);
const DAY = 24 * 60 * 60 * 1000;

let root: string;
beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'kcpt-certs-'));
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

const mode = async (file: string) => (await fs.stat(path.join(root, file))).mode & 0o777;
const read = (file: string) => fs.readFile(path.join(root, file), 'utf8');

describe('ensureServingCertificates', () => {
  // How fast (part of a first start) is bench/startup.js's to measure.
  it('creates a CA and a serving certificate on first start', async () => {
    const result = await ensureServingCertificates(root, { hosts: ['0.0.0.0', 'kcp.example.com', '10.0.0.7'] });

    expect(result.created).toEqual({ ca: true, serving: true });
    expect(await mode('ca.key')).toBe(0o600);
    expect(await mode('apiserver.key')).toBe(0o600);
    expect(await read('ca.crt')).toBe(result.caCertPem);
    expect(await read('apiserver.crt')).toBe(result.certPem);
    expect(await read('apiserver.key')).toBe(result.keyPem);
    expect(result.keyPem).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);

    const ca = new X509Certificate(result.caCertPem);
    const cert = new X509Certificate(result.certPem);
    expect(ca.subject).toBe('CN=kcpt-ca');
    expect(ca.ca).toBe(true);
    expect(Date.parse(ca.validTo) - Date.now()).toBeGreaterThan(3649 * DAY);
    expect(cert.ca).toBe(false);
    expect(cert.checkIssued(ca)).toBe(true);
    expect(cert.verify(ca.publicKey)).toBe(true);
    expect(cert.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']); // Node reports the EKU here: serverAuth only
    expect(Date.parse(cert.validTo) - Date.now()).toBeGreaterThan(364 * DAY);
    expect(Date.parse(cert.validTo) - Date.now()).toBeLessThan(366 * DAY);
    expect(cert.subjectAltName).toBe(
      'IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1, DNS:localhost, DNS:kcp.example.com, IP Address:10.0.0.7',
    );
    expect(cert.checkHost('kcp.example.com')).toBe('kcp.example.com');
    expect(cert.checkIP('::1')).toBe('::1');
  });

  it('reuses everything on a later start', async () => {
    const first = await ensureServingCertificates(root, { hosts: ['kcp.example.com'] });
    const second = await ensureServingCertificates(root, { hosts: ['KCP.example.com', '[::1]'] });
    expect(second.created).toEqual({ ca: false, serving: false });
    expect(second.caCertPem).toBe(first.caCertPem);
    expect(second.certPem).toBe(first.certPem);
    expect(second.keyPem).toBe(first.keyPem);
  });

  it('re-issues the serving certificate from the same CA when a SAN is missing', async () => {
    const first = await ensureServingCertificates(root, { hosts: [] });
    const second = await ensureServingCertificates(root, { hosts: ['192.168.1.20'] });
    expect(second.created).toEqual({ ca: false, serving: true });
    expect(second.caCertPem).toBe(first.caCertPem);
    expect(await read('ca.key')).toBeTruthy();
    const cert = new X509Certificate(second.certPem);
    expect(cert.checkIP('192.168.1.20')).toBe('192.168.1.20');
    expect(cert.verify(new X509Certificate(first.caCertPem).publicKey)).toBe(true);
    expect(await mode('apiserver.key')).toBe(0o600);
  });

  it('re-issues the serving certificate when it expires within 30 days', async () => {
    const first = await ensureServingCertificates(root, { hosts: [] });
    const in300Days = await ensureServingCertificates(root, { hosts: [], now: new Date(Date.now() + 300 * DAY) });
    expect(in300Days.created.serving).toBe(false);
    const in340Days = await ensureServingCertificates(root, { hosts: [], now: new Date(Date.now() + 340 * DAY) });
    expect(in340Days.created).toEqual({ ca: false, serving: true });
    expect(in340Days.caCertPem).toBe(first.caCertPem);
    expect(in340Days.certPem).not.toBe(first.certPem);
  });

  it('replaces a serving certificate that does not match its key or was issued by another CA', async () => {
    await ensureServingCertificates(root, { hosts: [] });
    const other = await fs.mkdtemp(path.join(root, 'other-'));
    const foreign = await ensureServingCertificates(other, { hosts: [] });
    await fs.writeFile(path.join(root, 'apiserver.crt'), foreign.certPem);
    await fs.writeFile(path.join(root, 'apiserver.key'), foreign.keyPem);
    const fixed = await ensureServingCertificates(root, { hosts: [] });
    expect(fixed.created.serving).toBe(true);
    expect(new X509Certificate(fixed.certPem).checkIssued(new X509Certificate(fixed.caCertPem))).toBe(true);

    await fs.writeFile(path.join(root, 'apiserver.key'), foreign.keyPem);
    expect((await ensureServingCertificates(root, { hosts: [] })).created.serving).toBe(true);
  });

  it('never replaces a CA whose key is missing, and names both files', async () => {
    await ensureServingCertificates(root, { hosts: [] });
    await fs.rm(path.join(root, 'ca.key'));
    await expect(ensureServingCertificates(root, { hosts: [] })).rejects.toThrow(
      `CA certificate "${path.join(root, 'ca.crt')}" exists but its key "${path.join(root, 'ca.key')}" is missing`,
    );
  });

  it('rejects a CA key that does not belong to the CA certificate', async () => {
    await ensureServingCertificates(root, { hosts: [] });
    const other = await fs.mkdtemp(path.join(root, 'other-'));
    await ensureServingCertificates(other, { hosts: [] });
    await fs.copyFile(path.join(other, 'ca.key'), path.join(root, 'ca.key'));
    await expect(ensureServingCertificates(root, { hosts: [] })).rejects.toThrow(/does not belong to CA certificate/);
  });

  it('re-creates a deleted ca.crt around the existing key, so the old CA still verifies new certificates', async () => {
    const first = await ensureServingCertificates(root, { hosts: [] });
    await fs.rm(path.join(root, 'ca.crt'));
    const second = await ensureServingCertificates(root, { hosts: ['new.example.com'] });
    expect(second.created).toEqual({ ca: true, serving: true });
    const oldCa = new X509Certificate(first.caCertPem);
    const cert = new X509Certificate(second.certPem);
    expect(cert.checkIssued(oldCa)).toBe(true);
    expect(cert.verify(oldCa.publicKey)).toBe(true);
  });

  it('produces key material that tls.createServer accepts', async () => {
    const { certPem, keyPem } = await ensureServingCertificates(root, { hosts: [] });
    const server = tls.createServer({ key: keyPem, cert: certPem });
    server.close();
  });

  it('serves a chain that the real kubectl verifies', async () => {
    const { certPem, keyPem } = await ensureServingCertificates(root, { hosts: [] });
    const version = { major: '1', minor: '32', gitVersion: 'v1.32.0-kcpt-test', platform: 'linux/amd64' };
    const server = https.createServer({ key: keyPem, cert: certPem }, (req, res) => {
      res.writeHead(req.url?.startsWith('/version') ? 200 : 404, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(req.url?.startsWith('/version') ? version : {}));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const home = await fs.mkdtemp(path.join(root, 'home-'));
    const env = { ...process.env, HOME: home, KUBECONFIG: path.join(home, 'none') };
    const port = (server.address() as AddressInfo).port;
    // A token keeps kubectl from prompting for a username on stdin when it has no credentials.
    const kubectl = (host: string, caFile: string) =>
      execFileAsync(
        'kubectl',
        [`--server=https://${host}:${port}`, `--certificate-authority=${caFile}`, '--token=unused', 'get', '--raw', '/version'],
        { env, timeout: 30_000 },
      );
    try {
      for (const host of ['127.0.0.1', 'localhost']) {
        const ok = await kubectl(host, path.join(root, 'ca.crt'));
        expect(JSON.parse(ok.stdout)).toEqual(version);
      }

      // Control: a CA that did not sign the certificate must make kubectl refuse the connection.
      const other = await fs.mkdtemp(path.join(root, 'other-'));
      await ensureServingCertificates(other, { hosts: [] });
      await expect(kubectl('127.0.0.1', path.join(other, 'ca.crt'))).rejects.toMatchObject({
        stderr: expect.stringMatching(/certificate signed by unknown authority/),
      });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('servingSubjectAltNames', () => {
  it('skips unspecified addresses, strips brackets and deduplicates', () => {
    expect(servingSubjectAltNames(['0.0.0.0', '::', '[fe80::1]', 'LOCALHOST', '127.0.0.1', ' '])).toEqual([
      { type: 'ip', value: '127.0.0.1' },
      { type: 'ip', value: '::1' },
      { type: 'dns', value: 'localhost' },
      { type: 'ip', value: 'fe80::1' },
    ]);
  });
});
