// The key pairs of a self-signed certificate (client-go cert.GenerateSelfSignedCertKey: a CA key
// and a leaf key), apart from the certificate code: key generation runs off the main thread on
// Node, so a caller can start it before loading the certificate stack and overlap the two.

export const rsaKeyParams: RsaHashedKeyGenParams = {
  name: 'RSASSA-PKCS1-v1_5',
  modulusLength: 2048,
  publicExponent: new Uint8Array([1, 0, 1]),
  hash: 'SHA-256',
};

export const ecKeyParams: EcKeyGenParams = { name: 'ECDSA', namedCurve: 'P-256' };

/**
 * The CA's and the leaf's key pairs, generated at once: RSA-2048 as upstream by default; ECDSA
 * P-256 for the loopback certificate, which only the server's own loopback client ever sees and
 * which is made at every start (an RSA-2048 pair costs 40–120 ms of CPU, a P-256 pair well under 1 ms).
 */
export function generateSelfSignedKeyPairs(
  kind: 'RSA' | 'ECDSA' = 'RSA',
): Promise<[ca: CryptoKeyPair, leaf: CryptoKeyPair]> {
  const params = kind === 'RSA' ? rsaKeyParams : ecKeyParams;
  return Promise.all([
    crypto.subtle.generateKey(params, true, ['sign', 'verify']),
    crypto.subtle.generateKey(params, true, ['sign', 'verify']),
  ]) as Promise<[CryptoKeyPair, CryptoKeyPair]>;
}
