// Bearer token and WebSocket-protocol token extraction (request/bearertoken, request/websocket).

import type { RequestContext } from '../endpoints/request/context.ts';
import {
  audiencesFrom,
  authenticateToken,
  type MaybeAuthenticated,
  type AuthenticatorResponse,
  type RequestAuthenticator,
  type TokenAuthenticator,
} from './authenticator.ts';
import { addWarning } from '../endpoints/request/warning.ts';
import { authorizationMemo } from './headers.ts';
import { decodeBase64URL } from '../util/base64.ts';

export const invalidTokenError = 'invalid bearer token';
export const extraSpaceWarning =
  'the provided Authorization header contains extra space before the bearer token, and is ignored';

/** Where the "extra space" warning goes; default: the request's Warning header (warning.AddWarning). */
export type WarningSink = (ctx: RequestContext, text: string) => void;

const addWarningHeader: WarningSink = (ctx, text) => addWarning(ctx, '', text);

const bearer = 'bearer';

/**
 * Parses `Authorization: Bearer <token>` exactly as upstream: TrimSpace, split on single ASCII
 * spaces into at most 3 parts, scheme case-insensitive, anything after a third space ignored.
 * Returns the token, `''` for the "extra space" case, or undefined when there is no bearer token.
 */
export function parseBearerToken(header: string | null): string | undefined {
  if (header === null) return undefined;
  const auth = goTrimSpace(header);
  if (auth === '') return undefined;
  // strings.ToLower(parts[0]) == "bearer", without building either string.
  if (auth.indexOf(' ') !== bearer.length) return undefined;
  for (let i = 0; i < bearer.length; i++) if ((auth.charCodeAt(i) | 0x20) !== bearer.charCodeAt(i)) return undefined;
  const rest = auth.slice(bearer.length + 1);
  const second = rest.indexOf(' ');
  return second < 0 ? rest : rest.slice(0, second);
}

/** strings.TrimSpace (ASCII whitespace and Unicode spaces). */
export function goTrimSpace(s: string): string {
  // Fast path: headers rarely carry surrounding space, and the regex scans long tokens.
  if (s.length && !isSpace(s.charCodeAt(0)) && !isSpace(s.charCodeAt(s.length - 1))) return s;
  return s.replace(/^[\s\u0085]+|[\s\u0085]+$/g, '');
}

function isSpace(c: number): boolean {
  return c <= 0x20 || c === 0x85 || c === 0xa0 || c >= 0x1680;
}

/** bearertoken.New: authenticates the bearer token with a TokenAuthenticator. */
export class BearerTokenAuthenticator implements RequestAuthenticator {
  private readonly auth: TokenAuthenticator;
  private readonly warn: WarningSink;
  private readonly invalidIsNoOpinion: boolean;
  /**
   * `invalidIsNoOpinion`: a token this authenticator does not know yields null instead of an
   * error, for an authenticator placed in front of a union (the loopback token): the outcome is
   * the same, without building an Error on every request.
   */
  constructor(auth: TokenAuthenticator, warn: WarningSink = addWarningHeader, invalidIsNoOpinion = false) {
    this.auth = auth;
    this.warn = warn;
    this.invalidIsNoOpinion = invalidIsNoOpinion;
  }
  async authenticateRequest(ctx: RequestContext): Promise<AuthenticatorResponse | null> {
    return this.authenticateFast(ctx);
  }
  authenticateFast(ctx: RequestContext): MaybeAuthenticated {
    const r = this.authenticateOrError(ctx);
    if (r instanceof Error) throw r;
    return r;
  }
  authenticateOrError(ctx: RequestContext): MaybeAuthenticated | Error {
    // Go's Header.Get: the first Authorization line. Without raw headers the runtime joins
    // repeated lines ("a, b"), which never parses as a valid token: 401, fail closed.
    // Parsed once per request for every bearer authenticator of the chain (the loopback token's, the token file's …).
    const memo = authorizationMemo(ctx);
    const token = memo.bearer === undefined ? (memo.bearer = parseBearerToken(memo.value) ?? null) : memo.bearer;
    if (token === null) return null;
    if (token === '') {
      // `Bearer  tok`: three parts with an empty token; upstream warns and has no opinion.
      if (goTrimSpace(memo.value!).split(' ').length >= 3) this.warn(ctx, extraSpaceWarning);
      return null;
    }
    const r = authenticateToken(this.auth, token, audiencesFrom(ctx));
    if (r instanceof Promise)
      return r.then((resp) => {
        const a = this.answer(resp);
        if (a instanceof Error) throw a;
        return a;
      });
    return this.answer(r);
  }
  private answer(resp: AuthenticatorResponse | null): AuthenticatorResponse | null | Error {
    if (resp) return resp;
    if (this.invalidIsNoOpinion) return null;
    // One Error per authenticator, not per request: in front of a union (the loopback and admin
    // tokens) every other token lands here before the union's next authenticator accepts it,
    // and capturing a stack through the whole chain costs more than the rest of the lookup.
    return (this.invalid ??= new Error(invalidTokenError));
  }
  private invalid?: Error;
}

const protocolHeader = 'sec-websocket-protocol';
const bearerProtocolPrefix = 'base64url.bearer.authorization.k8s.io.';

/** websocket.NewProtocolAuthenticator: the token carried in Sec-WebSocket-Protocol on upgrades. */
export class WebSocketProtocolAuthenticator implements RequestAuthenticator {
  private readonly auth: TokenAuthenticator;
  constructor(auth: TokenAuthenticator) {
    this.auth = auth;
  }
  authenticateFast(ctx: RequestContext): MaybeAuthenticated {
    // Most requests are no upgrade: no opinion, synchronously.
    return isWebSocketUpgrade(ctx.request.headers) ? this.authenticateRequest(ctx) : null;
  }
  async authenticateRequest(ctx: RequestContext): Promise<AuthenticatorResponse | null> {
    const h = ctx.request.headers;
    if (!isWebSocketUpgrade(h)) return null;
    const raw = h.get(protocolHeader);
    if (!raw) return null;
    let token = '';
    let sawToken = false;
    const filtered: string[] = [];
    for (const part of raw.split(',')) {
      const protocol = part.trim();
      if (!protocol.startsWith(bearerProtocolPrefix)) {
        filtered.push(protocol);
        continue;
      }
      if (sawToken) throw new Error('multiple base64.bearer.authorization tokens specified');
      sawToken = true;
      token = decodeBase64URLNoPad(protocol.slice(bearerProtocolPrefix.length));
    }
    if (!sawToken) return null;
    if (filtered.length === 0) throw new Error('missing additional subprotocol');
    if (token === '') return null;
    const resp = await this.auth.authenticateToken(token, audiencesFrom(ctx));
    if (!resp) throw new Error(invalidTokenError);
    // The token protocol is removed so that it never reaches the backend (upstream rewrites the header).
    setRequestHeader(ctx, protocolHeader, filtered.join(','));
    return resp;
  }
}

function setRequestHeader(ctx: RequestContext, name: string, value: string): void {
  try {
    ctx.request.headers.set(name, value);
    if (ctx.request.headers.get(name) === value) return;
  } catch {
    // immutable headers: rebuild below
  }
  const h = new Headers(ctx.request.headers);
  h.set(name, value);
  ctx.request = new Request(ctx.request, { headers: h });
}

function isWebSocketUpgrade(h: Headers): boolean {
  const conn = h.get('connection');
  const upgrade = h.get('upgrade');
  return !!conn && !!upgrade && /(^|,)\s*upgrade\s*(,|$)/i.test(conn) && upgrade.toLowerCase() === 'websocket';
}

function decodeBase64URLNoPad(s: string): string {
  if (!/^[A-Za-z0-9_-]*$/.test(s) || s.length % 4 === 1)
    throw new Error('invalid base64 in websocket bearer token protocol');
  const bytes = decodeBase64URL(s);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new Error('invalid UTF-8 in websocket bearer token protocol');
  }
}
