// Conformance target: Deno (Deno.serve over TLS), one process for the file. Deno comes from npm;
// --node-modules-dir=manual reuses npm's tree (runtimes reference §0.9), --no-lock leaves no
// deno.lock behind.
import { X509_USER, registerConformance, transportCase } from './cases.ts';
import { CLIENT_CERT_RFC9440 } from './fixtures.ts';
import { CLIENT_CERT_HEADER } from './setup.ts';
import assert from 'node:assert/strict';
import { BIN, checkGracefulShutdown, h2Get, httpSender, selfSignedServingCert, spawnUntil, type Spawned } from './harness.ts';

let proc: Spawned | undefined;
let close = () => {};
let sender: ReturnType<typeof httpSender> | undefined;
let base = '';
let ca = '';
registerConformance('Deno (Deno.serve, TLS)', {
  async start() {
    const { cert, key } = await selfSignedServingCert();
    proc = await spawnUntil(
      BIN + 'deno',
      ['run', '--node-modules-dir=manual', '--no-lock', '--unstable-no-legacy-abort', '--allow-net=127.0.0.1', '--allow-env', '--allow-read', 'test/conformance/deno-server.ts'],
      { ready: /LISTENING (\d+)/, timeoutMs: 60_000, env: { DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1', CONFORMANCE_CERT: cert, CONFORMANCE_KEY: key } },
    );
    base = `https://127.0.0.1:${proc.match[1]}`;
    ca = cert;
    const s = httpSender(base, cert);
    sender = s;
    close = s.close;
    return s.send;
  },
  async stop() {
    close();
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
}, [
  transportCase('x509: the client certificate from the trusted header authenticates', { [CLIENT_CERT_HEADER]: CLIENT_CERT_RFC9440 }, {
      user: X509_USER,
      peerCertificates: 1,
      forwardedHeaderSeen: null,
    }),
    transportCase('client IP, no certificate without the header', {}, {
    remoteAddress: '127.0.0.1',
    peerCertificates: 0,
    waitUntil: false,
  }),
]);
