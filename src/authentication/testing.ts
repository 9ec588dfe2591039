// Small helpers for authentication tests (not exported from the package).

import { newRequestContext, type RequestContext, type Transport } from '../endpoints/request/context.ts';

export function ctxFor(
  headers: Record<string, string> | [string, string][] = {},
  transport?: Transport,
  url = 'https://example.test/api',
): RequestContext {
  return newRequestContext(new Request(url, { headers }), transport);
}

import * as x509 from '../util/x509.ts';

const ecAlg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const day = 86_400_000;

export interface TestCert {
  cert: x509.X509Certificate;
  keys: CryptoKeyPair;
  der: Uint8Array;
  pem: string;
  keyPem: string;
}

async function finish(cert: x509.X509Certificate, keys: CryptoKeyPair): Promise<TestCert> {
  const pkcs8 = await crypto.subtle.exportKey('pkcs8', keys.privateKey);
  return {
    cert,
    keys,
    der: new Uint8Array(cert.rawData),
    pem: cert.toString('pem'),
    keyPem: x509.PemConverter.encode(pkcs8, 'PRIVATE KEY'),
  };
}

/** A self-signed CA. */
export async function makeCA(name = 'CN=test-ca', opts: { notBefore?: Date; notAfter?: Date } = {}): Promise<TestCert> {
  const keys = (await crypto.subtle.generateKey(ecAlg, true, ['sign', 'verify'])) as CryptoKeyPair;
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name,
    notBefore: opts.notBefore ?? new Date(Date.now() - day),
    notAfter: opts.notAfter ?? new Date(Date.now() + day),
    keys,
    signingAlgorithm: ecAlg,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature,
        true,
      ),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return finish(cert, keys);
}

/** A certificate signed by `issuer`. */
export async function makeCert(
  issuer: TestCert,
  subject: string,
  opts: {
    ca?: boolean;
    eku?: string[] | null;
    notBefore?: Date;
    notAfter?: Date;
    serial?: string;
    dns?: string[];
    ips?: string[];
  } = {},
): Promise<TestCert> {
  const keys = (await crypto.subtle.generateKey(ecAlg, true, ['sign', 'verify'])) as CryptoKeyPair;
  const extensions: x509.Extension[] = [
    new x509.BasicConstraintsExtension(!!opts.ca, undefined, true),
    await x509.AuthorityKeyIdentifierExtension.create(issuer.keys.publicKey),
    await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
  ];
  if (opts.ca)
    extensions.push(
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.digitalSignature, true),
    );
  else
    extensions.push(
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
    );
  const eku = opts.eku === undefined ? (opts.ca ? null : [x509.ExtendedKeyUsage.clientAuth]) : opts.eku;
  if (eku) extensions.push(new x509.ExtendedKeyUsageExtension(eku));
  const san = [
    ...(opts.dns ?? []).map((value) => ({ type: 'dns' as const, value })),
    ...(opts.ips ?? []).map((value) => ({ type: 'ip' as const, value })),
  ];
  if (san.length) extensions.push(new x509.SubjectAlternativeNameExtension(san));
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: opts.serial ?? '0a',
    subject,
    issuer: issuer.cert.subject,
    notBefore: opts.notBefore ?? new Date(Date.now() - day),
    notAfter: opts.notAfter ?? new Date(Date.now() + day),
    publicKey: keys.publicKey,
    signingKey: issuer.keys.privateKey,
    signingAlgorithm: ecAlg,
    extensions,
  });
  return finish(cert, keys);
}
