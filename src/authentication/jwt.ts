// JWT / OIDC token authenticator (plugin/pkg/authenticator/token/oidc) on jose: discovery and a
// remote JWKS (cached, cooldown, timeout), asymmetric algorithms only, claim mappings with
// prefixes and simple claim validation rules.

import {
  compactVerify,
  createRemoteJWKSet,
  customFetch,
  decodeProtectedHeader,
  errors,
  type JWTVerifyGetKey,
} from 'jose';
import type { UserInfo } from '../endpoints/request/context.ts';
import type { AuthenticatorResponse, TokenAuthenticator } from './authenticator.ts';
import { unverifiedIssuer } from './serviceaccount.ts';

/** The algorithms upstream accepts from issuers (go-oidc's asymmetric set; never `none` or HS*). */
export const allowedSigningAlgorithms = [
  'RS256',
  'RS384',
  'RS512',
  'ES256',
  'ES384',
  'ES512',
  'PS256',
  'PS384',
  'PS512',
];

/** fetch, injectable so that a runtime can trust `certificateAuthority` (and tests can count calls). */
export type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export interface ClaimOrExpression {
  claim?: string;
  /** Required when `claim` is set; '' disables prefixing. */
  prefix?: string;
}

/** One `jwt` entry of AuthenticationConfiguration, without CEL (rejected at load). */
export interface JWTAuthenticatorConfig {
  issuer: {
    url: string;
    discoveryURL?: string;
    audiences: string[];
    audienceMatchPolicy?: string;
    certificateAuthority?: string;
  };
  claimValidationRules?: { claim: string; requiredValue: string }[];
  claimMappings: {
    username: ClaimOrExpression;
    groups?: ClaimOrExpression;
    uid?: { claim?: string };
  };
}

export interface JWTAuthenticatorOptions {
  /** Allowed `alg`s (`--oidc-signing-algs`); default: every asymmetric algorithm. */
  algorithms?: string[];
  fetch?: Fetch;
  /** Seconds of clock skew tolerated for `exp` (default 10); `nbf`/`iat` get go-oidc's 60s. */
  clockSkew?: number;
  /** JWKS fetch timeout (ms, default 5000), refetch cooldown (ms, default 30000), max cache age (ms, default 10 min). */
  jwksTimeout?: number;
  jwksCooldown?: number;
  jwksCacheMaxAge?: number;
  /** After a failed discovery, wait this long before trying again (ms, default 10000). */
  initRetry?: number;
  now?: () => number;
}

function goQuoteList(xs: readonly string[]): string {
  return `[${xs.map((x) => JSON.stringify(x)).join(' ')}]`;
}

function goTime(seconds: number): string {
  const d = new Date(seconds * 1000);
  return d
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d{3}Z$/, ' +0000 UTC');
}

export class JWTAuthenticator implements TokenAuthenticator {
  readonly config: JWTAuthenticatorConfig;
  private readonly algorithms: string[];
  private readonly fetch: Fetch;
  private readonly opts: Required<Omit<JWTAuthenticatorOptions, 'fetch' | 'algorithms'>>;
  private keySet?: JWTVerifyGetKey;
  private initializing?: Promise<JWTVerifyGetKey>;
  private retryAfter = 0;
  private lastInitError = '';

  constructor(config: JWTAuthenticatorConfig, opts: JWTAuthenticatorOptions = {}) {
    this.config = config;
    this.algorithms = opts.algorithms ?? allowedSigningAlgorithms;
    this.fetch = opts.fetch ?? ((i, init) => fetch(i, init));
    this.opts = {
      clockSkew: 10,
      jwksTimeout: 5000,
      jwksCooldown: 30_000,
      jwksCacheMaxAge: 600_000,
      initRetry: 10_000,
      now: Date.now,
      ...opts,
    };
  }

  /** Starts discovery now instead of on the first token (kube-apiserver initializes in the background). */
  start(): void {
    this.keys().catch(() => {});
  }

  private keys(): Promise<JWTVerifyGetKey> {
    if (this.keySet) return Promise.resolve(this.keySet);
    if (this.initializing) return this.initializing;
    if (this.opts.now() < this.retryAfter) {
      return Promise.reject(
        new Error(
          `oidc: authenticator for issuer ${JSON.stringify(this.config.issuer.url)} is not initialized: ${this.lastInitError}`,
        ),
      );
    }
    this.initializing = this.discover().then(
      (ks) => {
        this.keySet = ks;
        this.initializing = undefined;
        return ks;
      },
      (err: Error) => {
        this.initializing = undefined;
        this.lastInitError = err.message;
        this.retryAfter = this.opts.now() + this.opts.initRetry;
        throw new Error(
          `oidc: authenticator for issuer ${JSON.stringify(this.config.issuer.url)} is not initialized: ${err.message}`,
        );
      },
    );
    return this.initializing;
  }

  private async discover(): Promise<JWTVerifyGetKey> {
    const base =
      this.config.issuer.discoveryURL ||
      this.config.issuer.url.replace(/\/+$/, '') + '/.well-known/openid-configuration';
    let res: Response;
    try {
      res = await this.fetch(base, {
        signal: AbortSignal.timeout(this.opts.jwksTimeout),
        headers: { accept: 'application/json' },
      });
    } catch (err) {
      throw new Error(`oidc: fetch discovery document: ${(err as Error).message}`);
    }
    if (res.status !== 200) {
      await res.body?.cancel();
      throw new Error(`${res.status} ${res.statusText}`.trim());
    }
    let doc: { issuer?: unknown; jwks_uri?: unknown };
    try {
      doc = (await res.json()) as typeof doc;
    } catch (err) {
      throw new Error(`oidc: failed to decode provider discovery object: ${(err as Error).message}`);
    }
    if (doc.issuer !== this.config.issuer.url) {
      throw new Error(
        `oidc: issuer did not match the issuer returned by provider, expected ${JSON.stringify(this.config.issuer.url)} got ${JSON.stringify(doc.issuer)}`,
      );
    }
    if (typeof doc.jwks_uri !== 'string') throw new Error('oidc: discovery document has no jwks_uri');
    const fetchImpl = this.fetch;
    return createRemoteJWKSet(new URL(doc.jwks_uri), {
      timeoutDuration: this.opts.jwksTimeout,
      cooldownDuration: this.opts.jwksCooldown,
      cacheMaxAge: this.opts.jwksCacheMaxAge,
      [customFetch]: (url: string, init: RequestInit) => fetchImpl(url, init),
    });
  }

  async authenticateToken(token: string): Promise<AuthenticatorResponse | null> {
    const url = this.config.issuer.url;
    if (unverifiedIssuer(token) !== url) return null;
    let alg: string | undefined;
    try {
      alg = decodeProtectedHeader(token).alg;
    } catch (err) {
      throw new Error(`oidc: malformed jwt: ${(err as Error).message}`);
    }
    if (!alg || !this.algorithms.includes(alg)) {
      throw new Error(
        `oidc: verify token: oidc: id token signed with unsupported algorithm, expected ${goQuoteList(this.algorithms)} got ${JSON.stringify(alg ?? '')}`,
      );
    }
    const keySet = await this.keys();
    let payload: Uint8Array;
    try {
      ({ payload } = await compactVerify(token, keySet, { algorithms: this.algorithms }));
    } catch (err) {
      throw new Error(`oidc: verify token: ${describeJoseError(err)}`);
    }
    let claims: Record<string, unknown>;
    try {
      claims = JSON.parse(new TextDecoder().decode(payload)) as Record<string, unknown>;
      if (!claims || typeof claims !== 'object' || Array.isArray(claims)) throw new Error('not a JSON object');
    } catch (err) {
      throw new Error(`oidc: verify token: oidc: failed to unmarshal claims: ${(err as Error).message}`);
    }
    this.verifyStandardClaims(claims);
    return { user: this.mapUser(claims) };
  }

  private verifyStandardClaims(c: Record<string, unknown>): void {
    const url = this.config.issuer.url;
    if (c.iss !== url)
      throw new Error(
        `oidc: verify token: oidc: id token issued by a different provider, expected ${JSON.stringify(url)} got ${JSON.stringify(c.iss)}`,
      );
    const auds =
      typeof c.aud === 'string'
        ? [c.aud]
        : Array.isArray(c.aud)
          ? c.aud.filter((a): a is string => typeof a === 'string')
          : [];
    const want = this.config.issuer.audiences;
    if (!want.some((a) => auds.includes(a))) {
      throw new Error(
        want.length === 1
          ? `oidc: verify token: oidc: expected audience ${JSON.stringify(want[0])} got ${goQuoteList(auds)}`
          : `oidc: verify token: oidc: expected audience in ${goQuoteList(want)} got ${goQuoteList(auds)}`,
      );
    }
    const now = this.opts.now() / 1000;
    if (typeof c.exp !== 'number') throw new Error('oidc: verify token: oidc: token has no expiry (exp) claim');
    if (now > c.exp + this.opts.clockSkew)
      throw new Error(`oidc: verify token: oidc: token is expired (Token Expiry: ${goTime(c.exp)})`);
    if (typeof c.nbf === 'number' && now + 60 < c.nbf) {
      throw new Error(
        `oidc: verify token: oidc: current time ${goTime(Math.floor(now))} before the nbf (not before) time: ${goTime(c.nbf)}`,
      );
    }
    for (const rule of this.config.claimValidationRules ?? []) {
      const v = c[rule.claim];
      if (v === undefined) throw new Error(`oidc: required claim ${rule.claim} not present in ID token`);
      if (typeof v !== 'string')
        throw new Error(
          `oidc: parse claim ${rule.claim}: json: cannot unmarshal ${jsonKind(v)} into Go value of type string`,
        );
      if (v !== rule.requiredValue)
        throw new Error(
          `oidc: required claim ${rule.claim} value does not match. Got = ${v}, want = ${rule.requiredValue}`,
        );
    }
  }

  private mapUser(c: Record<string, unknown>): UserInfo {
    const m = this.config.claimMappings;
    const claim = m.username.claim!;
    const raw = c[claim];
    if (raw === undefined) throw new Error(`oidc: parse username claims ${JSON.stringify(claim)}: claim not present`);
    if (typeof raw !== 'string')
      throw new Error(
        `oidc: parse username claims ${JSON.stringify(claim)}: json: cannot unmarshal ${jsonKind(raw)} into Go value of type string`,
      );
    if (claim === 'email' && c.email_verified !== undefined) {
      if (typeof c.email_verified !== 'boolean')
        throw new Error(
          `oidc: parse 'email_verified' claim: json: cannot unmarshal ${jsonKind(c.email_verified)} into Go value of type bool`,
        );
      if (!c.email_verified) throw new Error('oidc: email not verified');
    }
    const user: UserInfo = { name: (m.username.prefix ?? '') + raw };
    if (m.groups?.claim) {
      const g = c[m.groups.claim];
      let groups: string[] = [];
      if (typeof g === 'string') groups = [g];
      else if (Array.isArray(g) && g.every((x) => typeof x === 'string')) groups = g as string[];
      else if (g !== undefined && g !== null)
        throw new Error(
          `oidc: parse groups claim ${JSON.stringify(m.groups.claim)}: json: cannot unmarshal ${jsonKind(g)} into Go value of type string`,
        );
      const prefix = m.groups.prefix ?? '';
      user.groups = groups.map((x) => prefix + x);
    }
    if (m.uid?.claim) {
      const u = c[m.uid.claim];
      if (u !== undefined) {
        if (typeof u !== 'string')
          throw new Error(
            `oidc: parse uid claim ${JSON.stringify(m.uid.claim)}: json: cannot unmarshal ${jsonKind(u)} into Go value of type string`,
          );
        user.uid = u;
      }
    }
    return user;
  }
}

function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  return typeof v === 'object' ? 'object' : typeof v;
}

/** go-oidc's wording for what jose reports. */
function describeJoseError(err: unknown): string {
  if (err instanceof errors.JWKSTimeout)
    return 'failed to verify signature: fetching keys oidc: get keys failed: request timed out';
  if (err instanceof errors.JWKSNoMatchingKey || err instanceof errors.JWSSignatureVerificationFailed) {
    return 'failed to verify signature: failed to verify id token signature';
  }
  if (err instanceof errors.JWKSMultipleMatchingKeys)
    return 'failed to verify signature: multiple keys match the token';
  if (err instanceof errors.JWSInvalid || err instanceof errors.JWTInvalid)
    return `oidc: malformed jwt: ${(err as Error).message}`;
  if (err instanceof errors.JOSEAlgNotAllowed)
    return `oidc: id token signed with unsupported algorithm: ${(err as Error).message}`;
  if (err instanceof errors.JOSEError)
    return `failed to verify signature: fetching keys oidc: get keys failed: ${(err as Error).message}`;
  return `failed to verify signature: ${(err as Error).message ?? String(err)}`;
}
