// What the Worker build (wrangler.toml [alias]) loads instead of the serving-certificate code,
// src/server/dynamiccertificates/generate.ts and content.ts: the platform terminates TLS and
// createWorker() leaves `servesTLS` unset, so SecureServingOptions and the client-CA setup never
// load them there (both import them on demand, past that check). Leaving them out takes the
// certificate writer and the file-watching content providers out of the bundle (~2.5 KiB gzip).

const unavailable = (): never => {
  throw new Error('TLS serving is not part of the Worker build: the platform terminates TLS');
};

/** generate.ts's export: not available in the Worker build. */
export function generateSelfSignedCertKey(): Promise<never> {
  return Promise.resolve().then(unavailable);
}

/** content.ts's providers: not available in the Worker build. */
export const StaticCertKeyContent = { create: unavailable };
export const DynamicCertKeyPairContent = { create: unavailable };
export const DynamicFileCAContent = { create: unavailable };
export class UnionCAContent {
  constructor() {
    unavailable();
  }
}
