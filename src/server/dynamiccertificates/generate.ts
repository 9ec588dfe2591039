// client-go cert.GenerateSelfSignedCertKeyWithOptions on WebCrypto (client-go/util/cert/cert.go): a
// throwaway self-signed CA and a serving leaf signed by it, RSA-2048 (or the caller's ECDSA keys),
// SHA-256, valid from one hour ago. Portable: runs wherever crypto.subtle does.

import * as x509 from './x509.ts';
import { encodePEM, pkcs8ToPkcs1 } from './pem.ts';
import { isIP } from '../../util/net.ts';
import { generateSelfSignedKeyPairs } from './rsa-keys.ts';

export interface SelfSignedCertKeyOptions {
  /** Goes into the CN (`<host>@<unix>`) and the SANs (IP SAN when it parses as an IP). */
  host: string;
  alternateIPs?: string[];
  alternateDNS?: string[];
  /** Validity in ms; default 365 days. */
  maxAge?: number;
  /** For tests: the clock. */
  now?: Date;
  /** Key pairs already being generated (generateSelfSignedKeyPairs), started before this module loaded. */
  keys?: Promise<[ca: CryptoKeyPair, leaf: CryptoKeyPair]>;
}

export interface CertKeyPEM {
  /** Leaf followed by the CA. */
  cert: string;
  /** The leaf key: RSA as `RSA PRIVATE KEY` (PKCS#1), as Go writes it; ECDSA as `PRIVATE KEY` (PKCS#8). */
  key: string;
}

const day = 24 * 60 * 60 * 1000;
const KU = x509.KeyUsageFlags;

/** A random serial in [1, 2^63), hex. */
function randomSerial(): string {
  const b = crypto.getRandomValues(new Uint8Array(8));
  b[0]! &= 0x7f;
  if (b.every((x) => x === 0)) b[7] = 1;
  return [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
}

export async function generateSelfSignedCertKey(opts: SelfSignedCertKeyOptions): Promise<CertKeyPEM> {
  const now = opts.now ?? new Date();
  const notBefore = new Date(now.getTime() - 60 * 60 * 1000);
  const notAfter = new Date(notBefore.getTime() + (opts.maxAge ?? 365 * day));
  const unix = Math.floor(now.getTime() / 1000);
  // Both keys at once: WebCrypto generates them off the main thread on Node.
  const [caKeys, keys] = await (opts.keys ?? generateSelfSignedKeyPairs());
  const rsa = caKeys.privateKey.algorithm.name !== 'ECDSA';
  const signingAlgorithm = { name: caKeys.privateKey.algorithm.name, hash: 'SHA-256' };
  // Only RSA keys get KeyEncipherment (crypto/tls/generate_cert.go).
  const encipherment = rsa ? KU.keyEncipherment : 0;

  const caSubject: x509.JsonName = [{ CN: [`${opts.host}-ca@${unix}`] }];
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomSerial(),
    name: caSubject,
    notBefore,
    notAfter,
    keys: caKeys,
    signingAlgorithm,
    extensions: [
      new x509.KeyUsagesExtension(encipherment | KU.digitalSignature | KU.keyCertSign, true),
      new x509.BasicConstraintsExtension(true, undefined, true),
      await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });

  const ips: string[] = [];
  const dns: string[] = [];
  if (isIP(opts.host)) ips.push(opts.host);
  else dns.push(opts.host);
  ips.push(...(opts.alternateIPs ?? []));
  dns.push(...(opts.alternateDNS ?? []));
  const san: x509.JsonGeneralNames = [
    ...dns.map((value) => ({ type: 'dns' as const, value })),
    ...ips.map((value) => ({ type: 'ip' as const, value })),
  ];

  const leaf = await x509.X509CertificateGenerator.create({
    serialNumber: randomSerial(),
    subject: [{ CN: [`${opts.host}@${unix}`] }],
    issuer: ca.subjectName,
    notBefore,
    notAfter,
    publicKey: keys.publicKey,
    signingKey: caKeys.privateKey,
    signingAlgorithm,
    extensions: [
      new x509.KeyUsagesExtension(encipherment | KU.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.BasicConstraintsExtension(false, undefined, true),
      await x509.AuthorityKeyIdentifierExtension.create(caKeys.publicKey),
      ...(san.length ? [new x509.SubjectAlternativeNameExtension(san)] : []),
    ],
  });

  const pkcs8 = new Uint8Array((await crypto.subtle.exportKey('pkcs8', keys.privateKey)) as ArrayBuffer);
  return {
    cert: leaf.toString('pem') + '\n' + ca.toString('pem') + '\n',
    key: rsa ? encodePEM('RSA PRIVATE KEY', pkcs8ToPkcs1(pkcs8)) : encodePEM('PRIVATE KEY', pkcs8),
  };
}
