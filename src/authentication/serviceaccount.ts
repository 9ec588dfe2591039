// Service-account tokens (kubernetes pkg/serviceaccount): the JWT authenticator for
// --service-account-issuer / --service-account-key-file, token minting with the
// --service-account-signing-key-file key, and the OpenID discovery documents.
// With --service-account-lookup (default true) the validator also checks, through a
// ServiceAccountTokenGetter, that the account and the token's bound Secret/Pod still exist with
// the UIDs the token names (pkg/serviceaccount/claims.go).

import { compactVerify, decodeProtectedHeader, SignJWT } from 'jose';
import type { UserInfo } from '../endpoints/request/context.ts';
import { intersectAudiences, type AuthenticatorResponse, type TokenAuthenticator } from './authenticator.ts';
import { parsePrivateKeyPEM, type PublicKeyEntry, type SigningKey } from './keys.ts';
import {
  allServiceAccountsGroup,
  credentialIDKey,
  serviceAccountGroupPrefix,
  serviceAccountUsernamePrefix,
} from './user.ts';
import { decodeBase64URL } from '../util/base64.ts';

export const podNameKey = 'authentication.kubernetes.io/pod-name';
export const podUIDKey = 'authentication.kubernetes.io/pod-uid';
export const nodeNameKey = 'authentication.kubernetes.io/node-name';
export const nodeUIDKey = 'authentication.kubernetes.io/node-uid';

/** Algorithms service-account tokens may use (what the signer produces). */
export const serviceAccountAlgorithms = ['RS256', 'ES256', 'ES384', 'ES512'];
/** go-jose's DefaultLeeway. */
const leewaySeconds = 60;
/** Tokens larger than this are not parsed (they cannot be ours). */
const maxTokenBytes = 256 * 1024;

export function makeUsername(namespace: string, name: string): string {
  return serviceAccountUsernamePrefix + namespace + ':' + name;
}

export function makeGroupNames(namespace: string): string[] {
  return [allServiceAccountsGroup, serviceAccountGroupPrefix + namespace];
}

interface Ref {
  name?: string;
  uid?: string;
}

/** The `kubernetes.io` private claim of bound tokens. */
export interface KubernetesClaims {
  namespace?: string;
  serviceaccount?: Ref;
  pod?: Ref;
  secret?: Ref;
  node?: Ref;
  warnafter?: number;
}

const decoder = new TextDecoder();

function b64urlJSON(part: string): unknown {
  if (!/^[A-Za-z0-9_-]*$/.test(part)) return undefined;
  try {
    return JSON.parse(decoder.decode(decodeBase64URL(part)));
  } catch {
    return undefined;
  }
}

/** The unverified `iss` of a compact JWT, or undefined when it is not one. */
export function unverifiedIssuer(token: string): string | undefined {
  if (token.length > maxTokenBytes) return undefined;
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  const payload = b64urlJSON(parts[1]!);
  if (!payload || typeof payload !== 'object') return undefined;
  const iss = (payload as { iss?: unknown }).iss;
  return typeof iss === 'string' ? iss : undefined;
}

function audienceList(aud: unknown): string[] {
  if (typeof aud === 'string') return [aud];
  if (Array.isArray(aud)) return aud.filter((a): a is string => typeof a === 'string');
  return [];
}

/** serviceaccount.ServiceAccountTokenGetter: the objects a token may name (undefined: not found). */
export interface ServiceAccountTokenGetter {
  getServiceAccount(namespace: string, name: string): Promise<{ uid: string; deletionTimestamp?: string } | undefined>;
  getSecret(namespace: string, name: string): Promise<{ uid: string } | undefined>;
  getPod(namespace: string, name: string): Promise<{ uid: string } | undefined>;
}

export interface ServiceAccountAuthenticatorOptions {
  /** Accepted `iss` values (`--service-account-issuer`, all occurrences). */
  issuers: string[];
  /** Verification keys (`--service-account-key-file`). */
  keys: PublicKeyEntry[];
  /** The API audiences (`--api-audiences`), the implicit audiences of the authenticator. */
  implicitAudiences: string[];
  /** Clock in ms (tests). */
  now?: () => number;
  /**
   * `--service-account-lookup`: the getter to check objects with, read at each authentication
   * (storage is set up after authentication); undefined (or returning undefined): no lookup.
   */
  lookup?: () => ServiceAccountTokenGetter | undefined;
}

/** JWTTokenAuthenticator with the bound-token validator. */
export class ServiceAccountTokenAuthenticator implements TokenAuthenticator {
  private readonly issuers: Set<string>;
  private readonly keys: PublicKeyEntry[];
  private readonly implicit: string[];
  private readonly now: () => number;
  private readonly lookup?: () => ServiceAccountTokenGetter | undefined;
  constructor(o: ServiceAccountAuthenticatorOptions) {
    this.lookup = o.lookup;
    this.issuers = new Set(o.issuers);
    this.keys = o.keys;
    this.implicit = o.implicitAudiences;
    this.now = o.now ?? Date.now;
  }

  async authenticateToken(token: string, requested?: readonly string[]): Promise<AuthenticatorResponse | null> {
    const iss = unverifiedIssuer(token);
    if (iss === undefined || !this.issuers.has(iss)) return null;
    let alg: string | undefined;
    let kid: string | undefined;
    try {
      ({ alg, kid } = decodeProtectedHeader(token));
    } catch {
      return null; // not a JWS: jwt.ParseSigned fails → no opinion
    }
    if (!alg || !serviceAccountAlgorithms.includes(alg)) return null;
    let candidates = this.keys.filter((k) => k.alg === alg);
    if (kid) {
      const byKid = candidates.filter((k) => k.kid === kid);
      if (byKid.length) candidates = byKid;
    }
    let payloadBytes: Uint8Array | undefined;
    const errors: string[] = [];
    for (const k of candidates) {
      try {
        payloadBytes = (await compactVerify(token, k.key, { algorithms: [k.alg] })).payload;
        break;
      } catch {
        errors.push('go-jose/go-jose: error in cryptographic primitive');
      }
    }
    if (!payloadBytes) {
      throw new Error(
        errors.length
          ? errors.length === 1
            ? errors[0]!
            : `[${errors.join(', ')}]`
          : 'no keys could verify the token',
      );
    }
    const claims = JSON.parse(decoder.decode(payloadBytes)) as Record<string, unknown>;

    let tokenAuds = audienceList(claims.aud);
    if (tokenAuds.length === 0) tokenAuds = this.implicit;
    const target = requested ?? this.implicit;
    const auds = intersectAudiences(tokenAuds, target);
    if (auds.length === 0 && this.implicit.length !== 0) {
      throw new Error(
        `token audiences ${goQuoteList(tokenAuds)} is invalid for the target audiences ${goQuoteList(target)}`,
      );
    }

    const user = this.validate(claims);
    const getter = this.lookup?.();
    if (getter) await checkObjects(getter, claims['kubernetes.io'] as KubernetesClaims);
    return { user, audiences: auds };
  }

  private validate(c: Record<string, unknown>): UserInfo {
    const now = Math.floor(this.now() / 1000);
    const num = (v: unknown) => (typeof v === 'number' ? v : undefined);
    const exp = num(c.exp);
    const nbf = num(c.nbf);
    const iat = num(c.iat);
    if (exp !== undefined && now > exp + leewaySeconds) throw new Error('service account token has expired');
    if (nbf !== undefined && now < nbf - leewaySeconds) throw new Error('service account token is not valid yet');
    if (iat !== undefined && now < iat - leewaySeconds)
      throw new Error('service account token is issued in the future');
    const k = c['kubernetes.io'] as KubernetesClaims | undefined;
    if (!k || typeof k !== 'object')
      throw new Error('service account token claims could not be validated due to unexpected private claim');
    const ns = k.namespace;
    const sa = k.serviceaccount;
    if (!ns || !sa?.name)
      throw new Error('service account token claims could not be validated due to unexpected private claim');
    if (typeof c.sub === 'string' && c.sub !== makeUsername(ns, sa.name)) {
      throw new Error(
        'service account token claims could not be validated: subject does not match the service account',
      );
    }
    const user: UserInfo = { name: makeUsername(ns, sa.name), uid: sa.uid ?? '', groups: makeGroupNames(ns) };
    const extra: Record<string, string[]> = {};
    if (k.pod?.name && k.pod.uid) {
      extra[podNameKey] = [k.pod.name];
      extra[podUIDKey] = [k.pod.uid];
    }
    if (typeof c.jti === 'string' && c.jti) extra[credentialIDKey] = ['JTI=' + c.jti];
    if (k.node?.name) {
      extra[nodeNameKey] = [k.node.name];
      if (k.node.uid) extra[nodeUIDKey] = [k.node.uid];
    }
    if (Object.keys(extra).length) user.extra = extra;
    return user;
  }
}

/** The lookups of claims.go Validate, with its error texts. */
async function checkObjects(getter: ServiceAccountTokenGetter, k: KubernetesClaims): Promise<void> {
  const ns = k.namespace!;
  const sa = k.serviceaccount!;
  const account = await getter.getServiceAccount(ns, sa.name!);
  if (!account) throw new Error(`serviceaccounts ${JSON.stringify(sa.name)} not found`);
  if (account.uid !== (sa.uid ?? ''))
    throw new Error(`service account UID (${account.uid}) does not match claim (${sa.uid ?? ''})`);
  if (account.deletionTimestamp) throw new Error(`service account ${ns}/${sa.name} has been deleted`);
  if (k.secret?.name) {
    const secret = await getter.getSecret(ns, k.secret.name);
    if (!secret) throw new Error('service account token has been invalidated');
    if (secret.uid !== (k.secret.uid ?? ''))
      throw new Error(
        `secret UID (${secret.uid}) does not match service account secret ref claim (${k.secret.uid ?? ''})`,
      );
  }
  if (k.pod?.name) {
    const pod = await getter.getPod(ns, k.pod.name);
    if (!pod) throw new Error('service account token has been invalidated');
    if (pod.uid !== (k.pod.uid ?? ''))
      throw new Error(`pod UID (${pod.uid}) does not match service account pod ref claim (${k.pod.uid ?? ''})`);
  }
}

function goQuoteList(xs: readonly string[]): string {
  return `[${xs.map((x) => JSON.stringify(x)).join(' ')}]`;
}

export interface MintServiceAccountTokenOptions {
  /** PEM private key (`--service-account-signing-key-file` content) or a parsed key. */
  signingKey: string | SigningKey;
  /** `iss` (the first `--service-account-issuer`). */
  issuer: string;
  namespace: string;
  name: string;
  uid?: string;
  /** `aud`; defaults to [issuer] (kube-apiserver's default API audience). */
  audiences?: string[];
  /** Lifetime in seconds (default 3600). */
  expirationSeconds?: number;
  pod?: Ref;
  secret?: Ref;
  node?: Ref;
  /** Clock in ms (tests). */
  now?: number;
  /** Override the random JTI. */
  jti?: string;
}

/**
 * Mints a bound service-account token like the TokenRequest API: RS256/ES* with the key's
 * kid, claims `aud exp iat iss jti kubernetes.io nbf sub`. For tests, kubeconfigs and embedders.
 */
export async function mintServiceAccountToken(o: MintServiceAccountTokenOptions): Promise<string> {
  const key = typeof o.signingKey === 'string' ? await parsePrivateKeyPEM(o.signingKey) : o.signingKey;
  const now = Math.floor((o.now ?? Date.now()) / 1000);
  const k: KubernetesClaims = { namespace: o.namespace };
  if (o.node) k.node = o.node;
  if (o.pod) k.pod = o.pod;
  if (o.secret) k.secret = o.secret;
  k.serviceaccount = { name: o.name, uid: o.uid ?? '' };
  const claims = {
    aud: o.audiences ?? [o.issuer],
    exp: now + (o.expirationSeconds ?? 3600),
    iat: now,
    iss: o.issuer,
    jti: o.jti ?? crypto.randomUUID(),
    'kubernetes.io': k,
    nbf: now,
    sub: makeUsername(o.namespace, o.name),
  };
  return new SignJWT(claims).setProtectedHeader({ alg: key.alg, kid: key.kid }).sign(key.privateKey);
}
