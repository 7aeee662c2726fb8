/**
 * Bearer-token authentication, kube-apiserver's union: static tokens first (admin users, `--token-auth-file`),
 * then service-account tokens. Requests are authenticated for the API audiences (default: the service-account
 * issuer); TokenReview may ask for other audiences. Static tokens are audience-agnostic: like kube, they are valid
 * only for audiences that include one of the API audiences.
 */
import { TokenInvalidError } from './service-account-tokens.js';
import type { ServiceAccountAuthenticator } from './service-account-authenticator.js';
import type { TokenAuthenticator } from './token-store.js';
import type { UserInfo } from './user.js';

export type TokenReviewResult =
  | { authenticated: true; user: UserInfo; audiences: string[] }
  | { authenticated: false; error: string };

export class BearerTokenAuthenticator {
  constructor(
    private readonly staticTokens: TokenAuthenticator,
    private readonly serviceAccounts: ServiceAccountAuthenticator | undefined,
    readonly apiAudiences: readonly string[],
  ) {}

  /**
   * The user a request's bearer token stands for, or undefined (the request gets 401). A static token is answered
   * synchronously: the request gate then spends no promise or extra turn on the common admin/token-file request.
   */
  authenticate(token: string): UserInfo | undefined | Promise<UserInfo | undefined> {
    if (token === '') return undefined;
    const user = this.staticTokens.authenticate(token);
    if (user) return this.apiAudiences.length > 0 ? user : undefined;
    return this.review(token).then((result) => (result.authenticated ? result.user : undefined));
  }

  /** TokenReview: who `token` is for `audiences` (empty: the API audiences), or why it is not valid. */
  async review(token: string, audiences: readonly string[] = []): Promise<TokenReviewResult> {
    const wanted = audiences.length > 0 ? audiences : this.apiAudiences;
    if (token === '') return { authenticated: false, error: 'invalid bearer token' };
    const user = this.staticTokens.authenticate(token);
    if (user) {
      const matched = wanted.filter((a) => this.apiAudiences.includes(a));
      if (matched.length > 0) return { authenticated: true, user, audiences: matched };
      return { authenticated: false, error: 'invalid bearer token' };
    }
    try {
      const result = await this.serviceAccounts?.authenticate(token, wanted);
      if (result) return { authenticated: true, ...result };
    } catch (err) {
      if (err instanceof TokenInvalidError) return { authenticated: false, error: `[invalid bearer token, ${err.message}]` };
      throw err;
    }
    return { authenticated: false, error: 'invalid bearer token' };
  }
}
