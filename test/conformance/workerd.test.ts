// Conformance target: local workerd through `wrangler dev` (test/conformance/wrangler.toml),
// started once for the file. wrangler needs Node >= 22.12: node_modules/.bin comes first on PATH.
import { X509_USER, apiCases, crdCases, dateCase, registerConformance, transportCase } from './cases.ts';

const watchCaseName = apiCases.find((c) => c.name.startsWith('API: watch'))!.name;
const crdWatchCaseName = crdCases.find((c) => c.name.startsWith('CRD: watch'))!.name;
const memoryWatch =
  "the conformance Worker keeps the memory engine in the isolate: its watch cache's reflector does not advance between requests (observed: current revision 1 after 8 writes); production Workers use the Durable Object store";
import { CLIENT_CERT_RFC9440 } from './fixtures.ts';
import { CLIENT_CERT_HEADER } from './setup.ts';
import { BIN, REPO_ROOT, httpSender, spawnUntil, type Spawned } from './harness.ts';

function cfBlob(certVerified: string): string {
  return JSON.stringify({
    httpProtocol: 'HTTP/2',
    tlsVersion: 'TLSv1.3',
    tlsClientAuth: {
      certPresented: '1',
      certVerified,
      certRevoked: '0',
      certRFC9440: CLIENT_CERT_RFC9440,
      certChainRFC9440: '',
    },
  });
}

let proc: Spawned | undefined;
let close = () => {};
registerConformance(
  'workerd (wrangler dev)',
  {
    knownDifferences: {
      [watchCaseName]: memoryWatch,
      [crdWatchCaseName]: memoryWatch,
    },
    async start() {
      proc = await spawnUntil(
        BIN + 'wrangler',
        [
          'dev',
          '--config',
          'test/conformance/wrangler.toml',
          '--ip',
          '127.0.0.1',
          '--port',
          '0',
          '--inspector-port',
          '0',
          '--show-interactive-dev-session=false',
          '--log-level',
          'info',
        ],
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
  },
  [
    // Local workerd writes no Date; the adapter adds it (adapters/cloudflare/worker.ts withDate).
    dateCase,
    transportCase(
      'x509: the client certificate from the trusted header authenticates',
      { [CLIENT_CERT_HEADER]: CLIENT_CERT_RFC9440 },
      {
        user: X509_USER,
        peerCertificates: 1,
        forwardedHeaderSeen: null,
      },
    ),
    // `request.cf` injected through miniflare's MF-CF-Blob header (what Cloudflare's edge sets for
    // an mTLS hostname): the string-valued tlsClientAuth fields, the protocol and the TLS version.
    transportCase(
      'x509: request.cf.tlsClientAuth (verified certificate) authenticates',
      { 'MF-CF-Blob': cfBlob('SUCCESS'), 'cf-connecting-ip': '198.51.100.7' },
      {
        user: X509_USER,
        peerCertificates: 1,
        remoteAddress: '198.51.100.7',
        protocol: 'h2',
        tlsVersion: 'TLSv1.3',
      },
    ),
    transportCase(
      'x509: request.cf.tlsClientAuth with certVerified FAILED is ignored',
      { 'MF-CF-Blob': cfBlob('FAILED:unable to get local issuer certificate') },
      {
        user: { name: 'system:anonymous', uid: '', groups: ['system:unauthenticated'] },
        peerCertificates: 0,
      },
    ),
    transportCase(
      'waitUntil from the execution context, no certificate without the header',
      {},
      {
        peerCertificates: 0,
        waitUntil: true,
      },
    ),
  ],
);
