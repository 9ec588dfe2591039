// @peculiar/x509 with its Reflect polyfill loaded first (runtimes-hono-jose.md §0.6: without it
// the library throws "tsyringe requires a reflect polyfill"). Import x509 only through this file.
import 'reflect-metadata';
export * from '@peculiar/x509';
