// Conformance target: the Node TLS listener (adapters/node, HTTP/2 + HTTP/1.1 by ALPN) on an
// ephemeral port, built from the same flags as the CLI plus the conformance settings.
import assert from 'node:assert/strict';
import { NodeServingListener } from '../../adapters/node/listener.ts';
import { NodeFileSystem } from '../../adapters/node/fs.ts';
import { buildServerFromFlags } from '../../src/app/build.ts';
import { LayeredFileSystem } from '../../src/app/edge.ts';
import { splitArgs } from '../../src/server/options/args.ts';
import { X509_USER, registerConformance, transportCase } from './cases.ts';
import { CLIENT_CERT_PEM, CLIENT_CERT_RFC9440, CLIENT_KEY_PEM } from './fixtures.ts';
import { StaticCAContent } from '../../src/server/dynamiccertificates/content.ts';
import { CLIENT_CERT_HEADER, conformanceSettings, tlsFromFlags } from './setup.ts';
import { h2Get, httpSender, selfSignedServingCert } from './harness.ts';

const stop = new AbortController();
let running: Promise<void> | undefined;
let close = () => {};
let base = '';
let ca = '';
registerConformance(
  'Node TLS listener',
  {
    async start() {
      const { cert, key } = await selfSignedServingCert();
      const settings = { ...conformanceSettings(), ...tlsFromFlags(cert, key) };
      const built = await buildServerFromFlags([...splitArgs(settings.flags), '--bind-address=127.0.0.1'], {
        fileSystem: new LayeredFileSystem(settings.files ?? {}, new NodeFileSystem()),
        logger: settings.logger,
        configure: settings.configure,
        servesTLS: true,
      });
      // As the CLI does: client certificates are requested when --client-ca-file is set.
      const clientCA = built.config.authentication.clientCA;
      const listener = new NodeServingListener(built.config.secureServing!, {
        port: 0,
        logger: settings.logger,
        clientCA: clientCA ? new StaticCAContent('client-ca', clientCA) : undefined,
      });
      await listener.listen();
      running = built.server.run({ signal: stop.signal, listener });
      base = `https://127.0.0.1:${listener.address().port}`;
      ca = cert;
      const s = httpSender(base, cert);
      close = s.close;
      return s.send;
    },
    async stop() {
      close();
      stop.abort();
      await running;
    },
    checks: {
      'x509: a client certificate in the TLS handshake authenticates': async () => {
        const withCert = httpSender(base, ca, { cert: CLIENT_CERT_PEM, key: CLIENT_KEY_PEM });
        try {
          const r = await withCert.send({ path: '/conformance/transport' });
          assert.equal(r.status, 200);
          const v = JSON.parse(r.body);
          assert.deepEqual(v.user, X509_USER);
          assert.ok(v.peerCertificates >= 1);
        } finally {
          withCert.close();
        }
      },
      'HTTP/2 by ALPN': async () => {
        const r = await h2Get(base, ca, '/healthz');
        assert.equal(r.alpn, 'h2');
        assert.equal(r.status, 200);
        assert.equal(r.body, 'ok');
      },
    },
  },
  [
    transportCase(
      'client IP and protocol from the socket',
      {},
      {
        remoteAddress: '127.0.0.1',
        protocol: 'http/1.1',
        peerCertificates: 0,
      },
    ),
    transportCase(
      'x509: a certificate header is not trusted by the Node listener',
      { [CLIENT_CERT_HEADER]: CLIENT_CERT_RFC9440 },
      {
        user: { name: 'system:anonymous', uid: '', groups: ['system:unauthenticated'] },
        peerCertificates: 0,
        forwardedHeaderSeen: CLIENT_CERT_RFC9440,
      },
    ),
  ],
);
