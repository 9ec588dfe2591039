// One conformance target for a runtime that serves TLS in its own process (Deno, Bun): the
// server is spawned once per file; besides the shared cases it checks HTTP/2 by ALPN, the
// graceful shutdown on SIGTERM, and what the Transport carries.
import assert from 'node:assert/strict';
import { X509_USER, registerConformance, transportCase } from './cases.ts';
import { CLIENT_CERT_RFC9440 } from './fixtures.ts';
import { CLIENT_CERT_HEADER } from './setup.ts';
import {
  checkGracefulShutdown,
  h2Get,
  httpSender,
  selfSignedServingCert,
  spawnUntil,
  type Spawned,
} from './harness.ts';

export interface ProcessRuntime {
  name: string;
  command: string;
  args: string[];
  env?: Record<string, string>;
  timeoutMs: number;
}

export function registerProcessRuntime(rt: ProcessRuntime): void {
  let proc: Spawned | undefined;
  let sender: ReturnType<typeof httpSender> | undefined;
  let base = '';
  let ca = '';
  registerConformance(
    rt.name,
    {
      async start() {
        const { cert, key } = await selfSignedServingCert();
        proc = await spawnUntil(rt.command, rt.args, {
          ready: /LISTENING (\d+)/,
          timeoutMs: rt.timeoutMs,
          env: { NO_COLOR: '1', ...rt.env, CONFORMANCE_CERT: cert, CONFORMANCE_KEY: key },
        });
        base = `https://127.0.0.1:${proc.match[1]}`;
        ca = cert;
        sender = httpSender(base, cert);
        return sender.send;
      },
      async stop() {
        sender?.close();
        await proc?.stop();
      },
      checks: {
        'HTTP/2 by ALPN': async () => {
          const r = await h2Get(base, ca, '/healthz');
          assert.equal(r.alpn, 'h2');
          assert.equal(r.status, 200);
          assert.equal(r.body, 'ok');
        },
        'SIGTERM: readyz fails during --shutdown-delay-duration, then a clean exit': async () => {
          await checkGracefulShutdown(proc!, sender!.send);
        },
      },
    },
    [
      transportCase(
        'x509: the client certificate from the trusted header authenticates',
        { [CLIENT_CERT_HEADER]: CLIENT_CERT_RFC9440 },
        {
          user: X509_USER,
          peerCertificates: 1,
          forwardedHeaderSeen: null,
        },
      ),
      transportCase(
        'client IP, no certificate without the header',
        {},
        {
          remoteAddress: '127.0.0.1',
          peerCertificates: 0,
          waitUntil: false,
        },
      ),
    ],
  );
}
