// Deno entry of the conformance suite: the Deno adapter with the shared settings, TLS from
// CONFORMANCE_CERT / CONFORMANCE_KEY (PEM), an ephemeral port announced on stdout.
import { serve } from '../../adapters/deno/mod.ts';
import { CLIENT_CERT_HEADER, conformanceSettings } from './setup.ts';

declare const Deno: { env: { get(name: string): string | undefined } };

await serve({
  ...conformanceSettings(),
  port: 0,
  hostname: '127.0.0.1',
  cert: Deno.env.get('CONFORMANCE_CERT'),
  key: Deno.env.get('CONFORMANCE_KEY'),
  clientCertHeader: CLIENT_CERT_HEADER,
  onListen: ({ port }) => console.log(`LISTENING ${port}`),
});
