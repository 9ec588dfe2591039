// X.509 client-certificate authentication (k8s.io/apiserver/pkg/authentication/request/x509):
// verifies the chain the Transport hands over (leaf first, DER) against a CA bundle, like Go's
// Certificate.Verify with KeyUsages=[ClientAuth] (crypto/x509/verify.go): no unhandled critical
// extension on the leaf, validity of every certificate, issuer matched by raw name bytes, CA and
// path-length constraints on intermediates, signatures, extended key usage along the chain.

import * as x509 from '../util/x509.ts';
import type { RequestContext, UserInfo } from '../endpoints/request/context.ts';
import type { AuthenticatorResponse, RequestAuthenticator } from './authenticator.ts';
import { credentialIDKey } from './user.ts';
import { TTLCache } from '../util/cache.ts';
import { encodeBase64 } from '../util/base64.ts';

const clientAuthOID = '1.3.6.1.5.5.7.3.2';
const anyEKUOID = '2.5.29.37.0';
const uidOID = '0.9.2342.19200300.100.1.1';
const maxChainDepth = 10;

/** A parsed CA bundle (x509.CertPool). */
export class CertPool {
  readonly certs: x509.X509Certificate[];
  private readonly ders: Set<string>;
  constructor(certs: x509.X509Certificate[]) {
    this.certs = certs;
    this.ders = new Set(certs.map((c) => encodeBase64(new Uint8Array(c.rawData))));
  }
  /** Parses every CERTIFICATE block of a PEM bundle; throws when there is none or one is bad. */
  static fromPEM(pem: string, source = 'CA bundle'): CertPool {
    const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
    if (!blocks.length) throw new Error(`data does not contain any valid RSA or ECDSA certificates`);
    try {
      return new CertPool(blocks.map((b) => new x509.X509Certificate(b)));
    } catch (err) {
      throw new Error(`${source}: ${(err as Error).message}`);
    }
  }
  has(cert: x509.X509Certificate): boolean {
    return this.ders.has(encodeBase64(new Uint8Array(cert.rawData)));
  }
}

export class CertificateInvalidError extends Error {}

/** Go's time.Time.Format(time.RFC3339) in UTC. */
function rfc3339(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function checkValidity(c: x509.X509Certificate, now: Date): void {
  if (now < c.notBefore) {
    throw new CertificateInvalidError(
      `x509: certificate has expired or is not yet valid: current time ${rfc3339(now)} is before ${rfc3339(c.notBefore)}`,
    );
  }
  if (now > c.notAfter) {
    throw new CertificateInvalidError(
      `x509: certificate has expired or is not yet valid: current time ${rfc3339(now)} is after ${rfc3339(c.notAfter)}`,
    );
  }
}

function ekuAllows(c: x509.X509Certificate): boolean {
  const ext = c.getExtension(x509.ExtendedKeyUsageExtension);
  if (!ext) return true;
  const usages = ext.usages.map(String);
  return usages.includes(clientAuthOID) || usages.includes(anyEKUOID);
}

function isCA(c: x509.X509Certificate): boolean {
  const bc = c.getExtension(x509.BasicConstraintsExtension);
  return !!bc && bc.ca;
}

/** Extensions crypto/x509 understands; another critical one on the leaf fails verification. */
const handledCritical = new Set([
  '2.5.29.15', // key usage
  '2.5.29.17', // subject alternative name
  '2.5.29.19', // basic constraints
  '2.5.29.30', // name constraints
  '2.5.29.32', // certificate policies
  '2.5.29.33', // policy mappings
  '2.5.29.36', // policy constraints
  '2.5.29.37', // extended key usage
  '2.5.29.54', // inhibit anyPolicy
]);

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** MaxPathLen of a CA (undefined: unlimited). */
function maxPathLen(c: x509.X509Certificate): number | undefined {
  return c.getExtension(x509.BasicConstraintsExtension)?.pathLength;
}

async function signedBy(child: x509.X509Certificate, parent: x509.X509Certificate): Promise<boolean> {
  // Go's CertPool finds candidate parents by the raw issuer name (findPotentialParents).
  if (!sameBytes(child.issuerName.rawData, parent.subjectName.rawData)) return false;
  try {
    return await child.verify({ publicKey: parent, signatureOnly: true });
  } catch {
    return false;
  }
}

/**
 * Builds and checks a chain from `leaf` to a root in `roots` through `intermediates`.
 * Returns the chain (leaf first) or throws Go's x509 error text.
 */
export async function verifyClientCertificate(
  leaf: x509.X509Certificate,
  intermediates: x509.X509Certificate[],
  roots: CertPool,
  now = new Date(),
): Promise<x509.X509Certificate[]> {
  if (leaf.extensions.some((e) => e.critical && !handledCritical.has(e.type)))
    throw new CertificateInvalidError('x509: unhandled critical extension');
  checkValidity(leaf, now);
  let chain: x509.X509Certificate[] | undefined;
  if (roots.has(leaf)) chain = [leaf];
  else chain = await build([leaf], intermediates, roots, now);
  if (!chain) throw new CertificateInvalidError('x509: certificate signed by unknown authority');
  if (!chain.every(ekuAllows))
    throw new CertificateInvalidError('x509: certificate specifies an incompatible key usage');
  return chain;
}

async function build(
  chain: x509.X509Certificate[],
  intermediates: x509.X509Certificate[],
  roots: CertPool,
  now: Date,
): Promise<x509.X509Certificate[] | undefined> {
  const current = chain[chain.length - 1]!;
  // Intermediates below a CA in the chain: chain.length − 1 (Go's TooManyIntermediates check).
  const tooDeep = (ca: x509.X509Certificate) => {
    const max = maxPathLen(ca);
    return max !== undefined && chain.length - 1 > max;
  };
  for (const root of roots.certs) {
    if (await signedBy(current, root)) {
      if (tooDeep(root)) continue;
      try {
        checkValidity(root, now);
      } catch {
        continue;
      }
      return [...chain, root];
    }
  }
  if (chain.length >= maxChainDepth) return undefined;
  for (const inter of intermediates) {
    if (chain.includes(inter) || !isCA(inter) || tooDeep(inter)) continue;
    if (now < inter.notBefore || now > inter.notAfter) continue;
    if (!(await signedBy(current, inter))) continue;
    const found = await build([...chain, inter], intermediates, roots, now);
    if (found) return found;
  }
  return undefined;
}

function hexColons(hex: string | undefined): string {
  return hex ? (hex.toUpperCase().match(/../g) ?? []).join(':') : '';
}

/** `SN=<decimal>, SKID=<AA:BB>, AKID=<..>` as upstream's certificateIdentifier. */
export function certificateIdentifier(c: x509.X509Certificate): string {
  const skid = c.getExtension(x509.SubjectKeyIdentifierExtension)?.keyId;
  const akid = c.getExtension(x509.AuthorityKeyIdentifierExtension)?.keyId;
  return `SN=${c.serial.toString(10)}, SKID=${hexColons(skid)}, AKID=${hexColons(akid)}`;
}

async function sha256Hex(data: BufferSource): Promise<string> {
  const d = new Uint8Array(await crypto.subtle.digest('SHA-256', data));
  let s = '';
  for (const b of d) s += b.toString(16).padStart(2, '0');
  return s;
}

/** Go's pkix.Name.CommonName: the last CN attribute. */
export function commonName(c: x509.X509Certificate): string {
  const cns = c.subjectName.getField('CN');
  return cns.length ? cns[cns.length - 1]! : '';
}

/** CommonNameUserConversion: CN → name, O → groups, UID attribute → uid, fingerprint → extra. */
export async function commonNameUser(leaf: x509.X509Certificate): Promise<UserInfo | null> {
  const cn = commonName(leaf);
  if (!cn) return null;
  const uids = leaf.subjectName.getField(uidOID);
  if (uids.length > 1) throw new Error('expected 1 UID, but found multiple');
  if (uids.length === 1 && uids[0] === '') throw new Error('UID cannot be an empty string');
  const user: UserInfo = {
    name: cn,
    groups: leaf.subjectName.getField('O'),
    extra: { [credentialIDKey]: ['X509SHA256=' + (await sha256Hex(leaf.rawData))] },
  };
  if (uids.length === 1) user.uid = uids[0]!;
  return user;
}

/** Provides the CA pool (it may be reloaded); undefined means "no CA configured" (no opinion). */
export type CAProvider = () => CertPool | undefined;

export interface X509AuthenticatorOptions {
  /** Cache successful verifications for this long (ms; capped by the chain's expiry). Default 60s, 0 disables. */
  cacheTTL?: number;
  maxCacheEntries?: number;
  now?: () => Date;
}

interface CacheEntry {
  pool: CertPool;
  resp: AuthenticatorResponse;
}

function parseChain(ders: Uint8Array[]): x509.X509Certificate[] {
  try {
    return ders.map((d) => new x509.X509Certificate(d as Uint8Array<ArrayBuffer>));
  } catch (err) {
    throw new Error(`x509: malformed certificate: ${(err as Error).message}`);
  }
}

// The Node listener hands every request of a connection the same chain array (never changed once
// handed over): its cache key is computed once per connection, not per request (≈ 20 µs for one
// 400-byte certificate).
const chainKeys = new WeakMap<readonly Uint8Array[], string>();
function chainKey(ders: readonly Uint8Array[]): string {
  let key = chainKeys.get(ders);
  if (key === undefined) {
    key = ders.map((d) => encodeBase64(d)).join(',');
    chainKeys.set(ders, key);
  }
  return key;
}

/** x509.New(verifyOptions, CommonNameUserConversion). */
export class X509Authenticator implements RequestAuthenticator {
  private readonly ca: CAProvider;
  private readonly opts: Required<X509AuthenticatorOptions>;
  private readonly cache: TTLCache<string, CacheEntry>;
  constructor(ca: CAProvider | CertPool, opts: X509AuthenticatorOptions = {}) {
    this.ca = ca instanceof CertPool ? () => ca : ca;
    this.opts = { cacheTTL: 60_000, maxCacheEntries: 1024, now: () => new Date(), ...opts };
    this.cache = new TTLCache({ maxEntries: this.opts.maxCacheEntries, now: () => this.opts.now().getTime() });
  }
  async authenticateRequest(ctx: RequestContext): Promise<AuthenticatorResponse | null> {
    const ders = ctx.transport.peerCertificates;
    if (!ders?.length) return null;
    const pool = this.ca();
    if (!pool) return null;
    const now = this.opts.now();
    const key = this.opts.cacheTTL > 0 ? chainKey(ders) : '';
    if (key) {
      const hit = this.cache.get(key);
      if (hit?.pool === pool) return hit.resp;
    }
    const [leaf, ...rest] = parseChain(ders);
    let chain: x509.X509Certificate[];
    try {
      chain = await verifyClientCertificate(leaf!, rest, pool, now);
    } catch (err) {
      throw new Error(`verifying certificate ${certificateIdentifier(leaf!)} failed: ${(err as Error).message}`);
    }
    const user = await commonNameUser(chain[0]!);
    if (!user) return null;
    const resp: AuthenticatorResponse = { user };
    if (key) {
      const notAfter = Math.min(...chain.map((c) => c.notAfter.getTime()));
      this.cache.set(key, { pool, resp }, Math.min(this.opts.cacheTTL, notAfter - now.getTime()));
    }
    return resp;
  }
}

/**
 * x509.NewVerifier: the front-proxy guard. The client certificate must verify against `ca`
 * and, when `allowedNames` is non-empty, carry one of those CNs; then `inner` runs.
 */
export class X509Verifier implements RequestAuthenticator {
  private readonly ca: CAProvider;
  private readonly allowedNames: () => readonly string[];
  private readonly inner: RequestAuthenticator;
  private readonly now: () => Date;
  constructor(
    ca: CAProvider | CertPool,
    allowedNames: readonly string[] | (() => readonly string[]),
    inner: RequestAuthenticator,
    now = () => new Date(),
  ) {
    this.ca = ca instanceof CertPool ? () => ca : ca;
    this.allowedNames = typeof allowedNames === 'function' ? allowedNames : () => allowedNames;
    this.inner = inner;
    this.now = now;
  }
  async authenticateRequest(ctx: RequestContext): Promise<AuthenticatorResponse | null> {
    const ders = ctx.transport.peerCertificates;
    if (!ders?.length) return null;
    const pool = this.ca();
    if (!pool) return null;
    const [leaf, ...rest] = parseChain(ders);
    await verifyClientCertificate(leaf!, rest, pool, this.now());
    const allowed = this.allowedNames();
    if (allowed.length) {
      const cn = commonName(leaf!);
      if (!allowed.includes(cn)) throw new Error(`x509: subject with cn=${cn} is not in the allowed list`);
    }
    return this.inner.authenticateRequest(ctx);
  }
}
