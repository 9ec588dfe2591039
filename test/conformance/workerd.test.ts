// Conformance target: local workerd through `wrangler dev` (test/conformance/wrangler.toml),
// started once for the file. wrangler needs Node >= 22.12: node_modules/.bin comes first on PATH.
import { X509_USER, registerConformance, transportCase } from './cases.ts';
import { CLIENT_CERT_RFC9440 } from './fixtures.ts';
import { CLIENT_CERT_HEADER } from './setup.ts';
import { BIN, REPO_ROOT, httpSender, spawnUntil, type Spawned } from './harness.ts';

let proc: Spawned | undefined;
let close = () => {};
registerConformance('workerd (wrangler dev)', {
  async start() {
    proc = await spawnUntil(
      BIN + 'wrangler',
      ['dev', '--config', 'test/conformance/wrangler.toml', '--ip', '127.0.0.1', '--port', '0', '--inspector-port', '0', '--show-interactive-dev-session=false', '--log-level', 'info'],
      {
        ready: /Ready on http:\/\/127\.0\.0\.1:(\d+)/,
        timeoutMs: 60_000,
        env: { PATH: `${BIN}:${process.env.PATH}`, WRANGLER_SEND_METRICS: 'false', CI: '1', NO_COLOR: '1' },
        cwd: REPO_ROOT,
      },
    );
    const s = httpSender(`http://127.0.0.1:${proc.match[1]}`);
    close = s.close;
    return s.send;
  },
  async stop() {
    close();
    await proc?.stop();
  },
}, [
  transportCase('x509: the client certificate from the trusted header authenticates', { [CLIENT_CERT_HEADER]: CLIENT_CERT_RFC9440 }, {
      user: X509_USER,
      peerCertificates: 1,
      forwardedHeaderSeen: null,
    }),
    transportCase('waitUntil from the execution context, no certificate without the header', {}, {
    peerCertificates: 0,
    waitUntil: true,
  }),
]);
