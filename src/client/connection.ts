/** Where a client connects and how it proves who it is: what a kubeconfig context resolves to. */
export interface Connection {
  /** The server URL as configured (may end in `/clusters/<path>`). */
  server: string;
  ca?: Buffer;
  insecureSkipTLSVerify: boolean;
  tlsServerName?: string;
  token?: string;
  clientCert?: Buffer;
  clientKey?: Buffer;
  basicAuth?: { username: string; password: string };
}
