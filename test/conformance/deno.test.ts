// Conformance target: Deno (Deno.serve over TLS), one process for the file. Deno comes from npm;
// --node-modules-dir=manual reuses npm's tree (runtimes reference §0.9), --no-lock leaves no
// deno.lock behind.
import { fakeCertHeader, registerConformance, transportCase } from './cases.ts';
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
  transportCase('client IP and forwarded client certificate', { [CLIENT_CERT_HEADER]: fakeCertHeader('deno-cert') }, {
    remoteAddress: '127.0.0.1',
    peerCertificates: ['deno-cert'],
    forwardedHeaderSeen: null,
    waitUntil: false,
  }),
]);
