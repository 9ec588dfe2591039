// Bun entry of the conformance suite: the Bun adapter with the shared settings, TLS from
// CONFORMANCE_CERT / CONFORMANCE_KEY (PEM) through --tls-cert-file/--tls-private-key-file, an
// ephemeral port announced on stdout.
import { serve } from '../../adapters/bun/index.ts';
import { CLIENT_CERT_HEADER, conformanceSettings, tlsFromFlags } from './setup.ts';

declare const Bun: { env: Record<string, string | undefined> };

const serving = await serve({
  ...conformanceSettings(),
  port: 0,
  hostname: '127.0.0.1',
  ...tlsFromFlags(Bun.env.CONFORMANCE_CERT!, Bun.env.CONFORMANCE_KEY!),
  clientCertHeader: CLIENT_CERT_HEADER,
});
console.log(`LISTENING ${serving.port}`);
