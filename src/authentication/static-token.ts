// Static token authenticators: the --token-auth-file table and the loopback token.
// Tokens are compared in constant time (SHA-256 digests as map keys; timingSafeEqual for one).

import type { UserInfo } from '../endpoints/request/context.ts';
import type { AuthenticatorResponse, MaybeAuthenticated, TokenAuthenticator } from './authenticator.ts';
import { allAuthenticated, apiserverUser, systemPrivilegedGroup } from './user.ts';

const encoder = new TextEncoder();

/**
 * Constant-time comparison of two strings (length is not hidden). Compares UTF-16 code units:
 * equal strings have equal code units, and it spares encoding both strings to bytes on every
 * request (TextEncoder.encode costs microseconds per call on Node; the loopback token is checked
 * for every bearer token presented).
 */
export function timingSafeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

async function digest(token: string): Promise<string> {
  const d = new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(token)));
  let hex = '';
  for (const b of d) hex += b.toString(16).padStart(2, '0');
  return hex;
}

/**
 * A token → user table. Lookups hash the presented token first, so the time taken does not
 * depend on how much of a stored token it shares.
 */
export class StaticTokenAuthenticator implements TokenAuthenticator {
  private readonly byDigest = new Map<string, UserInfo>();
  private constructor() {}
  static async create(tokens: Iterable<[string, UserInfo]>): Promise<StaticTokenAuthenticator> {
    const a = new StaticTokenAuthenticator();
    for (const [token, user] of tokens) a.byDigest.set(await digest(token), user);
    return a;
  }
  get size(): number {
    return this.byDigest.size;
  }
  async authenticateToken(token: string): Promise<AuthenticatorResponse | null> {
    const user = this.byDigest.get(await digest(token));
    return user ? { user: { ...user, groups: user.groups && [...user.groups] } } : null;
  }
}

/**
 * The loopback client's token (AuthorizeClientBearerToken): user system:apiserver with a fresh
 * UID, groups system:authenticated and system:masters.
 */
export class LoopbackTokenAuthenticator implements TokenAuthenticator {
  private readonly token: string;
  private readonly uid = crypto.randomUUID();
  constructor(token: string) {
    this.token = token;
  }
  async authenticateToken(token: string): Promise<AuthenticatorResponse | null> {
    return this.authenticateTokenFast(token);
  }
  /** Checked for every bearer token presented: synchronous. */
  authenticateTokenFast(token: string): MaybeAuthenticated {
    if (!timingSafeEqual(token, this.token)) return null;
    return { user: { name: apiserverUser, uid: this.uid, groups: [allAuthenticated, systemPrivilegedGroup] } };
  }
}
