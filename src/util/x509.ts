// @peculiar/x509 with its Reflect polyfill loaded first (tsyringe needs it: without it the library
// throws "tsyringe requires a reflect polyfill"). The one place src/ imports either: take x509
// from here (the @peculiar/asn1-* packages need no polyfill).
import 'reflect-metadata';
export * from '@peculiar/x509';
