// tls.X509KeyPair and cert.ParseCertsPEM with Go's error texts, portable (WebCrypto): parse a
// PEM certificate chain and private key, and check that the key belongs to the leaf.

import * as x509 from './x509.ts';
import { decodePEM, parsePrivateKeyBlock, type PrivateKeyInfo } from './pem.ts';

export interface CertKeyPair {
  /** DER certificates, leaf first, as in the file. */
  chain: Uint8Array[];
  leaf: x509.X509Certificate;
  key: PrivateKeyInfo;
}

/** Parses every CERTIFICATE block (cert.ParseCertsPEM). */
export function parseCertsPEM(pem: string): x509.X509Certificate[] {
  const certs: x509.X509Certificate[] = [];
  for (const b of decodePEM(pem)) {
    if (b.type !== 'CERTIFICATE') continue;
    try {
      certs.push(new x509.X509Certificate(b.bytes as Uint8Array<ArrayBuffer>));
    } catch (err) {
      throw new Error(`x509: malformed certificate: ${(err as Error).message}`);
    }
  }
  if (!certs.length) throw new Error('data does not contain any valid RSA or ECDSA certificates');
  return certs;
}

/**
 * tls.X509KeyPair: the certificate chain and the key, with the key checked against the leaf.
 * Error texts are Go's (`tls: private key does not match public key` …).
 */
export async function parseCertKeyPair(certPEM: string, keyPEM: string): Promise<CertKeyPair> {
  const blocks = decodePEM(certPEM);
  const chain = blocks.filter((b) => b.type === 'CERTIFICATE').map((b) => b.bytes);
  if (!chain.length) {
    if (!blocks.length) throw new Error('tls: failed to find any PEM data in certificate input');
    throw new Error(
      `tls: failed to find "CERTIFICATE" PEM block in certificate input after skipping PEM blocks of the following types: [${blocks.map((b) => b.type).join(' ')}]`,
    );
  }
  const keyBlocks = decodePEM(keyPEM);
  const keyBlock = keyBlocks.find((b) => b.type === 'PRIVATE KEY' || b.type.endsWith(' PRIVATE KEY'));
  if (!keyBlock) {
    if (!keyBlocks.length) throw new Error('tls: failed to find any PEM data in key input');
    if (keyBlocks[0]!.type === 'CERTIFICATE')
      throw new Error('tls: found a certificate rather than a key in the PEM for the private key');
    throw new Error(
      `tls: failed to find PEM block with type ending in "PRIVATE KEY" in key input after skipping PEM blocks of the following types: [${keyBlocks.map((b) => b.type).join(' ')}]`,
    );
  }
  let leaf: x509.X509Certificate;
  try {
    leaf = new x509.X509Certificate(chain[0]! as Uint8Array<ArrayBuffer>);
  } catch (err) {
    throw new Error(`x509: malformed certificate: ${(err as Error).message}`);
  }
  const key = parsePrivateKeyBlock(keyBlock);
  if (!(await keyMatchesCertificate(key, leaf))) throw new Error('tls: private key does not match public key');
  return { chain, leaf, key };
}

/** Compares the public half of the private key with the certificate's public key (as JWK). */
async function keyMatchesCertificate(key: PrivateKeyInfo, cert: x509.X509Certificate): Promise<boolean> {
  const alg = importAlgorithm(key);
  if (!alg) return true; // unknown algorithm: the TLS stack checks it when it loads the pair
  let priv: JsonWebKey;
  try {
    priv = await crypto.subtle.exportKey(
      'jwk',
      await crypto.subtle.importKey('pkcs8', key.pkcs8 as BufferSource, alg, true, ['sign']),
    );
  } catch {
    throw new Error('tls: failed to parse private key');
  }
  let pub: JsonWebKey;
  try {
    pub = await crypto.subtle.exportKey(
      'jwk',
      await crypto.subtle.importKey('spki', cert.publicKey.rawData, alg, true, ['verify']),
    );
  } catch {
    return false; // the certificate's key is of another type
  }
  if (key.kind === 'RSA') return priv.n === pub.n && priv.e === pub.e;
  return priv.x === pub.x && priv.y === pub.y && priv.crv === pub.crv;
}

function importAlgorithm(key: PrivateKeyInfo): RsaHashedImportParams | EcKeyImportParams | Algorithm | undefined {
  switch (key.kind) {
    case 'RSA':
      return { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
    case 'EC':
      return key.namedCurve ? { name: 'ECDSA', namedCurve: key.namedCurve } : undefined;
    case 'Ed25519':
      return { name: 'Ed25519' };
    default:
      return undefined;
  }
}
