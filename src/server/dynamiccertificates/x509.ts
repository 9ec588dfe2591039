// The certificate code's X.509 module (src/util/x509.ts: own DER parser and generator on WebCrypto).
export * from '../../util/x509.ts';
