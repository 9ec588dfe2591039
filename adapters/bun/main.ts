// `bun adapters/bun/main.ts`: serves on Bun with the settings from the environment:
// APISERVER_FLAGS (kube-apiserver flags, including --secure-port, --bind-address,
// --tls-cert-file, --tls-private-key-file, --shutdown-delay-duration), APISERVER_FILES*,
// APISERVER_V, APISERVER_CLIENT_CERT_HEADER; PORT overrides --secure-port. SIGTERM/SIGINT start
// the graceful shutdown; a second signal exits at once.

import { CLIENT_CERT_HEADER_VAR, settingsFromEnv } from '../../src/app/edge.ts';
import { bunStoragePlatform, serve } from './index.ts';

declare const Bun: { env: Record<string, string | undefined> };
declare const process: { on(signal: string, fn: () => void): void; exit(code: number): never };

const env = Bun.env;
try {
  const stop = new AbortController();
  let stopping = false;
  const onSignal = () => {
    if (stopping) process.exit(1);
    stopping = true;
    stop.abort();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  const serving = await serve({
    ...settingsFromEnv(env),
    // As the Node CLI: objects persist in the embedded SQLite file (registry.db in --cert-dir).
    storage: bunStoragePlatform(),
    port: env.PORT ? Number(env.PORT) : undefined,
    clientCertHeader: env[CLIENT_CERT_HEADER_VAR] || undefined,
    signal: stop.signal,
  });
  console.error(`Serving on ${serving.hostname}:${serving.port}`);
  await serving.finished;
  process.exit(0);
} catch (err) {
  console.error(`Error: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}
