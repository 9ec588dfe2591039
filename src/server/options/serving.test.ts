import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SecureServingOptions, tlsCipherSuites, parseNamedCertKey } from './serving.ts';
import { ServerOptions } from './options.ts';
import { FlagError } from './flags.ts';
import { newConfig } from '../config.ts';
import { discardLogger } from '../../util/logger.ts';
import { decodePEM } from '../dynamiccertificates/pem.ts';
import { parseCertsPEM } from '../dynamiccertificates/keypair.ts';
import * as x509 from '../dynamiccertificates/x509.ts';

function parse(args: string[]): { opts: SecureServingOptions; errors: string[] } {
  const opts = new SecureServingOptions();
  const so = new ServerOptions([opts]);
  so.parse(args);
  return { opts, errors: so.validate() };
}

test('--secure-port validation, upstream texts and quirk', () => {
  assert.deepEqual(parse(['--secure-port=0']).errors, [
    '--secure-port 0 must be between 1 and 65535, inclusive. It cannot be turned off with 0',
  ]);
  assert.deepEqual(parse(['--secure-port=6443']).errors, []);
  const o = new SecureServingOptions();
  o.required = false;
  o.bindPort = -1;
  assert.deepEqual(o.validate(), [
    '--secure-port -1 must be between 0 and 65535, inclusive. 0 for turning off secure port',
  ]);
  o.bindPort = 70000;
  assert.deepEqual(o.validate(), [
    '--secure-port 70000 must be between 1 and 65535, inclusive. It cannot be turned off with 0',
  ]);
});

test('--tls-sni-cert-key parsing', () => {
  assert.deepEqual(parseNamedCertKey(' a.crt , a.key : *.foo.com, foo.com'), {
    certFile: 'a.crt',
    keyFile: 'a.key',
    names: ['*.foo.com', 'foo.com'],
  });
  assert.throws(
    () => parse(['--tls-sni-cert-key', 'a.crt,a.key:']),
    (e: Error) => e instanceof FlagError && /empty names list is not allowed$/.test(e.message),
  );
  assert.throws(() => parse(['--tls-sni-cert-key=a.crt']), /expected comma separated certificate and key file paths$/);
  const { opts } = parse(['--tls-sni-cert-key=a.crt,a.key', '--tls-sni-cert-key=b.crt,b.key:b.example.com']);
  assert.equal(opts.sniCertKeys.length, 2);
});

test('TLS version and cipher suites', async () => {
  const warnings: string[] = [];
  assert.deepEqual(
    tlsCipherSuites(
      [
        'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256',
        'TLS_AES_128_GCM_SHA256',
        'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305',
        'TLS_RSA_WITH_AES_128_CBC_SHA256',
      ],
      (w) => warnings.push(w),
    ),
    ['ECDHE-RSA-AES128-GCM-SHA256', 'ECDHE-RSA-CHACHA20-POLY1305', 'AES128-SHA256'],
  );
  assert.deepEqual(warnings, ["Use of insecure cipher 'TLS_RSA_WITH_AES_128_CBC_SHA256' detected."]);
  assert.throws(() => tlsCipherSuites(['TLS_NOPE']), {
    message: "Cipher suite TLS_NOPE not supported or doesn't exist",
  });
  const { opts } = parse(['--tls-min-version=VersionTLS14']);
  await assert.rejects(opts.applyTo(newConfig(), { fileSystem: new WritableFS(), logger: discardLogger }), {
    message: 'unknown tls version "VersionTLS14"',
  });
});

class WritableFS {
  files = new Map<string, { data: Uint8Array; mode: number }>();
  dirs = new Map<string, number>();
  async readFile(p: string) {
    const f = this.files.get(p);
    if (!f) throw new Error(`open ${p}: no such file or directory`);
    return f.data;
  }
  async writeFile(p: string, data: Uint8Array, mode: number) {
    this.files.set(p, { data, mode });
  }
  async mkdirAll(p: string, mode: number) {
    this.dirs.set(p, mode);
  }
  async remove(p: string) {
    this.files.delete(p);
  }
}

test('self-signed certificate generated in --cert-dir, reused on the next start; loopback SNI first', async () => {
  const fs = new WritableFS();
  const { opts } = parse(['--cert-dir=/d/certs/']);
  const c1 = newConfig();
  await opts.applyTo(c1, { fileSystem: fs, logger: discardLogger, servesTLS: true, hostIP: '10.1.2.3' });
  assert.equal(fs.dirs.get('/d/certs'), 0o755);
  assert.equal(fs.files.get('/d/certs/apiserver.key')!.mode, 0o600);
  assert.equal(fs.files.get('/d/certs/apiserver.crt')!.mode, 0o644);
  const info = c1.secureServing!;
  assert.equal(info.cert!.name(), 'serving-cert::/d/certs/apiserver.crt::/d/certs/apiserver.key');
  assert.equal(info.minTLSVersion, 'TLSv1.2');
  assert.equal(info.http2MaxStreamsPerConnection, 100);
  const [leaf] = parseCertsPEM(new TextDecoder().decode(fs.files.get('/d/certs/apiserver.crt')!.data));
  const san = leaf!.getExtension(x509.SubjectAlternativeNameExtension)!.names.items.map((n) => `${n.type}:${n.value}`);
  assert.deepEqual(san, [
    'dns:kubernetes.default.svc',
    'dns:kubernetes.default',
    'dns:kubernetes',
    'dns:localhost',
    'ip:10.1.2.3',
    'ip:10.0.0.1',
  ]);
  assert.equal(decodePEM(new TextDecoder().decode(fs.files.get('/d/certs/apiserver.crt')!.data)).length, 2);
  // The loopback certificate is the first SNI entry and answers apiserver-loopback-client.
  assert.equal(info.sniCerts[0]!.name(), 'self-signed loopback');
  assert.deepEqual(info.sniCerts[0]!.sniNames(), ['apiserver-loopback-client']);
  const lb = info.sniCerts[0]!.currentCertKeyContent().parsed.leaf;
  assert.equal(Math.round((lb.notAfter.getTime() - lb.notBefore.getTime()) / 86400_000), 1096);
  assert.match(c1.loopbackToken!, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

  const before = fs.files.get('/d/certs/apiserver.crt')!.data;
  const c2 = newConfig();
  await opts.applyTo(c2, { fileSystem: fs, logger: discardLogger, servesTLS: true });
  assert.equal(fs.files.get('/d/certs/apiserver.crt')!.data, before);
  assert.notEqual(c2.loopbackToken, c1.loopbackToken);

  // Only one of the pair present: upstream's error.
  fs.files.delete('/d/certs/apiserver.key');
  await assert.rejects(opts.applyTo(newConfig(), { fileSystem: fs, logger: discardLogger, servesTLS: true }), {
    message: 'error reading /d/certs/apiserver.key, certificate and key must be supplied as a pair',
  });
});

test('edge (no TLS served here): settings only, no key generation; empty --cert-dir keeps it in memory', async () => {
  const fs = new WritableFS();
  const c = newConfig();
  await parse([]).opts.applyTo(c, { fileSystem: fs, logger: discardLogger });
  assert.equal(c.secureServing!.cert, undefined);
  assert.equal(fs.files.size, 0);
  const m = newConfig();
  await parse(['--cert-dir=']).opts.applyTo(m, { fileSystem: fs, logger: discardLogger, servesTLS: true });
  assert.equal(m.secureServing!.cert!.name(), 'Generated self signed cert');
  assert.equal(fs.files.size, 0);
});

test('a failed write leaves nothing behind', async () => {
  const fs = new WritableFS();
  fs.writeFile = async (p: string, data: Uint8Array, mode: number) => {
    if (p.endsWith('.crt')) throw new Error(`open ${p}: permission denied`);
    fs.files.set(p, { data, mode });
  };
  await assert.rejects(
    parse(['--cert-dir=/ro']).opts.applyTo(newConfig(), { fileSystem: fs, logger: discardLogger, servesTLS: true }),
    {
      message: 'unable to generate self signed cert: open /ro/apiserver.crt: permission denied',
    },
  );
  assert.equal(fs.files.size, 0);
});

test('the generated certificate is for the advertise address when an earlier group set one (not the external host)', async () => {
  const fs = new WritableFS();
  const config = newConfig({ publicAddress: '10.9.8.7', externalAddress: 'api.example.test' });
  await parse(['--cert-dir=/adv']).opts.applyTo(config, {
    fileSystem: fs,
    logger: discardLogger,
    servesTLS: true,
    hostIP: '192.168.1.2',
  });
  assert.equal(config.externalAddress, 'api.example.test');
  const [leaf] = parseCertsPEM(new TextDecoder().decode(fs.files.get('/adv/apiserver.crt')!.data));
  assert.match(leaf!.subject, /^CN=10\.9\.8\.7@\d+$/);
  const ips = leaf!
    .getExtension(x509.SubjectAlternativeNameExtension)!
    .names.items.filter((n) => n.type === 'ip')
    .map((n) => n.value);
  assert.deepEqual(ips, ['10.9.8.7', '10.0.0.1']);
});
