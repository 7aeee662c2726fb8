/** Who made a request, once authenticated (kube's user.Info). */
export interface UserInfo {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

/** Turns a bearer token into the user it stands for; undefined when the token is not known. */
export interface Authenticator {
  authenticate(token: string): UserInfo | undefined | Promise<UserInfo | undefined>;
}
