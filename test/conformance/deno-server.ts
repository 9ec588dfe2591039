// Deno entry of the conformance suite: the Deno adapter with the shared settings, TLS from
// CONFORMANCE_CERT / CONFORMANCE_KEY (PEM) through --tls-cert-file/--tls-private-key-file, an
// ephemeral port announced on stdout.
import { serve } from '../../adapters/deno/mod.ts';
import { CLIENT_CERT_HEADER, conformanceSettings, tlsFromFlags } from './setup.ts';

declare const Deno: { env: { get(name: string): string | undefined } };

await serve({
  ...conformanceSettings(),
  port: 0,
  hostname: '127.0.0.1',
  ...tlsFromFlags(Deno.env.get('CONFORMANCE_CERT')!, Deno.env.get('CONFORMANCE_KEY')!),
  clientCertHeader: CLIENT_CERT_HEADER,
  onListen: ({ port }) => console.log(`LISTENING ${port}`),
});
