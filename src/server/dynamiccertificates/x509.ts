// @peculiar/x509 for the certificate code, through src/util/x509.ts (the one reflect-metadata import site).
export * from '../../util/x509.ts';
