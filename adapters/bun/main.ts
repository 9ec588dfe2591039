// `bun adapters/bun/main.ts`: serves on Bun with the settings from the environment:
// APISERVER_FLAGS, APISERVER_FILES*, APISERVER_V, APISERVER_CLIENT_CERT_HEADER, and PORT
// (default 6443), HOST (default 0.0.0.0), TLS_CERT_FILE / TLS_KEY_FILE (PEM; HTTPS + HTTP/2).

import { CLIENT_CERT_HEADER_VAR, settingsFromEnv } from '../../src/server/edge.ts';
import { serve } from './index.ts';

declare const Bun: { env: Record<string, string | undefined>; file(path: string): { text(): Promise<string> } };
declare const process: { on(signal: string, fn: () => void): void; exit(code: number): never };

const env = Bun.env;
try {
  const serving = await serve({
    ...settingsFromEnv(env),
    port: env.PORT ? Number(env.PORT) : 6443,
    hostname: env.HOST || '0.0.0.0',
    cert: env.TLS_CERT_FILE ? await Bun.file(env.TLS_CERT_FILE).text() : undefined,
    key: env.TLS_KEY_FILE ? await Bun.file(env.TLS_KEY_FILE).text() : undefined,
    clientCertHeader: env[CLIENT_CERT_HEADER_VAR] || undefined,
  });
  console.error(`Serving on ${env.TLS_CERT_FILE ? 'https' : 'http'}://${serving.hostname}:${serving.port}`);
  let stopping = false;
  const onSignal = () => {
    if (stopping) process.exit(1);
    stopping = true;
    void serving.shutdown().then(() => process.exit(0));
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
} catch (err) {
  console.error(`Error: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}
