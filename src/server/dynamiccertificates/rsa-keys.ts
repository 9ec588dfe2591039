// The RSA-2048 key pairs of a self-signed certificate (client-go cert.GenerateSelfSignedCertKey:
// a CA key and a leaf key), apart from the certificate code: key generation runs off the main
// thread on Node, so a caller can start it before loading the certificate stack and overlap the two.

export const rsaKeyParams: RsaHashedKeyGenParams = {
  name: 'RSASSA-PKCS1-v1_5',
  modulusLength: 2048,
  publicExponent: new Uint8Array([1, 0, 1]),
  hash: 'SHA-256',
};

/** The CA's and the leaf's key pairs, generated at once. */
export function generateSelfSignedKeyPairs(): Promise<[ca: CryptoKeyPair, leaf: CryptoKeyPair]> {
  return Promise.all([
    crypto.subtle.generateKey(rsaKeyParams, true, ['sign', 'verify']),
    crypto.subtle.generateKey(rsaKeyParams, true, ['sign', 'verify']),
  ]) as Promise<[CryptoKeyPair, CryptoKeyPair]>;
}
