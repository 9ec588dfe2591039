// @peculiar/x509 with its Reflect polyfill loaded first (tsyringe needs it: without it
// the library throws "tsyringe requires a reflect polyfill"). Import x509 only through this file.
import 'reflect-metadata';
export * from '@peculiar/x509';
