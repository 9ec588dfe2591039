// PEM blocks and private-key normalisation to PKCS#8 so that WebCrypto can import PKCS#1
// (`RSA PRIVATE KEY`) and SEC1 (`EC PRIVATE KEY`) keys. Portable.

import { base64Decode, base64Encode } from '../../util/base64.ts';
import { Tag, children, decodeOID, encodeOID, encodeTLV, parseDER } from '../../util/der.ts';

export interface PemBlock {
  type: string;
  bytes: Uint8Array;
}

const pemRe = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n([\s\S]*?)-----END \1-----/g;

/** All PEM blocks in `text`, in order (Go pem.Decode in a loop; garbage between blocks is skipped). */
export function decodePEM(text: string): PemBlock[] {
  const out: PemBlock[] = [];
  for (const m of text.matchAll(pemRe)) {
    // Headers (`Proc-Type: …`) are not supported: encrypted keys are not accepted upstream either.
    const body = m[2]!.replace(/\s+/g, '');
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(body)) continue;
    try {
      out.push({ type: m[1]!, bytes: base64Decode(body) });
    } catch {
      // not base64: not a block, as Go's decoder skips it
    }
  }
  return out;
}

export function encodePEM(type: string, bytes: Uint8Array): string {
  const b64 = base64Encode(bytes);
  let body = '';
  for (let i = 0; i < b64.length; i += 64) body += b64.slice(i, i + 64) + '\n';
  return `-----BEGIN ${type}-----\n${body}-----END ${type}-----\n`;
}

export { base64Decode, base64Encode };

// --- key containers (DER: src/util/der.ts) ---

const SEQ = Tag.SEQUENCE;
const INT = Tag.INTEGER;
const OCTET = Tag.OCTET_STRING;
const NULL = new Uint8Array([0x05, 0x00]);

export const oidRSA = '1.2.840.113549.1.1.1';
export const oidEC = '1.2.840.10045.2.1';
export const oidEd25519 = '1.3.101.112';
export const curveByOID: Record<string, string> = {
  '1.2.840.10045.3.1.7': 'P-256',
  '1.3.132.0.34': 'P-384',
  '1.3.132.0.35': 'P-521',
};

/** A private key as PKCS#8 plus what WebCrypto needs to import it. */
export interface PrivateKeyInfo {
  pkcs8: Uint8Array;
  /** `RSA`, `EC` or `Ed25519`; undefined for algorithms we do not know. */
  kind?: 'RSA' | 'EC' | 'Ed25519';
  namedCurve?: string;
}

/** PKCS#1 RSAPrivateKey → PKCS#8 PrivateKeyInfo. */
export function pkcs1ToPkcs8(pkcs1: Uint8Array): Uint8Array {
  return encodeTLV(
    SEQ,
    encodeTLV(INT, new Uint8Array([0])),
    encodeTLV(SEQ, encodeOID(oidRSA), NULL),
    encodeTLV(OCTET, pkcs1),
  );
}

/** PKCS#8 PrivateKeyInfo (RSA) → PKCS#1 RSAPrivateKey, for Go's `RSA PRIVATE KEY` files. */
export function pkcs8ToPkcs1(pkcs8: Uint8Array): Uint8Array {
  const [, , key] = children(parseDER(pkcs8, SEQ));
  if (!key || key.tag !== OCTET) throw new Error('asn1: not a PKCS#8 private key');
  return key.value.slice();
}

/** SEC1 ECPrivateKey → PKCS#8, taking the curve from the key's parameters. */
export function sec1ToPkcs8(sec1: Uint8Array): { pkcs8: Uint8Array; curveOID: string } {
  const fields = children(parseDER(sec1, SEQ));
  const params = fields.find((f) => f.tag === 0xa0);
  if (!params) throw new Error('x509: EC private key without named curve');
  const curveOID = decodeOID(parseDER(params.value));
  // PKCS#8 wraps the SEC1 structure (without the parameters) in an OCTET STRING.
  const inner = encodeTLV(SEQ, ...fields.filter((f) => f.tag !== 0xa0).map((f) => f.raw));
  return {
    pkcs8: encodeTLV(
      SEQ,
      encodeTLV(INT, new Uint8Array([0])),
      encodeTLV(SEQ, encodeOID(oidEC), encodeOID(curveOID)),
      encodeTLV(OCTET, inner),
    ),
    curveOID,
  };
}

/**
 * Parses a private key PEM block like Go's tls.parsePrivateKey (PKCS#1, PKCS#8, SEC1).
 * Throws `tls: failed to parse private key` when none fits.
 */
export function parsePrivateKeyBlock(block: PemBlock): PrivateKeyInfo {
  try {
    if (block.type === 'RSA PRIVATE KEY') {
      parseDER(block.bytes, SEQ);
      return { pkcs8: pkcs1ToPkcs8(block.bytes), kind: 'RSA' };
    }
    if (block.type === 'EC PRIVATE KEY') {
      const { pkcs8, curveOID } = sec1ToPkcs8(block.bytes);
      return { pkcs8, kind: 'EC', namedCurve: curveByOID[curveOID] };
    }
    const [, alg] = children(parseDER(block.bytes, SEQ));
    const [oid, param] = children(alg!);
    const o = decodeOID(oid!);
    if (o === oidRSA) return { pkcs8: block.bytes, kind: 'RSA' };
    if (o === oidEC)
      return {
        pkcs8: block.bytes,
        kind: 'EC',
        namedCurve: param?.tag === Tag.OID ? curveByOID[decodeOID(param)] : undefined,
      };
    if (o === oidEd25519) return { pkcs8: block.bytes, kind: 'Ed25519' };
    return { pkcs8: block.bytes };
  } catch {
    throw new Error('tls: failed to parse private key');
  }
}
