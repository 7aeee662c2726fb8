/**
 * The HTTPS agent of the CLI's REST client, and how it trusts the server. Node 20 parses its ~140 bundled root
 * certificates the first time a TLS context is built, with a CA or without one: 30–50 ms of CPU, a third of what a
 * whole `kcpt ws use` costs. A kubeconfig names its own CA, and for kcpt (as for most clusters) that CA signed the
 * server's certificate directly. So connections start with an empty trust store, and the peer is checked here
 * before anything is written to the connection (the agent hands the socket to the request only afterwards):
 *
 *   - the leaf certificate is issued and signed by one of the kubeconfig's CA certificates, which is a CA;
 *   - both are within their validity period;
 *   - the leaf lists serverAuth among its extended key usages, if it lists any;
 *   - it is for the host (tls.checkServerIdentity, Node's own rule).
 *
 * Whatever this check does not vouch for (an intermediate in between, no CA in the kubeconfig, a failed check) is
 * decided by OpenSSL as before: the connection is dropped and made again with the full context, so a wrong CA or
 * host name fails with Node's usual errors. With --insecure-skip-tls-verify nothing is verified and no root store
 * is needed either.
 */
import { X509Certificate } from 'node:crypto';
import type { Duplex } from 'node:stream';
import https from 'node:https';
import tls, { type ConnectionOptions, type SecureContext, type TLSSocket } from 'node:tls';
import type { Connection } from './connection.js';

const serverAuth = '1.3.6.1.5.5.7.3.1';
const anyExtendedKeyUsage = '2.5.29.37.0';

/** node:https's request, for the client that uses this agent. */
export const httpsRequest = https.request;

type TlsSettings = Pick<Connection, 'ca' | 'clientCert' | 'clientKey' | 'insecureSkipTLSVerify' | 'tlsServerName'>;

export function createHttpsAgent(c: TlsSettings): https.Agent {
  const options: https.AgentOptions = { keepAlive: true, servername: c.tlsServerName };
  // No trust store to build: the connection is either not verified at all or verified below.
  const untrusting = () => tls.createSecureContext({ ca: [], cert: c.clientCert, key: c.clientKey });
  if (c.insecureSkipTLSVerify) return new https.Agent({ ...options, secureContext: untrusting(), rejectUnauthorized: false });
  // One context for every connection of the command (building one is the cost above).
  let full: SecureContext | undefined;
  const fullContext = () => (full ??= tls.createSecureContext({ ca: c.ca, cert: c.clientCert, key: c.clientKey }));
  const anchors = c.ca ? caCertificates(c.ca) : [];
  if (anchors.length === 0) return new https.Agent({ ...options, secureContext: fullContext() });
  // No TLS session cache: every connection is checked from its own full handshake.
  return new DirectIssuerAgent({ ...options, maxCachedSessions: 0 }, anchors, untrusting(), fullContext);
}

class DirectIssuerAgent extends https.Agent {
  constructor(
    options: https.AgentOptions,
    private readonly anchors: X509Certificate[],
    private readonly untrusting: SecureContext,
    private readonly fullContext: () => SecureContext,
  ) {
    super(options);
  }

  override createConnection(options: https.RequestOptions, oncreate?: (err: Error | null, stream: Duplex) => void): undefined {
    const done = oncreate!;
    const connect = (extra: ConnectionOptions) => super.createConnection({ ...options, ...extra } as https.RequestOptions) as TLSSocket;
    const socket = connect({ secureContext: this.untrusting, rejectUnauthorized: false });
    const failed = (err: Error) => done(err, socket);
    socket.once('error', failed);
    socket.once('secureConnect', () => {
      socket.off('error', failed);
      const host = options.servername || options.host || 'localhost';
      if (issuedByAnchor(socket, this.anchors, host)) return done(null, socket);
      socket.destroy();
      done(null, connect({ secureContext: this.fullContext(), rejectUnauthorized: true }));
    });
    return undefined;
  }
}

/** Whether the peer's certificate passes the checks in this file's comment. */
export function issuedByAnchor(socket: TLSSocket, anchors: X509Certificate[], host: string, now = Date.now()): boolean {
  const leaf = socket.getPeerX509Certificate();
  return leaf !== undefined && trustedLeaf(leaf, anchors, host, now);
}

export function trustedLeaf(leaf: X509Certificate, anchors: X509Certificate[], host: string, now = Date.now()): boolean {
  const current = (cert: X509Certificate) => Date.parse(cert.validFrom) <= now && now <= Date.parse(cert.validTo);
  if (!current(leaf)) return false;
  const usages = leaf.keyUsage as string[] | undefined;
  if (usages?.length && !usages.includes(serverAuth) && !usages.includes(anyExtendedKeyUsage)) return false;
  if (!anchors.some((ca) => ca.ca && current(ca) && leaf.checkIssued(ca) && leaf.verify(ca.publicKey))) return false;
  return tls.checkServerIdentity(host, leaf.toLegacyObject()) === undefined;
}

/** The certificates of a PEM bundle; none when any of them does not parse (OpenSSL then decides alone). */
export function caCertificates(pem: Buffer): X509Certificate[] {
  const blocks = pem.toString('utf8').match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  try {
    return blocks.map((block) => new X509Certificate(block));
  } catch {
    return [];
  }
}
