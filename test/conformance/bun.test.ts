// Conformance target: Bun (Bun.serve over TLS), one process for the file. Bun comes from npm.
import { fakeCertHeader, registerConformance, transportCase } from './cases.ts';
import { CLIENT_CERT_HEADER } from './setup.ts';
import { BIN, httpSender, selfSignedServingCert, spawnUntil, type Spawned } from './harness.ts';

let proc: Spawned | undefined;
let close = () => {};
registerConformance('Bun (Bun.serve, TLS)', {
  async start() {
    const { cert, key } = await selfSignedServingCert();
    proc = await spawnUntil(BIN + 'bun', ['test/conformance/bun-server.ts'], {
      ready: /LISTENING (\d+)/,
      timeoutMs: 30_000,
      env: { NO_COLOR: '1', CONFORMANCE_CERT: cert, CONFORMANCE_KEY: key },
    });
    const s = httpSender(`https://127.0.0.1:${proc.match[1]}`, cert);
    close = s.close;
    return s.send;
  },
  async stop() {
    close();
    await proc?.stop();
  },
}, [
  transportCase('client IP and forwarded client certificate', { [CLIENT_CERT_HEADER]: fakeCertHeader('bun-cert') }, {
    remoteAddress: '127.0.0.1',
    peerCertificates: ['bun-cert'],
    forwardedHeaderSeen: null,
    waitUntil: false,
  }),
]);
