// Deno entry of the conformance suite: the Deno adapter with the shared settings, TLS from
// CONFORMANCE_CERT / CONFORMANCE_KEY (PEM) through --tls-cert-file/--tls-private-key-file, an
// ephemeral port announced on stdout; SIGTERM runs the graceful shutdown (1s delay).
import { serve } from '../../adapters/deno/mod.ts';
import { CLIENT_CERT_HEADER, conformanceSettings, tlsFromFlags, SHUTDOWN_FLAGS } from './setup.ts';

declare const Deno: {
  env: { get(name: string): string | undefined };
  addSignalListener(signal: 'SIGTERM', handler: () => void): void;
  exit(code: number): never;
};

const stop = new AbortController();
Deno.addSignalListener('SIGTERM', () => stop.abort());
const tls = tlsFromFlags(Deno.env.get('CONFORMANCE_CERT')!, Deno.env.get('CONFORMANCE_KEY')!);
const serving = await serve({
  ...conformanceSettings(),
  ...tls,
  flags: `${tls.flags} ${SHUTDOWN_FLAGS}`,
  port: 0,
  hostname: '127.0.0.1',
  clientCertHeader: CLIENT_CERT_HEADER,
  signal: stop.signal,
  onListen: ({ port }) => console.log(`LISTENING ${port}`),
});
await serving.finished;
console.log('SHUTDOWN COMPLETE');
Deno.exit(0);
