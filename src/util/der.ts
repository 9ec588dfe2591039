// A strict DER reader and a small writer (X.690), enough for X.509 certificates and key
// containers. Portable (no node:*). The reader never trusts a length: every element is checked
// against its parent's bounds, lengths must be minimal, indefinite lengths and high tag numbers
// are refused, and every failure is a DERError ("asn1: …", as Go's encoding/asn1 words them).

export class DERError extends Error {}

export const Tag = {
  BOOLEAN: 0x01,
  INTEGER: 0x02,
  BIT_STRING: 0x03,
  OCTET_STRING: 0x04,
  NULL: 0x05,
  OID: 0x06,
  UTF8String: 0x0c,
  SEQUENCE: 0x30,
  SET: 0x31,
  NumericString: 0x12,
  PrintableString: 0x13,
  T61String: 0x14,
  IA5String: 0x16,
  UTCTime: 0x17,
  GeneralizedTime: 0x18,
  UniversalString: 0x1c,
  BMPString: 0x1e,
} as const;

/** One element: its identifier octet, its content and its whole encoding (views, not copies). */
export interface TLV {
  tag: number;
  value: Uint8Array;
  raw: Uint8Array;
}

/** Reads the element at `offset`; `end` is the offset just past it. */
export function readTLV(b: Uint8Array, offset = 0): TLV & { end: number } {
  if (offset + 2 > b.length) throw new DERError('asn1: truncated element');
  const tag = b[offset]!;
  if ((tag & 0x1f) === 0x1f) throw new DERError('asn1: high-tag-number form not supported');
  let len = b[offset + 1]!;
  let p = offset + 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n === 0) throw new DERError('asn1: indefinite length found (not DER)');
    if (n > 4) throw new DERError('asn1: length too large');
    if (p + n > b.length) throw new DERError('asn1: truncated element');
    if (b[p] === 0) throw new DERError('asn1: superfluous leading zeros in length');
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + b[p + i]!;
    p += n;
    if (len < 0x80) throw new DERError('asn1: non-minimal length');
  }
  if (len > b.length - p) throw new DERError('asn1: truncated element');
  return { tag, value: b.subarray(p, p + len), raw: b.subarray(offset, p + len), end: p + len };
}

/** Exactly one element filling `b`, optionally of tag `tag`. */
export function parseDER(b: Uint8Array, tag?: number): TLV {
  const t = readTLV(b, 0);
  if (t.end !== b.length) throw new DERError('asn1: trailing data');
  if (tag !== undefined) expectTag(t, tag);
  return t;
}

export function expectTag(t: TLV | undefined, tag: number, what = 'element'): TLV {
  if (!t) throw new DERError(`asn1: missing ${what}`);
  if (t.tag !== tag)
    throw new DERError(
      `asn1: structure error: tags don't match (${what}: expected 0x${hex2(tag)}, got 0x${hex2(t.tag)})`,
    );
  return t;
}

function hex2(n: number): string {
  return n.toString(16).padStart(2, '0');
}

/** The elements inside a constructed value. */
export function children(t: TLV): TLV[] {
  if (!(t.tag & 0x20)) throw new DERError('asn1: primitive element where a constructed one is expected');
  const out: TLV[] = [];
  for (let p = 0; p < t.value.length;) {
    const c = readTLV(t.value, p);
    out.push(c);
    p = c.end;
  }
  return out;
}

// --- decoders ---

export function decodeBoolean(t: TLV): boolean {
  expectTag(t, Tag.BOOLEAN, 'BOOLEAN');
  if (t.value.length !== 1 || (t.value[0] !== 0 && t.value[0] !== 0xff)) throw new DERError('asn1: invalid boolean');
  return t.value[0] === 0xff;
}

function checkInteger(v: Uint8Array): void {
  if (!v.length) throw new DERError('asn1: empty integer');
  if (v.length > 1 && ((v[0] === 0 && !(v[1]! & 0x80)) || (v[0] === 0xff && v[1]! & 0x80)))
    throw new DERError('asn1: integer not minimally-encoded');
}

/** INTEGER → bigint (two's complement). */
export function decodeBigInt(t: TLV): bigint {
  expectTag(t, Tag.INTEGER, 'INTEGER');
  checkInteger(t.value);
  let n = 0n;
  for (const x of t.value) n = (n << 8n) | BigInt(x);
  if (t.value[0]! & 0x80) n -= 1n << BigInt(t.value.length * 8);
  return n;
}

/** A small INTEGER (|n| < 2^31). */
export function decodeInt(t: TLV): number {
  const n = decodeBigInt(t);
  if (n > 0x7fffffffn || n < -0x80000000n) throw new DERError('asn1: integer too large');
  return Number(n);
}

export function decodeOID(t: TLV): string {
  expectTag(t, Tag.OID, 'OBJECT IDENTIFIER');
  const v = t.value;
  if (!v.length || v[v.length - 1]! & 0x80) throw new DERError('asn1: invalid object identifier');
  const parts: number[] = [];
  let n = 0;
  for (let i = 0; i < v.length; i++) {
    if (n === 0 && v[i] === 0x80) throw new DERError('asn1: invalid object identifier');
    n = n * 128 + (v[i]! & 0x7f);
    if (n > Number.MAX_SAFE_INTEGER / 128) throw new DERError('asn1: object identifier component too large');
    if (!(v[i]! & 0x80)) {
      if (!parts.length) parts.push(n < 80 ? Math.floor(n / 40) : 2, n < 80 ? n % 40 : n - 80);
      else parts.push(n);
      n = 0;
    }
  }
  return parts.join('.');
}

/** BIT STRING → its bytes (unused trailing bits must be zero) and the count of unused bits. */
export function decodeBitString(t: TLV): { bytes: Uint8Array; unused: number } {
  expectTag(t, Tag.BIT_STRING, 'BIT STRING');
  const v = t.value;
  if (!v.length) throw new DERError('asn1: zero length BIT STRING');
  const unused = v[0]!;
  if (unused > 7 || (v.length === 1 && unused > 0) || (v.length > 1 && v[v.length - 1]! & ((1 << unused) - 1)))
    throw new DERError('asn1: invalid padding bits in BIT STRING');
  return { bytes: v.subarray(1), unused };
}

const utf8 = new TextDecoder('utf-8', { fatal: true });
const latin1 = new TextDecoder('latin1');

/** The directory string types X.509 names use. */
export function decodeString(t: TLV): string {
  const v = t.value;
  try {
    switch (t.tag) {
      case Tag.UTF8String:
        return utf8.decode(v);
      case Tag.PrintableString:
      case Tag.IA5String:
      case Tag.NumericString:
        for (const c of v) if (c > 0x7f) throw new DERError('asn1: invalid character in string');
        return latin1.decode(v);
      case Tag.T61String:
        return latin1.decode(v);
      case Tag.BMPString: {
        if (v.length % 2) throw new DERError('asn1: invalid BMPString');
        let s = '';
        for (let i = 0; i < v.length; i += 2) s += String.fromCharCode((v[i]! << 8) | v[i + 1]!);
        return s;
      }
      case Tag.UniversalString: {
        if (v.length % 4) throw new DERError('asn1: invalid UniversalString');
        let s = '';
        for (let i = 0; i < v.length; i += 4)
          s += String.fromCodePoint(((v[i]! << 24) | (v[i + 1]! << 16) | (v[i + 2]! << 8) | v[i + 3]!) >>> 0);
        return s;
      }
    }
  } catch (err) {
    if (err instanceof DERError) throw err;
    throw new DERError('asn1: invalid string encoding');
  }
  throw new DERError(`asn1: unsupported string type 0x${hex2(t.tag)}`);
}

/** UTCTime (YYMMDDHHMMSSZ, 1950–2049) or GeneralizedTime (YYYYMMDDHHMMSSZ), as RFC 5280 requires. */
export function decodeTime(t: TLV): Date {
  const s = latin1.decode(t.value);
  let m: RegExpExecArray | null;
  let year: number;
  if (t.tag === Tag.UTCTime) {
    m = /^(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})Z$/.exec(s);
    if (!m) throw new DERError('asn1: invalid UTCTime');
    year = Number(m[1]);
    year += year < 50 ? 2000 : 1900;
  } else if (t.tag === Tag.GeneralizedTime) {
    m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})Z$/.exec(s);
    if (!m) throw new DERError('asn1: invalid GeneralizedTime');
    year = Number(m[1]);
  } else throw new DERError('asn1: expected UTCTime or GeneralizedTime');
  const [mo, d, h, mi, se] = [2, 3, 4, 5, 6].map((i) => Number(m![i]));
  const date = new Date(0);
  date.setUTCFullYear(year, mo! - 1, d);
  date.setUTCHours(h!, mi!, se!, 0);
  // Reject 31 Feb and friends (Date would roll them over).
  if (
    date.getUTCFullYear() !== year ||
    date.getUTCMonth() !== mo! - 1 ||
    date.getUTCDate() !== d ||
    h! > 23 ||
    mi! > 59 ||
    se! > 59
  )
    throw new DERError('asn1: invalid time');
  return date;
}

// --- encoders ---

export function encodeTLV(tag: number, ...parts: Uint8Array[]): Uint8Array {
  let len = 0;
  for (const x of parts) len += x.length;
  const head: number[] = [tag];
  if (len < 0x80) head.push(len);
  else {
    const lb: number[] = [];
    for (let l = len; l > 0; l = Math.floor(l / 256)) lb.unshift(l & 0xff);
    head.push(0x80 | lb.length, ...lb);
  }
  const out = new Uint8Array(head.length + len);
  out.set(head, 0);
  let p = head.length;
  for (const x of parts) {
    out.set(x, p);
    p += x.length;
  }
  return out;
}

export const encodeSequence = (...parts: Uint8Array[]): Uint8Array => encodeTLV(Tag.SEQUENCE, ...parts);
export const encodeNull = (): Uint8Array => new Uint8Array([Tag.NULL, 0]);
export const encodeBoolean = (v: boolean): Uint8Array => new Uint8Array([Tag.BOOLEAN, 1, v ? 0xff : 0]);
export const encodeOctetString = (v: Uint8Array): Uint8Array => encodeTLV(Tag.OCTET_STRING, v);
export const encodeBitString = (v: Uint8Array, unused = 0): Uint8Array =>
  encodeTLV(Tag.BIT_STRING, new Uint8Array([unused]), v);

/** A non-negative INTEGER from big-endian magnitude bytes (a leading zero is added or dropped as DER needs). */
export function encodeUnsigned(magnitude: Uint8Array): Uint8Array {
  let i = 0;
  while (i < magnitude.length - 1 && magnitude[i] === 0) i++;
  const v = magnitude.subarray(i);
  if (!v.length) return new Uint8Array([Tag.INTEGER, 1, 0]);
  return v[0]! & 0x80 ? encodeTLV(Tag.INTEGER, new Uint8Array([0]), v) : encodeTLV(Tag.INTEGER, v);
}

export function encodeInt(n: number | bigint): Uint8Array {
  let v = BigInt(n);
  const bytes: number[] = [];
  for (;;) {
    const b = Number(v & 0xffn);
    bytes.unshift(b);
    v >>= 8n;
    if ((v === 0n && !(b & 0x80)) || (v === -1n && b & 0x80)) break;
  }
  return encodeTLV(Tag.INTEGER, new Uint8Array(bytes));
}

export function encodeOID(oid: string): Uint8Array {
  const nums = oid.split('.').map(Number);
  if (nums.length < 2 || nums.some((n) => !Number.isSafeInteger(n) || n < 0))
    throw new DERError(`asn1: bad OID ${oid}`);
  const out: number[] = [];
  for (const n of [nums[0]! * 40 + nums[1]!, ...nums.slice(2)]) {
    const bytes = [n % 128];
    for (let x = Math.floor(n / 128); x > 0; x = Math.floor(x / 128)) bytes.unshift((x % 128) | 0x80);
    out.push(...bytes);
  }
  return encodeTLV(Tag.OID, new Uint8Array(out));
}

/** UTCTime for 1950–2049, GeneralizedTime otherwise (RFC 5280 4.1.2.5), whole seconds. */
export function encodeTime(d: Date): Uint8Array {
  const y = d.getUTCFullYear();
  const p2 = (n: number) => String(n).padStart(2, '0');
  const rest = `${p2(d.getUTCMonth() + 1)}${p2(d.getUTCDate())}${p2(d.getUTCHours())}${p2(d.getUTCMinutes())}${p2(d.getUTCSeconds())}Z`;
  if (y >= 1950 && y < 2050) return encodeTLV(Tag.UTCTime, new TextEncoder().encode(p2(y % 100) + rest));
  return encodeTLV(Tag.GeneralizedTime, new TextEncoder().encode(String(y).padStart(4, '0') + rest));
}

export const encodeUTF8 = (s: string, tag: number = Tag.UTF8String): Uint8Array =>
  encodeTLV(tag, new TextEncoder().encode(s));

/** `[n] EXPLICIT` around an encoded element. */
export const encodeExplicit = (n: number, inner: Uint8Array): Uint8Array => encodeTLV(0xa0 | n, inner);

/** Big-endian bytes → bigint (unsigned). */
export function bytesToBigInt(b: Uint8Array): bigint {
  let n = 0n;
  for (const x of b) n = (n << 8n) | BigInt(x);
  return n;
}

export function toHex(b: Uint8Array): string {
  let s = '';
  for (const x of b) s += x.toString(16).padStart(2, '0');
  return s;
}

export function fromHex(hex: string): Uint8Array {
  if (hex.length % 2 || !/^[0-9a-fA-F]*$/.test(hex)) throw new DERError(`invalid hex string`);
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}
