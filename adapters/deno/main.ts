// `deno run --allow-net --allow-read --allow-env adapters/deno/main.ts`: serves on Deno with the
// settings from the environment: APISERVER_FLAGS, APISERVER_FILES*, APISERVER_V,
// APISERVER_CLIENT_CERT_HEADER, and PORT (default 6443), HOST (default 0.0.0.0),
// TLS_CERT_FILE / TLS_KEY_FILE (PEM; HTTPS + HTTP/2 when both are set).

import { CLIENT_CERT_HEADER_VAR, settingsFromEnv } from '../../src/server/edge.ts';
import { serve } from './mod.ts';

declare const Deno: {
  env: { toObject(): Record<string, string> };
  readTextFile(path: string): Promise<string>;
  addSignalListener(signal: 'SIGTERM' | 'SIGINT', handler: () => void): void;
  exit(code: number): never;
};

const env = Deno.env.toObject();
try {
  const stop = new AbortController();
  const serving = await serve({
    ...settingsFromEnv(env),
    port: env.PORT ? Number(env.PORT) : 6443,
    hostname: env.HOST || '0.0.0.0',
    cert: env.TLS_CERT_FILE ? await Deno.readTextFile(env.TLS_CERT_FILE) : undefined,
    key: env.TLS_KEY_FILE ? await Deno.readTextFile(env.TLS_KEY_FILE) : undefined,
    clientCertHeader: env[CLIENT_CERT_HEADER_VAR] || undefined,
    signal: stop.signal,
    onListen: ({ hostname, port }) => console.error(`Serving on ${env.TLS_CERT_FILE ? 'https' : 'http'}://${hostname}:${port}`),
  });
  let stopping = false;
  const onSignal = () => {
    if (stopping) Deno.exit(1);
    stopping = true;
    stop.abort();
  };
  Deno.addSignalListener('SIGTERM', onSignal);
  Deno.addSignalListener('SIGINT', onSignal);
  await serving.finished;
} catch (err) {
  console.error(`Error: ${err instanceof Error ? err.message : String(err)}`);
  Deno.exit(1);
}
