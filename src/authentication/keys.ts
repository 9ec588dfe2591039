// PEM keys for service-account tokens (keyutil.ParsePublicKeysPEM / ParsePrivateKeyPEM) on
// WebCrypto: PUBLIC KEY, RSA PUBLIC KEY, CERTIFICATE, PRIVATE KEY, RSA PRIVATE KEY,
// EC PRIVATE KEY. RSA keys sign/verify RS256; EC keys ES256/384/512 by curve, as upstream.
// The key id is upstream's: base64url(sha256(PKIX DER of the public key)).

import * as x509 from '../util/x509.ts';
import { decodeBase64, encodeBase64URL } from '../util/base64.ts';
import {
  Tag,
  children,
  decodeOID,
  encodeBitString,
  encodeInt,
  encodeOID,
  encodeOctetString,
  encodeSequence,
  expectTag,
  parseDER,
} from '../util/der.ts';

export interface PublicKeyEntry {
  key: CryptoKey;
  alg: 'RS256' | 'ES256' | 'ES384' | 'ES512';
  kid: string;
  /** The public JWK (kty, n/e or crv/x/y). */
  jwk: JsonWebKey;
}

export interface SigningKey extends PublicKeyEntry {
  privateKey: CryptoKey;
}

const oids = {
  rsa: '1.2.840.113549.1.1.1',
  ec: '1.2.840.10045.2.1',
  p256: '1.2.840.10045.3.1.7',
  p384: '1.3.132.0.34',
  p521: '1.3.132.0.35',
};
const curves: Record<string, { crv: string; alg: PublicKeyEntry['alg'] }> = {
  [oids.p256]: { crv: 'P-256', alg: 'ES256' },
  [oids.p384]: { crv: 'P-384', alg: 'ES384' },
  [oids.p521]: { crv: 'P-521', alg: 'ES512' },
};

const NULL = new Uint8Array([0x05, 0x00]);
const rsaAlgId = () => encodeSequence(encodeOID(oids.rsa), NULL);

/** PKCS#1 RSAPublicKey → SPKI. */
function pkcs1PublicToSPKI(pkcs1: Uint8Array): Uint8Array {
  return encodeSequence(rsaAlgId(), encodeBitString(pkcs1));
}

/** PKCS#1 RSAPrivateKey → PKCS#8. */
function pkcs1PrivateToPKCS8(pkcs1: Uint8Array): Uint8Array {
  return encodeSequence(encodeInt(0), rsaAlgId(), encodeOctetString(pkcs1));
}

/** SEC1 ECPrivateKey → PKCS#8 (the curve moves into the AlgorithmIdentifier). */
function sec1ToPKCS8(sec1: Uint8Array): Uint8Array {
  const params = children(parseDER(sec1, Tag.SEQUENCE)).find((t) => t.tag === 0xa0);
  if (!params) throw new Error('EC PRIVATE KEY without curve parameters');
  const curveOID = decodeOID(parseDER(params.value));
  return encodeSequence(encodeInt(0), encodeSequence(encodeOID(oids.ec), encodeOID(curveOID)), encodeOctetString(sec1));
}

/** The key algorithm (and curve) of an SPKI or PKCS#8 AlgorithmIdentifier. */
function keyAlgorithm(
  b: Uint8Array,
  pkcs8: boolean,
): { kind: 'rsa' } | { kind: 'ec'; crv: string; alg: PublicKeyEntry['alg'] } {
  const top = children(parseDER(b, Tag.SEQUENCE));
  const [oidT, paramT] = children(expectTag(top[pkcs8 ? 1 : 0], Tag.SEQUENCE, 'AlgorithmIdentifier'));
  const oid = decodeOID(oidT!);
  if (oid === oids.rsa) return { kind: 'rsa' };
  if (oid === oids.ec && paramT && paramT.tag === Tag.OID) {
    const c = curves[decodeOID(paramT)];
    if (c) return { kind: 'ec', ...c };
  }
  throw new Error(`unsupported key type (algorithm ${oid})`);
}

function webCryptoParams(a: ReturnType<typeof keyAlgorithm>): RsaHashedImportParams | EcKeyImportParams {
  return a.kind === 'rsa' ? { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' } : { name: 'ECDSA', namedCurve: a.crv };
}

/** keyIDFromPublicKey. */
export async function keyIDFromSPKI(spki: ArrayBuffer | Uint8Array): Promise<string> {
  return encodeBase64URL(new Uint8Array(await crypto.subtle.digest('SHA-256', spki as BufferSource)));
}

async function publicEntry(spki: Uint8Array): Promise<PublicKeyEntry> {
  const a = keyAlgorithm(spki, false);
  const key = await crypto.subtle.importKey('spki', spki as BufferSource, webCryptoParams(a), true, ['verify']);
  const jwk = await crypto.subtle.exportKey('jwk', key);
  delete jwk.key_ops;
  delete jwk.ext;
  return { key, alg: a.kind === 'rsa' ? 'RS256' : a.alg, kid: await keyIDFromSPKI(spki), jwk };
}

interface PemBlock {
  type: string;
  der: Uint8Array;
}

export function pemBlocks(pem: string): PemBlock[] {
  const out: PemBlock[] = [];
  const re = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/g;
  for (let m = re.exec(pem); m; m = re.exec(pem)) {
    out.push({ type: m[1]!, der: decodeBase64(m[2]!.replace(/[^A-Za-z0-9+/=]/g, '')) });
  }
  return out;
}

async function privateFromPKCS8(pkcs8: Uint8Array): Promise<SigningKey> {
  const a = keyAlgorithm(pkcs8, true);
  const params = webCryptoParams(a);
  const privateKey = await crypto.subtle.importKey('pkcs8', pkcs8 as BufferSource, params, true, ['sign']);
  const jwk = await crypto.subtle.exportKey('jwk', privateKey);
  const pubJwk: JsonWebKey =
    a.kind === 'rsa' ? { kty: 'RSA', n: jwk.n, e: jwk.e } : { kty: 'EC', crv: jwk.crv, x: jwk.x, y: jwk.y };
  const pub = await crypto.subtle.importKey('jwk', pubJwk, params, true, ['verify']);
  const spki = new Uint8Array(await crypto.subtle.exportKey('spki', pub));
  return { ...(await publicEntry(spki)), privateKey };
}

/** ParsePublicKeysPEM: every public key in a PEM file (private keys and certificates yield theirs). */
export async function parsePublicKeysPEM(pem: string): Promise<PublicKeyEntry[]> {
  const keys: PublicKeyEntry[] = [];
  for (const b of pemBlocks(pem)) {
    switch (b.type) {
      case 'PUBLIC KEY':
        keys.push(await publicEntry(b.der));
        break;
      case 'RSA PUBLIC KEY':
        keys.push(await publicEntry(pkcs1PublicToSPKI(b.der)));
        break;
      case 'CERTIFICATE':
        keys.push(await publicEntry(new x509.X509Certificate(b.der).publicKey.rawData));
        break;
      case 'PRIVATE KEY':
      case 'RSA PRIVATE KEY':
      case 'EC PRIVATE KEY': {
        const { privateKey: _, ...pub } = await parsePrivateKeyBlock(b);
        keys.push(pub);
        break;
      }
    }
  }
  if (!keys.length) throw new Error('data does not contain any valid RSA or ECDSA public keys');
  return keys;
}

function parsePrivateKeyBlock(b: PemBlock): Promise<SigningKey> {
  if (b.type === 'PRIVATE KEY') return privateFromPKCS8(b.der);
  if (b.type === 'RSA PRIVATE KEY') return privateFromPKCS8(pkcs1PrivateToPKCS8(b.der));
  return privateFromPKCS8(sec1ToPKCS8(b.der));
}

/** ParsePrivateKeyPEM: the first private key of a PEM file, with its public half. */
export async function parsePrivateKeyPEM(pem: string): Promise<SigningKey> {
  for (const b of pemBlocks(pem)) {
    if (b.type === 'PRIVATE KEY' || b.type === 'RSA PRIVATE KEY' || b.type === 'EC PRIVATE KEY')
      return parsePrivateKeyBlock(b);
  }
  throw new Error('data does not contain a valid RSA or ECDSA private key');
}
