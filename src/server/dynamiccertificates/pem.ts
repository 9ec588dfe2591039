// PEM blocks, a minimal DER reader/writer, and private-key normalisation to PKCS#8 so that
// WebCrypto can import PKCS#1 (`RSA PRIVATE KEY`) and SEC1 (`EC PRIVATE KEY`) keys. Portable.

import { base64Decode, base64Encode } from '../../util/base64.ts';

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

// --- DER ---

export interface TLV {
  tag: number;
  /** Content bytes. */
  value: Uint8Array;
  /** Offset just past this element. */
  end: number;
}

/** Reads one DER element at `offset`; throws on truncated or indefinite-length input. */
export function readTLV(b: Uint8Array, offset = 0): TLV {
  if (offset + 2 > b.length) throw new Error('asn1: truncated element');
  const tag = b[offset]!;
  let len = b[offset + 1]!;
  let p = offset + 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n === 0 || n > 4 || p + n > b.length) throw new Error('asn1: invalid length');
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + b[p + i]!;
    p += n;
  }
  if (p + len > b.length) throw new Error('asn1: truncated element');
  return { tag, value: b.subarray(p, p + len), end: p + len };
}

/** The elements inside a constructed value (SEQUENCE contents). */
export function readChildren(content: Uint8Array): TLV[] {
  const out: TLV[] = [];
  let p = 0;
  while (p < content.length) {
    const t = readTLV(content, p);
    out.push(t);
    p = t.end;
  }
  return out;
}

export function encodeTLV(tag: number, ...parts: Uint8Array[]): Uint8Array {
  const len = parts.reduce((n, x) => n + x.length, 0);
  let header: number[];
  if (len < 0x80) header = [tag, len];
  else {
    const lenBytes: number[] = [];
    for (let l = len; l > 0; l = Math.floor(l / 256)) lenBytes.unshift(l & 0xff);
    header = [tag, 0x80 | lenBytes.length, ...lenBytes];
  }
  const out = new Uint8Array(header.length + len);
  out.set(header, 0);
  let p = header.length;
  for (const x of parts) {
    out.set(x, p);
    p += x.length;
  }
  return out;
}

/** Dotted OID text from DER content bytes. */
export function decodeOID(v: Uint8Array): string {
  const parts: number[] = [];
  let n = 0;
  for (let i = 0; i < v.length; i++) {
    n = n * 128 + (v[i]! & 0x7f);
    if (!(v[i]! & 0x80)) {
      if (!parts.length) parts.push(n < 80 ? Math.floor(n / 40) : 2, n < 80 ? n % 40 : n - 80);
      else parts.push(n);
      n = 0;
    }
  }
  return parts.join('.');
}

export function encodeOID(oid: string): Uint8Array {
  const nums = oid.split('.').map(Number);
  const out: number[] = [];
  const first = [nums[0]! * 40 + nums[1]!, ...nums.slice(2)];
  for (const n of first) {
    const bytes = [n & 0x7f];
    for (let x = Math.floor(n / 128); x > 0; x = Math.floor(x / 128)) bytes.unshift((x & 0x7f) | 0x80);
    out.push(...bytes);
  }
  return encodeTLV(0x06, new Uint8Array(out));
}

const SEQ = 0x30;
const INT = 0x02;
const OCTET = 0x04;
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
  const [, , key] = readChildren(readTLV(pkcs8).value);
  if (!key || key.tag !== OCTET) throw new Error('asn1: not a PKCS#8 private key');
  return key.value.slice();
}

/** SEC1 ECPrivateKey → PKCS#8, taking the curve from the key's parameters. */
export function sec1ToPkcs8(sec1: Uint8Array): { pkcs8: Uint8Array; curveOID: string } {
  const fields = readChildren(readTLV(sec1).value);
  const params = fields.find((f) => f.tag === 0xa0);
  if (!params) throw new Error('x509: EC private key without named curve');
  const curve = readTLV(params.value);
  const curveOID = decodeOID(curve.value);
  // PKCS#8 wraps the SEC1 structure (without the parameters) in an OCTET STRING.
  const inner = encodeTLV(SEQ, ...fields.filter((f) => f.tag !== 0xa0).map((f) => encodeTLV(f.tag, f.value)));
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
      readTLV(block.bytes);
      return { pkcs8: pkcs1ToPkcs8(block.bytes), kind: 'RSA' };
    }
    if (block.type === 'EC PRIVATE KEY') {
      const { pkcs8, curveOID } = sec1ToPkcs8(block.bytes);
      return { pkcs8, kind: 'EC', namedCurve: curveByOID[curveOID] };
    }
    const [, alg] = readChildren(readTLV(block.bytes).value);
    if (!alg) throw new Error('bad');
    const [oid, param] = readChildren(alg.value);
    const o = decodeOID(oid!.value);
    if (o === oidRSA) return { pkcs8: block.bytes, kind: 'RSA' };
    if (o === oidEC)
      return { pkcs8: block.bytes, kind: 'EC', namedCurve: param ? curveByOID[decodeOID(param.value)] : undefined };
    if (o === oidEd25519) return { pkcs8: block.bytes, kind: 'Ed25519' };
    return { pkcs8: block.bytes };
  } catch {
    throw new Error('tls: failed to parse private key');
  }
}
