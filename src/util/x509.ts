// X.509 certificates on WebCrypto and src/util/der.ts: parse (Go's crypto/x509.ParseCertificate
// subset the server needs), verify a signature by a parent, generate (x509.CreateCertificate's
// encoding choices), PEM. Portable, no node:*. The class and extension names follow
// @peculiar/x509, which this replaces, so its users and tests kept their shapes.

import {
  DERError,
  Tag,
  children,
  decodeBigInt,
  decodeBitString,
  decodeBoolean,
  decodeInt,
  decodeOID,
  decodeString,
  decodeTime,
  encodeBitString,
  encodeBoolean,
  encodeExplicit,
  encodeInt,
  encodeNull,
  encodeOID,
  encodeOctetString,
  encodeSequence,
  encodeTLV,
  encodeTime,
  encodeUTF8,
  encodeUnsigned,
  expectTag,
  fromHex,
  parseDER,
  toHex,
  type TLV,
} from './der.ts';
import { decodeBase64, encodeBase64 } from './base64.ts';
import { isIPv4, isIPv6 } from './net.ts';

// --- OIDs ---

const oid = {
  rsaEncryption: '1.2.840.113549.1.1.1',
  rsaPSS: '1.2.840.113549.1.1.10',
  mgf1: '1.2.840.113549.1.1.8',
  ecPublicKey: '1.2.840.10045.2.1',
  ed25519: '1.3.101.112',
  sha256: '2.16.840.1.101.3.4.2.1',
  sha384: '2.16.840.1.101.3.4.2.2',
  sha512: '2.16.840.1.101.3.4.2.3',
  subjectKeyIdentifier: '2.5.29.14',
  keyUsage: '2.5.29.15',
  subjectAltName: '2.5.29.17',
  basicConstraints: '2.5.29.19',
  authorityKeyIdentifier: '2.5.29.35',
  extKeyUsage: '2.5.29.37',
};

/** Signature algorithms (crypto/x509 signatureAlgorithmDetails, the ones WebCrypto can check). */
const sigAlgs: Record<string, { name: 'RSASSA-PKCS1-v1_5' | 'ECDSA' | 'Ed25519'; hash?: string }> = {
  '1.2.840.113549.1.1.11': { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
  '1.2.840.113549.1.1.12': { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-384' },
  '1.2.840.113549.1.1.13': { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-512' },
  '1.2.840.10045.4.3.2': { name: 'ECDSA', hash: 'SHA-256' },
  '1.2.840.10045.4.3.3': { name: 'ECDSA', hash: 'SHA-384' },
  '1.2.840.10045.4.3.4': { name: 'ECDSA', hash: 'SHA-512' },
  [oid.ed25519]: { name: 'Ed25519' },
};
const hashByOID: Record<string, string> = { [oid.sha256]: 'SHA-256', [oid.sha384]: 'SHA-384', [oid.sha512]: 'SHA-512' };
const hashLength: Record<string, number> = { 'SHA-256': 32, 'SHA-384': 48, 'SHA-512': 64 };
const curves: Record<string, { name: string; size: number }> = {
  '1.2.840.10045.3.1.7': { name: 'P-256', size: 32 },
  '1.3.132.0.34': { name: 'P-384', size: 48 },
  '1.3.132.0.35': { name: 'P-521', size: 66 },
};

export const KeyUsageFlags = {
  digitalSignature: 1,
  nonRepudiation: 2,
  keyEncipherment: 4,
  dataEncipherment: 8,
  keyAgreement: 16,
  keyCertSign: 32,
  cRLSign: 64,
  encipherOnly: 128,
  decipherOnly: 256,
} as const;

export const ExtendedKeyUsage = {
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
  codeSigning: '1.3.6.1.5.5.7.3.3',
  emailProtection: '1.3.6.1.5.5.7.3.4',
  timeStamping: '1.3.6.1.5.5.7.3.8',
  ocspSigning: '1.3.6.1.5.5.7.3.9',
} as const;

// --- names ---

const attrNames: Record<string, string> = {
  CN: '2.5.4.3',
  L: '2.5.4.7',
  ST: '2.5.4.8',
  O: '2.5.4.10',
  OU: '2.5.4.11',
  C: '2.5.4.6',
  DC: '0.9.2342.19200300.100.1.25',
  E: '1.2.840.113549.1.9.1',
  G: '2.5.4.42',
  I: '2.5.4.43',
  SN: '2.5.4.4',
  T: '2.5.4.12',
};
const attrShort: Record<string, string> = Object.fromEntries(Object.entries(attrNames).map(([k, v]) => [v, k]));
const isOIDText = (s: string) => /^\d+(\.\d+)+$/.test(s);

/** One attribute of a relative distinguished name: the type OID and the value (undefined: not a string). */
export interface NameAttribute {
  type: string;
  value: string | undefined;
  /** The value's encoding (AttributeValue), kept for `#hex` display and re-encoding. */
  raw: Uint8Array;
}

/** `[{ CN: ['x'] }, { O: ['a', 'b'] }]`: one object per RDN. */
export type JsonName = Array<Record<string, string[]>>;

// crypto/x509 marshals a string as PrintableString when it can, else UTF8String
// (encoding/asn1 makeField); email and domain components are IA5String.
const printable = /^[A-Za-z0-9 '()+,\-./:=?]*$/;
function encodeAttribute(type: string, value: string): Uint8Array {
  if (value.startsWith('#')) return encodeSequence(encodeOID(type), fromHex(value.slice(1)));
  const tag =
    type === attrNames.E || type === attrNames.DC
      ? Tag.IA5String
      : printable.test(value)
        ? Tag.PrintableString
        : Tag.UTF8String;
  return encodeSequence(encodeOID(type), encodeUTF8(value, tag));
}

function escapeValue(v: string): string {
  return v
    .replace(/([,+"\\<>;])/g, '\\$1')
    .replace(/^([ #])/, '\\$1')
    .replace(/ $/, '\\ ')
    .replace(/[\r\n\t]/g, (c) => '\\' + c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0'));
}

/** Parses `CN=a, O=b+OU=c` (RFC 4514 syntax, in the certificate's order) into RDNs of [type OID, value]. */
function parseNameString(s: string): [string, string][][] {
  const rdns: [string, string][][] = [];
  let rdn: [string, string][] = [];
  let i = 0;
  const skipSpaces = () => {
    while (s[i] === ' ') i++;
  };
  skipSpaces();
  if (i >= s.length) return rdns;
  for (;;) {
    skipSpaces();
    const eq = s.indexOf('=', i);
    if (eq < 0) throw new Error(`x509: invalid name ${JSON.stringify(s)}`);
    const key = s.slice(i, eq).trim();
    const type = isOIDText(key) ? key : attrNames[key.toUpperCase()];
    if (!type) throw new Error(`x509: unknown name attribute ${JSON.stringify(key)}`);
    i = eq + 1;
    skipSpaces();
    let value = '';
    if (s[i] === '"') {
      for (i++; i < s.length && s[i] !== '"'; i++) value += s[i] === '\\' ? s[++i] : s[i];
      if (s[i] !== '"') throw new Error(`x509: invalid name ${JSON.stringify(s)}`);
      i++;
      skipSpaces();
    } else {
      let trailing = 0; // unescaped trailing spaces are not part of the value
      for (; i < s.length && s[i] !== ',' && s[i] !== '+'; i++) {
        if (s[i] === '\\') {
          const hex = /^[0-9a-fA-F]{2}/.exec(s.slice(i + 1, i + 3));
          if (hex) {
            value += String.fromCharCode(parseInt(hex[0], 16));
            i += 2;
          } else value += s[++i] ?? '';
          trailing = 0;
        } else {
          value += s[i];
          trailing = s[i] === ' ' ? trailing + 1 : 0;
        }
      }
      if (trailing) value = value.slice(0, -trailing);
    }
    rdn.push([type, value]);
    if (i >= s.length || s[i] === ',') {
      rdns.push(rdn);
      rdn = [];
      if (i >= s.length) return rdns;
    } else if (s[i] !== '+') throw new Error(`x509: invalid name ${JSON.stringify(s)}`);
    i++;
  }
}

/** A distinguished name (pkix.Name): its DER, kept as given, and its attributes in order. */
export class Name {
  readonly rawData: Uint8Array<ArrayBuffer>;
  readonly rdns: NameAttribute[][];
  constructor(data: string | JsonName | Name | Uint8Array) {
    if (data instanceof Name) {
      this.rawData = data.rawData;
      this.rdns = data.rdns;
      return;
    }
    let der: Uint8Array;
    if (data instanceof Uint8Array) der = data;
    else {
      const rdns: [string, string][][] =
        typeof data === 'string'
          ? parseNameString(data)
          : data.map((r) =>
              Object.entries(r).flatMap(([k, vs]) => {
                const type = isOIDText(k) ? k : attrNames[k.toUpperCase()];
                if (!type) throw new Error(`x509: unknown name attribute ${JSON.stringify(k)}`);
                return vs.map((v): [string, string] => [type, v]);
              }),
            );
      der = encodeSequence(
        ...rdns.map((r) => encodeTLV(Tag.SET, ...sortSet(r.map(([t, v]) => encodeAttribute(t, v))))),
      );
    }
    const t = parseDER(der, Tag.SEQUENCE);
    this.rawData = t.raw.slice();
    this.rdns = children(t).map((set) => {
      expectTag(set, Tag.SET, 'RelativeDistinguishedName');
      const attrs = children(set);
      if (!attrs.length) throw new DERError('x509: empty RelativeDistinguishedName');
      return attrs.map((a) => {
        const [type, value, extra] = children(expectTag(a, Tag.SEQUENCE, 'AttributeTypeAndValue'));
        if (!value || extra) throw new DERError('x509: invalid AttributeTypeAndValue');
        let text: string | undefined;
        try {
          text = decodeString(value);
        } catch {
          text = undefined;
        }
        return { type: decodeOID(type!), value: text, raw: value.raw };
      });
    });
  }
  /** Values of an attribute (short name such as `CN`, or an OID), in order. */
  getField(name: string): string[] {
    const type = isOIDText(name) ? name : attrNames[name];
    const out: string[] = [];
    for (const rdn of this.rdns) for (const a of rdn) if (a.type === type && a.value !== undefined) out.push(a.value);
    return out;
  }
  /** `CN=alice, O=system:masters` (RDNs in certificate order, `+` inside one). */
  toString(): string {
    return this.rdns
      .map((rdn) =>
        rdn
          .map(
            (a) =>
              `${attrShort[a.type] ?? a.type}=${a.value === undefined ? '#' + toHex(a.raw) : escapeValue(a.value)}`,
          )
          .join('+'),
      )
      .join(', ');
  }
}

/** DER orders SET OF members by their encodings. */
function sortSet(items: Uint8Array[]): Uint8Array[] {
  return items.sort((a, b) => {
    for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
    return a.length - b.length;
  });
}

// --- extensions ---

/** An extension: type OID, criticality and the DER inside extnValue. */
export class Extension {
  readonly type: string;
  readonly critical: boolean;
  readonly value: Uint8Array;
  constructor(type: string, critical: boolean, value: Uint8Array) {
    this.type = type;
    this.critical = critical;
    this.value = value;
  }
  /** The Extension SEQUENCE. */
  get rawData(): Uint8Array {
    return encodeSequence(
      encodeOID(this.type),
      ...(this.critical ? [encodeBoolean(true)] : []),
      encodeOctetString(this.value),
    );
  }
}

export class BasicConstraintsExtension extends Extension {
  readonly ca: boolean;
  /** MaxPathLen; undefined when absent. */
  readonly pathLength: number | undefined;
  constructor(ca: boolean, pathLength?: number, critical = false, value?: Uint8Array) {
    // Go omits cA when false (DEFAULT FALSE) and pathLen when unset.
    super(
      oid.basicConstraints,
      critical,
      value ??
        encodeSequence(
          ...(ca ? [encodeBoolean(true)] : []),
          ...(pathLength !== undefined ? [encodeInt(pathLength)] : []),
        ),
    );
    this.ca = ca;
    this.pathLength = pathLength;
  }
  static decode(critical: boolean, value: Uint8Array): BasicConstraintsExtension {
    const f = children(parseDER(value, Tag.SEQUENCE));
    let i = 0;
    const ca = f[i]?.tag === Tag.BOOLEAN ? decodeBoolean(f[i++]!) : false;
    const pathLength = f[i]?.tag === Tag.INTEGER ? decodeInt(f[i++]!) : undefined;
    if (i !== f.length || (pathLength !== undefined && pathLength < 0))
      throw new DERError('x509: invalid basic constraints');
    return new BasicConstraintsExtension(ca, pathLength, critical, value);
  }
}

export class KeyUsagesExtension extends Extension {
  /** KeyUsageFlags bits (bit n of the BIT STRING is 1 << n). */
  readonly usages: number;
  constructor(usages: number, critical = false, value?: Uint8Array) {
    super(oid.keyUsage, critical, value ?? encodeKeyUsage(usages));
    this.usages = usages;
  }
  static decode(critical: boolean, value: Uint8Array): KeyUsagesExtension {
    const { bytes } = decodeBitString(parseDER(value));
    let usages = 0;
    for (let bit = 0; bit < Math.min(bytes.length * 8, 9); bit++)
      if (bytes[bit >> 3]! & (0x80 >> (bit & 7))) usages |= 1 << bit;
    return new KeyUsagesExtension(usages, critical, value);
  }
}

/** The shortest BIT STRING holding the flags (asn1.BitString as Go marshals a KeyUsage). */
function encodeKeyUsage(usages: number): Uint8Array {
  let bits = 0;
  for (let b = 0; b < 9; b++) if (usages & (1 << b)) bits = b + 1;
  const bytes = new Uint8Array(Math.ceil(bits / 8));
  for (let b = 0; b < bits; b++) if (usages & (1 << b)) bytes[b >> 3]! |= 0x80 >> (b & 7);
  return encodeBitString(bytes, bytes.length * 8 - bits);
}

export class ExtendedKeyUsageExtension extends Extension {
  readonly usages: string[];
  constructor(usages: readonly string[], critical = false, value?: Uint8Array) {
    super(oid.extKeyUsage, critical, value ?? encodeSequence(...usages.map(encodeOID)));
    this.usages = [...usages];
  }
  static decode(critical: boolean, value: Uint8Array): ExtendedKeyUsageExtension {
    return new ExtendedKeyUsageExtension(
      children(parseDER(value, Tag.SEQUENCE)).map((t) => decodeOID(t)),
      critical,
      value,
    );
  }
}

/** A GeneralName: `dns`, `ip`, `email`, `url`, `dn`; anything else as `other` with its DER in hex. */
export interface GeneralName {
  type: 'dns' | 'ip' | 'email' | 'url' | 'dn' | 'other';
  value: string;
}
export type JsonGeneralNames = GeneralName[];

const gnTags = { email: 0x81, dns: 0x82, dn: 0xa4, url: 0x86, ip: 0x87 } as const;

function encodeGeneralName(n: GeneralName): Uint8Array {
  switch (n.type) {
    case 'dns':
    case 'email':
    case 'url':
      return encodeUTF8(n.value, gnTags[n.type]);
    case 'ip':
      return encodeTLV(gnTags.ip, parseIP(n.value));
    case 'dn':
      return encodeTLV(gnTags.dn, new Name(n.value).rawData);
    default:
      return fromHex(n.value);
  }
}

function decodeGeneralName(t: TLV): GeneralName {
  const ascii = () => {
    for (const c of t.value) if (c > 0x7f) throw new DERError('x509: SAN is not a valid IA5String');
    return new TextDecoder().decode(t.value);
  };
  switch (t.tag) {
    case gnTags.dns:
      return { type: 'dns', value: ascii() };
    case gnTags.email:
      return { type: 'email', value: ascii() };
    case gnTags.url:
      return { type: 'url', value: ascii() };
    case gnTags.ip:
      return { type: 'ip', value: formatIP(t.value) };
    case gnTags.dn:
      return { type: 'dn', value: new Name(parseDER(t.value).raw).toString() };
    default:
      return { type: 'other', value: toHex(t.raw) };
  }
}

export class SubjectAlternativeNameExtension extends Extension {
  readonly names: { items: GeneralName[] };
  constructor(names: JsonGeneralNames, critical = false, value?: Uint8Array) {
    super(oid.subjectAltName, critical, value ?? encodeSequence(...names.map(encodeGeneralName)));
    this.names = { items: names.map((n) => ({ ...n })) };
  }
  static decode(critical: boolean, value: Uint8Array): SubjectAlternativeNameExtension {
    return new SubjectAlternativeNameExtension(
      children(parseDER(value, Tag.SEQUENCE)).map(decodeGeneralName),
      critical,
      value,
    );
  }
}

/** The SPKI of a key (exported when a CryptoKey). */
async function spkiOf(key: CryptoKey | PublicKey | Uint8Array): Promise<Uint8Array> {
  if (key instanceof PublicKey) return key.rawData;
  if (key instanceof Uint8Array) return key;
  return new Uint8Array((await crypto.subtle.exportKey('spki', key)) as ArrayBuffer);
}

/** RFC 5280 4.2.1.2 method 1, as crypto/x509 does: SHA-1 of the subjectPublicKey bits. */
async function keyIdentifier(key: CryptoKey | PublicKey | Uint8Array): Promise<string> {
  const pk = new PublicKey(await spkiOf(key));
  return toHex(new Uint8Array(await crypto.subtle.digest('SHA-1', pk.keyBits as BufferSource)));
}

export class SubjectKeyIdentifierExtension extends Extension {
  /** Hex. */
  readonly keyId: string;
  constructor(keyId: string, critical = false, value?: Uint8Array) {
    super(oid.subjectKeyIdentifier, critical, value ?? encodeOctetString(fromHex(keyId)));
    this.keyId = keyId;
  }
  static async create(
    key: CryptoKey | PublicKey | Uint8Array,
    critical = false,
  ): Promise<SubjectKeyIdentifierExtension> {
    return new SubjectKeyIdentifierExtension(await keyIdentifier(key), critical);
  }
  static decode(critical: boolean, value: Uint8Array): SubjectKeyIdentifierExtension {
    return new SubjectKeyIdentifierExtension(
      toHex(expectTag(parseDER(value), Tag.OCTET_STRING, 'SubjectKeyIdentifier').value),
      critical,
      value,
    );
  }
}

export class AuthorityKeyIdentifierExtension extends Extension {
  /** Hex keyIdentifier; undefined when the extension names the issuer another way. */
  readonly keyId: string | undefined;
  constructor(keyId: string | undefined, critical = false, value?: Uint8Array) {
    super(
      oid.authorityKeyIdentifier,
      critical,
      value ?? encodeSequence(...(keyId ? [encodeTLV(0x80, fromHex(keyId))] : [])),
    );
    this.keyId = keyId;
  }
  static async create(
    key: CryptoKey | PublicKey | Uint8Array,
    critical = false,
  ): Promise<AuthorityKeyIdentifierExtension> {
    return new AuthorityKeyIdentifierExtension(await keyIdentifier(key), critical);
  }
  static decode(critical: boolean, value: Uint8Array): AuthorityKeyIdentifierExtension {
    const id = children(parseDER(value, Tag.SEQUENCE)).find((t) => t.tag === 0x80);
    return new AuthorityKeyIdentifierExtension(id ? toHex(id.value) : undefined, critical, value);
  }
}

const decoders: Record<string, (critical: boolean, value: Uint8Array) => Extension> = {
  [oid.basicConstraints]: BasicConstraintsExtension.decode,
  [oid.keyUsage]: KeyUsagesExtension.decode,
  [oid.extKeyUsage]: ExtendedKeyUsageExtension.decode,
  [oid.subjectAltName]: SubjectAlternativeNameExtension.decode,
  [oid.subjectKeyIdentifier]: SubjectKeyIdentifierExtension.decode,
  [oid.authorityKeyIdentifier]: AuthorityKeyIdentifierExtension.decode,
};

// --- IP addresses (net.IP bytes and String) ---

/** net.ParseIP bytes as a SAN carries them. */
function parseIP(s: string): Uint8Array {
  if (isIPv4(s)) return new Uint8Array(s.split('.').map(Number));
  if (!isIPv6(s)) throw new Error(`x509: invalid IP address ${JSON.stringify(s)}`);
  let text = s;
  const last = s.lastIndexOf(':');
  if (s.slice(last + 1).includes('.')) {
    const v4 = s
      .slice(last + 1)
      .split('.')
      .map(Number);
    text = s.slice(0, last + 1) + ((v4[0]! << 8) | v4[1]!).toString(16) + ':' + ((v4[2]! << 8) | v4[3]!).toString(16);
  }
  const groups = (h: string) => (h ? h.split(':').map((g) => parseInt(g, 16)) : []);
  const halves = text.split('::');
  const a = groups(halves[0]!);
  const b = halves.length > 1 ? groups(halves[1]!) : [];
  const words = halves.length > 1 ? [...a, ...new Array<number>(8 - a.length - b.length).fill(0), ...b] : a;
  const out = new Uint8Array(16);
  words.forEach((w, i) => {
    out[i * 2] = w >> 8;
    out[i * 2 + 1] = w & 0xff;
  });
  // Go marshals an IPv4-mapped address in its 4-byte form (marshalSANs: ip.To4()).
  return out.subarray(0, 10).every((x) => x === 0) && out[10] === 0xff && out[11] === 0xff ? out.slice(12) : out;
}

/** Go's net.IP.String: dotted IPv4 (also for IPv4-mapped IPv6), RFC 5952 IPv6. */
function formatIP(b: Uint8Array): string {
  if (b.length === 4) return [...b].join('.');
  if (b.length !== 16) throw new DERError(`x509: cannot parse IP address of length ${b.length}`);
  if (b.subarray(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff) return [...b.subarray(12)].join('.');
  const w = Array.from({ length: 8 }, (_, i) => (b[i * 2]! << 8) | b[i * 2 + 1]!);
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8;) {
    let j = i;
    while (j < 8 && w[j] === 0) j++;
    if (j - i > bestLen) {
      best = i;
      bestLen = j - i;
    }
    i = j === i ? i + 1 : j;
  }
  const hex = w.map((x) => x.toString(16));
  if (best < 0) return hex.join(':');
  return hex.slice(0, best).join(':') + '::' + hex.slice(best + bestLen).join(':');
}

// --- keys and signatures ---

/** A SubjectPublicKeyInfo. */
export class PublicKey {
  /** The SPKI DER. */
  readonly rawData: Uint8Array<ArrayBuffer>;
  /** The key algorithm OID and, for EC keys, the curve OID. */
  readonly algorithm: string;
  readonly curve: string | undefined;
  /** The subjectPublicKey bits. */
  readonly keyBits: Uint8Array;
  private readonly imported = new Map<string, Promise<CryptoKey>>();
  constructor(spki: Uint8Array) {
    const t = parseDER(spki, Tag.SEQUENCE);
    const [alg, bits, extra] = children(t);
    if (!bits || extra) throw new DERError('x509: invalid SubjectPublicKeyInfo');
    const [algOID, params] = children(expectTag(alg, Tag.SEQUENCE, 'AlgorithmIdentifier'));
    this.algorithm = decodeOID(algOID!);
    this.curve = this.algorithm === oid.ecPublicKey && params?.tag === Tag.OID ? decodeOID(params) : undefined;
    const { bytes, unused } = decodeBitString(bits);
    if (unused) throw new DERError('x509: invalid public key bits');
    this.keyBits = bytes;
    this.rawData = t.raw.slice();
  }
  /** The key for WebCrypto `verify` with `alg` (imported once per algorithm). */
  importFor(alg: RsaHashedImportParams | EcKeyImportParams | Algorithm): Promise<CryptoKey> {
    const key = JSON.stringify(alg);
    let p = this.imported.get(key);
    if (!p) {
      p = crypto.subtle.importKey('spki', this.rawData, alg, false, ['verify']);
      this.imported.set(key, p);
      p.catch(() => this.imported.delete(key));
    }
    return p;
  }
}

/** The signature algorithm of an AlgorithmIdentifier, as WebCrypto parameters; undefined if unsupported. */
function signatureParams(t: TLV): { name: string; hash?: string; saltLength?: number } | undefined {
  const [algT, params] = children(expectTag(t, Tag.SEQUENCE, 'AlgorithmIdentifier'));
  const o = decodeOID(algT!);
  if (o !== oid.rsaPSS) return sigAlgs[o];
  // RSASSA-PSS-params: Go accepts SHA-256/384/512 with MGF1 of the same hash and salt = hash length.
  if (!params) return undefined;
  let hash = 'SHA-1';
  let mgfHash = 'SHA-1';
  let salt = 20;
  for (const f of children(expectTag(params, Tag.SEQUENCE, 'RSASSA-PSS-params'))) {
    const inner = parseDER(f.value);
    if (f.tag === 0xa0) hash = hashByOID[decodeOID(children(inner)[0]!)] ?? '?';
    else if (f.tag === 0xa1) {
      const [m, p] = children(inner);
      mgfHash = decodeOID(m!) === oid.mgf1 && p ? (hashByOID[decodeOID(children(p)[0]!)] ?? '?') : '?';
    } else if (f.tag === 0xa2) salt = decodeInt(inner);
    else if (f.tag === 0xa3 && decodeInt(inner) !== 1) return undefined;
  }
  if (!hashLength[hash] || mgfHash !== hash || salt !== hashLength[hash]) return undefined;
  return { name: 'RSA-PSS', hash, saltLength: salt };
}

function encodeSignatureAlgorithm(name: string, hash: string): Uint8Array {
  const o = Object.keys(sigAlgs).find(
    (k) => sigAlgs[k]!.name === name && (name === 'Ed25519' || sigAlgs[k]!.hash === hash),
  );
  if (!o) throw new Error(`x509: unsupported signing algorithm ${name} ${hash}`);
  return name === 'RSASSA-PKCS1-v1_5' ? encodeSequence(encodeOID(o), encodeNull()) : encodeSequence(encodeOID(o));
}

/** ECDSA-Sig-Value (DER) → r‖s as WebCrypto wants it; undefined when malformed. */
function ecdsaDERToRaw(der: Uint8Array, size: number): Uint8Array | undefined {
  try {
    const [r, s, extra] = children(parseDER(der, Tag.SEQUENCE));
    if (!s || extra) return undefined;
    const out = new Uint8Array(size * 2);
    for (const [i, t] of [r!, s].entries()) {
      if (decodeBigInt(t) <= 0n) return undefined;
      const v = t.value[0] === 0 ? t.value.subarray(1) : t.value;
      if (v.length > size) return undefined;
      out.set(v, i * size + size - v.length);
    }
    return out;
  } catch {
    return undefined;
  }
}

function ecdsaRawToDER(raw: Uint8Array): Uint8Array {
  const h = raw.length / 2;
  return encodeSequence(encodeUnsigned(raw.subarray(0, h)), encodeUnsigned(raw.subarray(h)));
}

// --- certificates ---

export interface VerifyParams {
  /** The signer: a certificate, its public key or a CryptoKey; default the certificate itself. */
  publicKey?: X509Certificate | PublicKey | CryptoKey;
  /** Only the signature, not the validity period at `date`. */
  signatureOnly?: boolean;
  date?: Date;
}

/** A parsed certificate. Throws DERError (or an Error starting `x509:`) on anything malformed. */
export class X509Certificate {
  readonly rawData: Uint8Array<ArrayBuffer>;
  /** The TBSCertificate DER (what the signature covers). */
  readonly tbs: Uint8Array;
  readonly version: number;
  /** Hex of the INTEGER's content bytes without the sign byte, as @peculiar/x509 gives it. */
  readonly serialNumber: string;
  readonly serial: bigint;
  readonly subjectName: Name;
  readonly issuerName: Name;
  readonly notBefore: Date;
  readonly notAfter: Date;
  readonly publicKey: PublicKey;
  readonly extensions: Extension[];
  /** The signature algorithm (WebCrypto parameters), undefined when unsupported. */
  readonly signatureAlgorithm: { name: string; hash?: string; saltLength?: number } | undefined;
  readonly signature: Uint8Array;

  constructor(data: Uint8Array | string) {
    const der = typeof data === 'string' ? pemToDER(data) : data;
    const cert = parseDER(der, Tag.SEQUENCE);
    const [tbsT, sigAlgT, sigT, extra] = children(cert);
    if (!sigT || extra) throw new DERError('x509: malformed certificate');
    const f = children(expectTag(tbsT, Tag.SEQUENCE, 'TBSCertificate'));
    let i = 0;
    let version = 1;
    if (f[0]?.tag === 0xa0) {
      version = decodeInt(parseDER(f[i++]!.value)) + 1;
      if (version < 1 || version > 3) throw new DERError('x509: invalid version');
    }
    const serialT = expectTag(f[i++], Tag.INTEGER, 'serialNumber');
    this.serial = decodeBigInt(serialT);
    this.serialNumber = toHex(
      serialT.value.length > 1 && serialT.value[0] === 0 ? serialT.value.subarray(1) : serialT.value,
    );
    const innerSig = expectTag(f[i++], Tag.SEQUENCE, 'signature');
    if (!bytesEqual(innerSig.raw, sigAlgT!.raw))
      throw new DERError('x509: inner and outer signature algorithm identifiers do not match');
    this.issuerName = new Name(expectTag(f[i++], Tag.SEQUENCE, 'issuer').raw);
    const validity = children(expectTag(f[i++], Tag.SEQUENCE, 'validity'));
    if (validity.length !== 2) throw new DERError('x509: invalid validity');
    this.notBefore = decodeTime(validity[0]!);
    this.notAfter = decodeTime(validity[1]!);
    this.subjectName = new Name(expectTag(f[i++], Tag.SEQUENCE, 'subject').raw);
    this.publicKey = new PublicKey(expectTag(f[i++], Tag.SEQUENCE, 'subjectPublicKeyInfo').raw);
    // issuerUniqueID [1], subjectUniqueID [2]: skipped.
    while (f[i] && (f[i]!.tag === 0x81 || f[i]!.tag === 0xa1 || f[i]!.tag === 0x82 || f[i]!.tag === 0xa2)) i++;
    this.extensions = [];
    if (f[i]?.tag === 0xa3) {
      if (version !== 3) throw new DERError('x509: extensions in a certificate before v3');
      const seen = new Set<string>();
      for (const e of children(parseDER(f[i++]!.value, Tag.SEQUENCE))) {
        const ef = children(expectTag(e, Tag.SEQUENCE, 'Extension'));
        const type = decodeOID(ef[0]!);
        if (seen.has(type)) throw new DERError(`x509: certificate contains duplicate extension with OID "${type}"`);
        seen.add(type);
        let j = 1;
        const critical = ef[j]?.tag === Tag.BOOLEAN ? decodeBoolean(ef[j++]!) : false;
        const value = expectTag(ef[j++], Tag.OCTET_STRING, 'extnValue').value;
        if (j !== ef.length) throw new DERError('x509: invalid extension');
        const dec = decoders[type];
        this.extensions.push(dec ? dec(critical, value) : new Extension(type, critical, value));
      }
    }
    if (i !== f.length) throw new DERError('x509: trailing data in TBSCertificate');
    this.version = version;
    this.signatureAlgorithm = signatureParams(sigAlgT!);
    const sig = decodeBitString(sigT);
    if (sig.unused) throw new DERError('x509: invalid signature bits');
    this.signature = sig.bytes;
    this.tbs = tbsT!.raw;
    this.rawData = cert.raw.slice();
  }

  get subject(): string {
    return this.subjectName.toString();
  }
  get issuer(): string {
    return this.issuerName.toString();
  }

  /** The first extension of that class (or OID), null when absent. */
  getExtension<T extends Extension>(type: (abstract new (...args: never[]) => T) | string): T | null {
    for (const e of this.extensions) if (typeof type === 'string' ? e.type === type : e instanceof type) return e as T;
    return null;
  }

  /**
   * Whether `publicKey` (a parent certificate, default this one) signed this certificate (and,
   * unless `signatureOnly`, whether it is valid at `date`). Never throws for a bad signature.
   */
  async verify(params: VerifyParams = {}): Promise<boolean> {
    if (!params.signatureOnly) {
      const d = params.date ?? new Date();
      if (d < this.notBefore || d > this.notAfter) return false;
    }
    const alg = this.signatureAlgorithm;
    if (!alg) return false;
    const signer = params.publicKey ?? this;
    try {
      let key: CryptoKey;
      let curveSize = 0;
      if (signer instanceof X509Certificate || signer instanceof PublicKey) {
        const pk = signer instanceof X509Certificate ? signer.publicKey : signer;
        const importAlg = keyImportParams(pk, alg);
        if (!importAlg) return false;
        curveSize = pk.curve ? curves[pk.curve]!.size : 0;
        key = await pk.importFor(importAlg);
      } else {
        key = signer;
        const c = (key.algorithm as EcKeyAlgorithm).namedCurve;
        curveSize = c ? (Object.values(curves).find((x) => x.name === c)?.size ?? 0) : 0;
      }
      let sig: Uint8Array | undefined = this.signature;
      if (alg.name === 'ECDSA') sig = ecdsaDERToRaw(this.signature, curveSize);
      if (!sig) return false;
      return await crypto.subtle.verify(alg as EcdsaParams, key, sig as BufferSource, this.tbs as BufferSource);
    } catch {
      return false;
    }
  }

  toString(format: 'pem' | 'base64' = 'pem'): string {
    return format === 'pem' ? PemConverter.encode(this.rawData, 'CERTIFICATE') : encodeBase64(this.rawData);
  }
}

/** WebCrypto import parameters for verifying `alg` with `pk`; undefined when the key does not fit. */
function keyImportParams(
  pk: PublicKey,
  alg: { name: string; hash?: string },
): RsaHashedImportParams | EcKeyImportParams | Algorithm | undefined {
  switch (alg.name) {
    case 'RSASSA-PKCS1-v1_5':
    case 'RSA-PSS':
      return pk.algorithm === oid.rsaEncryption ? { name: alg.name, hash: alg.hash! } : undefined;
    case 'ECDSA': {
      const c = pk.algorithm === oid.ecPublicKey && pk.curve ? curves[pk.curve] : undefined;
      return c ? { name: 'ECDSA', namedCurve: c.name } : undefined;
    }
    case 'Ed25519':
      return pk.algorithm === oid.ed25519 ? { name: 'Ed25519' } : undefined;
  }
  return undefined;
}

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function pemToDER(pem: string): Uint8Array {
  const m = /-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/.exec(pem);
  if (!m) throw new DERError('x509: no CERTIFICATE PEM block');
  try {
    return decodeBase64(m[1]!);
  } catch {
    throw new DERError('x509: invalid base64 in PEM');
  }
}

export const PemConverter = {
  /** `-----BEGIN tag-----`, 64-column base64, `-----END tag-----` (no trailing newline). */
  encode(data: ArrayBuffer | Uint8Array, tag: string): string {
    const b64 = encodeBase64(data instanceof Uint8Array ? data : new Uint8Array(data));
    const lines: string[] = [];
    for (let i = 0; i < b64.length; i += 64) lines.push(b64.slice(i, i + 64));
    return `-----BEGIN ${tag}-----\n${lines.join('\n')}\n-----END ${tag}-----`;
  },
};

// --- generation ---

type NameInput = string | JsonName | Name;

export interface CertificateParams {
  /** Hex; default 8 random bytes. */
  serialNumber?: string;
  subject?: NameInput;
  issuer?: NameInput;
  /** Default now. */
  notBefore?: Date;
  /** Default a year after notBefore. */
  notAfter?: Date;
  publicKey: CryptoKey | PublicKey | Uint8Array;
  signingKey: CryptoKey;
  /** `{ hash }` for ECDSA keys (default SHA-256); RSA keys carry their hash. */
  signingAlgorithm?: Algorithm & { hash?: string | Algorithm };
  extensions?: Extension[];
}

export interface SelfSignedParams extends Omit<CertificateParams, 'subject' | 'issuer' | 'publicKey' | 'signingKey'> {
  name: NameInput;
  keys: CryptoKeyPair;
}

const hashName = (h: string | Algorithm | undefined): string | undefined => (typeof h === 'string' ? h : h?.name);

export const X509CertificateGenerator = {
  async createSelfSigned(p: SelfSignedParams): Promise<X509Certificate> {
    return X509CertificateGenerator.create({
      ...p,
      subject: p.name,
      issuer: p.name,
      publicKey: p.keys.publicKey,
      signingKey: p.keys.privateKey,
    });
  },

  /** x509.CreateCertificate: a v3 certificate with the extensions in the order given. */
  async create(p: CertificateParams): Promise<X509Certificate> {
    const keyAlg = p.signingKey.algorithm as RsaHashedKeyAlgorithm & EcKeyAlgorithm;
    const name = keyAlg.name;
    const hash = hashName(keyAlg.hash) ?? hashName(p.signingAlgorithm?.hash) ?? 'SHA-256';
    const sigAlg = encodeSignatureAlgorithm(name, hash);
    let serial: Uint8Array;
    if (p.serialNumber) serial = fromHex(p.serialNumber.length % 2 ? '0' + p.serialNumber : p.serialNumber);
    else {
      serial = crypto.getRandomValues(new Uint8Array(8));
      serial[0]! &= 0x7f;
      serial[0]! |= 0x01;
    }
    const notBefore = p.notBefore ?? new Date();
    const notAfter = p.notAfter ?? new Date(notBefore.getTime() + 365 * 86_400_000);
    const exts = p.extensions ?? [];
    const tbs = encodeSequence(
      encodeExplicit(0, encodeInt(2)),
      encodeUnsigned(serial),
      sigAlg,
      new Name(p.issuer ?? []).rawData,
      encodeSequence(encodeTime(notBefore), encodeTime(notAfter)),
      new Name(p.subject ?? []).rawData,
      await spkiOf(p.publicKey),
      ...(exts.length ? [encodeExplicit(3, encodeSequence(...exts.map((e) => e.rawData)))] : []),
    );
    const signParams = name === 'ECDSA' ? { name, hash } : { name };
    let sig = new Uint8Array(await crypto.subtle.sign(signParams, p.signingKey, tbs as BufferSource));
    if (name === 'ECDSA') sig = ecdsaRawToDER(sig) as Uint8Array<ArrayBuffer>;
    return new X509Certificate(encodeSequence(tbs, sigAlg, encodeBitString(sig)));
  },
};
