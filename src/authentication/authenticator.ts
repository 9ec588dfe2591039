// authenticator.Request / authenticator.Token as in k8s.io/apiserver/pkg/authentication/authenticator,
// plus the request-scoped expected audiences (authenticator.WithAudiences).

import type { RequestContext, UserInfo } from '../endpoints/request/context.ts';

export interface AuthenticatorResponse {
  user: UserInfo;
  /** Audiences the credential is valid for; empty means the API server's own audiences. */
  audiences?: string[];
}

/**
 * Authenticates a request. Resolves to a response when the request carries valid credentials
 * for this authenticator, to null when it carries none this authenticator understands, and
 * rejects when credentials were present but invalid (Go's `(nil, false, err)`).
 */
export interface RequestAuthenticator {
  authenticateRequest(ctx: RequestContext): Promise<AuthenticatorResponse | null>;
  /**
   * The same contract, answered synchronously where it can be (no credentials, a cache hit):
   * the chain then makes no Promise per authenticator layer. Optional; see `authenticate`.
   */
  authenticateFast?(ctx: RequestContext): AuthenticatorResponse | null | Promise<AuthenticatorResponse | null>;
  /**
   * authenticateFast with a synchronous rejection returned as the Error instead of thrown: a
   * union that goes on to its next authenticator then does not unwind a throw per request (the
   * loopback token authenticator rejects every other bearer token). Optional.
   */
  authenticateOrError?(ctx: RequestContext): MaybeAuthenticated | Error;
}

/** What an authenticator's fast path returns: a result, or a Promise of one. */
export type MaybeAuthenticated = AuthenticatorResponse | null | Promise<AuthenticatorResponse | null>;

/** Authenticates with `a`, synchronously when it can answer so (it may also throw). */
export function authenticate(a: RequestAuthenticator, ctx: RequestContext): MaybeAuthenticated {
  return a.authenticateFast ? a.authenticateFast(ctx) : a.authenticateRequest(ctx);
}

/** Authenticates `token` with `a`, synchronously when it can answer so (it may also throw). */
export function authenticateToken(
  a: TokenAuthenticator,
  token: string,
  audiences?: readonly string[],
): MaybeAuthenticated {
  return a.authenticateTokenFast ? a.authenticateTokenFast(token, audiences) : a.authenticateToken(token, audiences);
}

/**
 * Authenticates a bearer token (authenticator.Token). `audiences` are the audiences the
 * request expects (the filter's `--api-audiences`); undefined or empty means "any".
 * Same tri-state contract as RequestAuthenticator. Errors must never contain the token.
 */
export interface TokenAuthenticator {
  authenticateToken(token: string, audiences?: readonly string[]): Promise<AuthenticatorResponse | null>;
  /** The same, answered synchronously where it can be (a cache hit). Optional; see `authenticateToken`. */
  authenticateTokenFast?(token: string, audiences?: readonly string[]): MaybeAuthenticated;
}

/** Wraps a function as a RequestAuthenticator (authenticator.RequestFunc). */
export function requestFunc(fn: (ctx: RequestContext) => Promise<AuthenticatorResponse | null>): RequestAuthenticator {
  return { authenticateRequest: fn };
}

/** Wraps a function as a TokenAuthenticator (authenticator.TokenFunc). */
export function tokenFunc(
  fn: (token: string, audiences?: readonly string[]) => Promise<AuthenticatorResponse | null>,
): TokenAuthenticator {
  return { authenticateToken: fn };
}

const audiencesKey = Symbol('authenticator.audiences');

/** authenticator.WithAudiences: the audiences the request is expected to be valid for. */
export function withAudiences(ctx: RequestContext, audiences: readonly string[]): void {
  ctx.values.set(audiencesKey, audiences);
}

/** authenticator.AudiencesFrom. */
export function audiencesFrom(ctx: RequestContext): readonly string[] | undefined {
  return ctx.values.get(audiencesKey) as readonly string[] | undefined;
}

/** Audiences.Intersect, in the order of `a`. */
export function intersectAudiences(a: readonly string[], b: readonly string[]): string[] {
  const out: string[] = [];
  for (const x of a) if (b.includes(x) && !out.includes(x)) out.push(x);
  return out;
}
