// Bun entry of the conformance suite: the Bun adapter with the shared settings, TLS from
// CONFORMANCE_CERT / CONFORMANCE_KEY (PEM) through --tls-cert-file/--tls-private-key-file, an
// ephemeral port announced on stdout; SIGTERM runs the graceful shutdown (1s delay).
import { serve } from '../../adapters/bun/index.ts';
import { CLIENT_CERT_HEADER, conformanceSettings, tlsFromFlags, SHUTDOWN_FLAGS } from './setup.ts';

declare const Bun: { env: Record<string, string | undefined> };
declare const process: { on(signal: string, fn: () => void): void; exit(code: number): never };

const stop = new AbortController();
process.on('SIGTERM', () => stop.abort());
const tls = tlsFromFlags(Bun.env.CONFORMANCE_CERT!, Bun.env.CONFORMANCE_KEY!);
const serving = await serve({
  ...conformanceSettings(),
  ...tls,
  flags: `${tls.flags} ${SHUTDOWN_FLAGS}`,
  port: 0,
  hostname: '127.0.0.1',
  clientCertHeader: CLIENT_CERT_HEADER,
  signal: stop.signal,
});
console.log(`LISTENING ${serving.port}`);
await serving.finished;
console.log('SHUTDOWN COMPLETE');
process.exit(0);
