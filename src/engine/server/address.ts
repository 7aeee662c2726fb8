/**
 * Where this server is reached: known only once it listens (`--secure-port 0` picks the port then), while the
 * parts that put it into objects (a LogicalCluster's URL, the Shard, endpoint slices, root's own shard client) are
 * built before. They get this object and read it when they run, which is after listening; reading it earlier is a
 * mistake in the start-up order and throws.
 */
import type { ServerUrls } from './options.js';

export class ServerAddress {
  private urls?: ServerUrls;

  /** Called once, when the listener is bound. */
  bind(urls: ServerUrls): void {
    if (this.urls) throw new Error(`the server address is bound already (${this.urls.listenUrl})`);
    this.urls = urls;
  }

  get port(): number {
    return this.read().port;
  }

  get listenUrl(): string {
    return this.read().listenUrl;
  }

  get baseUrl(): string {
    return this.read().baseUrl;
  }

  get externalUrl(): string {
    return this.read().externalUrl;
  }

  get virtualWorkspaceUrl(): string {
    return this.read().virtualWorkspaceUrl;
  }

  get serverAddress(): string {
    return this.read().serverAddress;
  }

  private read(): ServerUrls {
    if (!this.urls) throw new Error('the server address was read before the server listens');
    return this.urls;
  }
}
