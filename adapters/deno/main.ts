// `deno run --allow-net --allow-read --allow-write --allow-env adapters/deno/main.ts`: serves on Deno with the
// settings from the environment: APISERVER_FLAGS (kube-apiserver flags, including --secure-port,
// --bind-address, --tls-cert-file, --tls-private-key-file), APISERVER_FILES*, APISERVER_V,
// APISERVER_CLIENT_CERT_HEADER; PORT overrides --secure-port (platforms that assign one).
// SIGTERM/SIGINT start the graceful shutdown (as the Node CLI); a second signal exits at once.

import { CLIENT_CERT_HEADER_VAR, settingsFromEnv } from '../../src/app/edge.ts';
import { denoStoragePlatform, serve } from './mod.ts';

declare const Deno: {
  env: { toObject(): Record<string, string> };
  addSignalListener(signal: 'SIGTERM' | 'SIGINT', handler: () => void): void;
  exit(code: number): never;
};

const env = Deno.env.toObject();
try {
  const stop = new AbortController();
  let stopping = false;
  const onSignal = () => {
    if (stopping) Deno.exit(1);
    stopping = true;
    stop.abort();
  };
  Deno.addSignalListener('SIGTERM', onSignal);
  Deno.addSignalListener('SIGINT', onSignal);
  const serving = await serve({
    ...settingsFromEnv(env),
    // As the Node CLI: objects persist in the embedded SQLite file (registry.db in --cert-dir).
    storage: denoStoragePlatform(),
    port: env.PORT ? Number(env.PORT) : undefined,
    clientCertHeader: env[CLIENT_CERT_HEADER_VAR] || undefined,
    signal: stop.signal,
    onListen: ({ hostname, port }) => console.error(`Serving on ${hostname}:${port}`),
  });
  await serving.finished;
  Deno.exit(0);
} catch (err) {
  console.error(`Error: ${err instanceof Error ? err.message : String(err)}`);
  Deno.exit(1);
}
