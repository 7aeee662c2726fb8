/**
 * The warning kube returns for a kubernetes.io/tls Secret whose certificate and key do not form a usable pair:
 * the error text of Go's tls.X509KeyPair (kube only warns; the Secret is still stored).
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';

interface PemBlock {
  type: string;
  text: string;
}

function pemBlocks(input: string): PemBlock[] {
  const blocks: PemBlock[] = [];
  const re = /-----BEGIN ([^\n-]+)-----[\s\S]*?-----END \1-----/g;
  for (let m = re.exec(input); m; m = re.exec(input)) blocks.push({ type: m[1], text: m[0] });
  return blocks;
}

/** Returns the X509KeyPair error message, or undefined when the pair is good. */
export function tlsKeyPairProblem(certPem: string, keyPem: string): string | undefined {
  const certBlocks = pemBlocks(certPem);
  const cert = certBlocks.find((b) => b.type === 'CERTIFICATE');
  if (!cert) {
    if (certBlocks.length === 0) return 'tls: failed to find any PEM data in certificate input';
    return (
      'tls: failed to find "CERTIFICATE" PEM block in certificate input after skipping PEM blocks of the following ' +
      `types: [${certBlocks.map((b) => b.type).join(' ')}]`
    );
  }
  const keyBlocks = pemBlocks(keyPem);
  const key = keyBlocks.find((b) => b.type === 'PRIVATE KEY' || b.type.endsWith(' PRIVATE KEY'));
  if (!key) {
    if (keyBlocks.length === 0) return 'tls: failed to find any PEM data in key input';
    if (keyBlocks.every((b) => b.type === 'CERTIFICATE')) {
      return 'tls: found a certificate rather than a key in the PEM for the private key';
    }
    return (
      'tls: failed to find PEM block with type ending in "PRIVATE KEY" in key input after skipping PEM blocks of the ' +
      `following types: [${keyBlocks.map((b) => b.type).join(' ')}]`
    );
  }
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(cert.text);
  } catch {
    return 'x509: malformed certificate';
  }
  let privateKey;
  try {
    privateKey = createPrivateKey(key.text);
  } catch {
    return 'tls: failed to parse private key';
  }
  try {
    if (!x509.checkPrivateKey(privateKey)) return 'tls: private key does not match public key';
  } catch {
    return 'tls: private key does not match public key';
  }
  return undefined;
}
