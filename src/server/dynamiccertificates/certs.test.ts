import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as x509 from './x509.ts';
import { generateSelfSignedCertKey } from './generate.ts';
import { parseCertKeyPair, parseCertsPEM } from './keypair.ts';
import { decodePEM, encodePEM } from './pem.ts';
import { buildNameToCertificate, getCertificateNames, selectByLocalAddress, selectByServerName } from './sni.ts';
import { DynamicCertKeyPairContent } from './content.ts';

const now = new Date('2026-01-02T03:04:05Z');
const pair = generateSelfSignedCertKey({
  host: '10.1.2.3',
  alternateIPs: ['10.0.0.1'],
  alternateDNS: ['kubernetes', 'localhost'],
  now,
});

test('generated pair: leaf + CA, PKCS#1 key, SANs, serverAuth, validity from now-1h for 365 days', async () => {
  const { cert, key } = await pair;
  const blocks = decodePEM(cert);
  assert.deepEqual(
    blocks.map((b) => b.type),
    ['CERTIFICATE', 'CERTIFICATE'],
  );
  assert.equal(decodePEM(key)[0]!.type, 'RSA PRIVATE KEY');
  const [leaf, ca] = parseCertsPEM(cert) as [x509.X509Certificate, x509.X509Certificate];
  const unix = Math.floor(now.getTime() / 1000);
  assert.equal(leaf.subject, `CN=10.1.2.3@${unix}`);
  assert.equal(ca.subject, `CN=10.1.2.3-ca@${unix}`);
  assert.equal(leaf.issuer, ca.subject);
  assert.ok(await leaf.verify({ publicKey: ca.publicKey, signatureOnly: true }));
  assert.equal(leaf.notBefore.getTime(), now.getTime() - 3600_000);
  assert.equal(leaf.notAfter.getTime() - leaf.notBefore.getTime(), 365 * 86400_000);
  const san = leaf.getExtension(x509.SubjectAlternativeNameExtension)!;
  assert.deepEqual(
    san.names.items.map((n) => `${n.type}:${n.value}`),
    ['dns:kubernetes', 'dns:localhost', 'ip:10.1.2.3', 'ip:10.0.0.1'],
  );
  const eku = leaf.getExtension(x509.ExtendedKeyUsageExtension)!;
  assert.deepEqual([...eku.usages], [x509.ExtendedKeyUsage.serverAuth]);
  assert.equal(leaf.getExtension(x509.BasicConstraintsExtension)!.ca, false);
  assert.equal(ca.getExtension(x509.BasicConstraintsExtension)!.ca, true);
  // The pair parses and matches.
  const parsed = await parseCertKeyPair(cert, key);
  assert.equal(parsed.chain.length, 2);
});

test('X509KeyPair errors use Go texts', async () => {
  const a = await pair;
  const b = await generateSelfSignedCertKey({ host: 'other' });
  await assert.rejects(parseCertKeyPair(a.cert, b.key), { message: 'tls: private key does not match public key' });
  await assert.rejects(parseCertKeyPair('junk', a.key), {
    message: 'tls: failed to find any PEM data in certificate input',
  });
  await assert.rejects(parseCertKeyPair(a.cert, ''), { message: 'tls: failed to find any PEM data in key input' });
  await assert.rejects(parseCertKeyPair(a.cert, a.cert), {
    message: 'tls: found a certificate rather than a key in the PEM for the private key',
  });
  await assert.rejects(
    parseCertKeyPair(a.key, a.key),
    /failed to find "CERTIFICATE" PEM block in certificate input after skipping PEM blocks of the following types: \[RSA PRIVATE KEY\]/,
  );
  await assert.rejects(parseCertKeyPair(a.cert, encodePEM('PRIVATE KEY', new Uint8Array([1, 2, 3]))), {
    message: 'tls: failed to parse private key',
  });
});

test('PKCS#8 and SEC1 EC keys are accepted', async () => {
  const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = (await crypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as CryptoKeyPair;
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    name: 'CN=ec.example.com',
    keys,
    signingAlgorithm: alg,
  });
  const pkcs8 = new Uint8Array((await crypto.subtle.exportKey('pkcs8', keys.privateKey)) as ArrayBuffer);
  await parseCertKeyPair(cert.toString('pem'), encodePEM('PRIVATE KEY', pkcs8));
  // SEC1: the PKCS#8 inner structure plus curve parameters. Node writes it for us.
  const { createPrivateKey } = await import('node:crypto');
  const sec1 = createPrivateKey({ key: Buffer.from(pkcs8), format: 'der', type: 'pkcs8' }).export({
    format: 'pem',
    type: 'sec1',
  }) as string;
  await parseCertKeyPair(cert.toString('pem'), sec1);
});

async function selfSigned(cn: string, dns: string[] = [], ips: string[] = []): Promise<x509.X509Certificate> {
  const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = (await crypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as CryptoKeyPair;
  const names = [
    ...dns.map((value) => ({ type: 'dns' as const, value })),
    ...ips.map((value) => ({ type: 'ip' as const, value })),
  ];
  return x509.X509CertificateGenerator.createSelfSigned({
    name: [{ CN: [cn] }],
    keys,
    signingAlgorithm: alg,
    extensions: names.length ? [new x509.SubjectAlternativeNameExtension(names)] : [],
  });
}

test('names from a certificate: DNS CN and DNS SANs, never IPs', async () => {
  assert.deepEqual(getCertificateNames(await selfSigned('foo.example.com', ['a.example.com'], ['1.2.3.4'])), [
    'foo.example.com',
    'a.example.com',
  ]);
  assert.deepEqual(getCertificateNames(await selfSigned('1.2.3.4', ['b.example.com'])), ['b.example.com']);
  assert.deepEqual(getCertificateNames(await selfSigned('*.wild.example.com')), ['*.wild.example.com']);
  assert.deepEqual(getCertificateNames(await selfSigned('not a domain')), []);
});

test('SNI map: earlier entries win, explicit names beat extracted ones; exact, then wildcard', async () => {
  const first = await selfSigned('first.example.com', ['shared.example.com']);
  const second = await selfSigned('second.example.com', ['shared.example.com', '*.example.org']);
  const m = buildNameToCertificate([
    { explicitNames: [], leaf: first, value: 'first' },
    { explicitNames: [], leaf: second, value: 'second' },
    { explicitNames: ['Second.Example.com', '127.0.0.1'], leaf: first, value: 'explicit' },
  ]);
  assert.equal(m.get('shared.example.com'), 'first');
  assert.equal(m.get('second.example.com'), 'explicit');
  assert.equal(selectByServerName(m, 'SECOND.example.com'), 'explicit');
  assert.equal(selectByServerName(m, 'x.example.org'), 'second');
  assert.equal(selectByServerName(m, 'a.b.example.org'), undefined);
  assert.equal(selectByServerName(m, 'unknown.test'), undefined);
  assert.equal(selectByLocalAddress(m, '::ffff:127.0.0.1'), 'explicit');
  assert.equal(selectByLocalAddress(m, '10.9.9.9'), undefined);
});

class TestFS {
  files = new Map<string, Uint8Array>();
  listeners = new Map<string, () => void>();
  async readFile(p: string) {
    const f = this.files.get(p);
    if (!f) throw new Error(`open ${p}: no such file or directory`);
    return f;
  }
  watch(p: string, fn: () => void) {
    this.listeners.set(p, fn);
    return () => this.listeners.delete(p);
  }
  set(p: string, s: string) {
    this.files.set(p, new TextEncoder().encode(s));
    this.listeners.get(p)?.();
  }
}

test('file-backed pair: reload on change, a mismatched half-written pair keeps the old one', async () => {
  const fs = new TestFS();
  const a = await pair;
  const b = await generateSelfSignedCertKey({ host: 'b' });
  fs.set('/c.crt', a.cert);
  fs.set('/c.key', a.key);
  const p = await DynamicCertKeyPairContent.create('serving-cert', '/c.crt', '/c.key', fs, { pollInterval: 0 });
  assert.equal(p.name(), 'serving-cert::/c.crt::/c.key');
  let changes = 0;
  p.addListener(() => changes++);
  const stop = new AbortController();
  p.run(stop.signal);
  fs.set('/c.crt', b.cert); // key not yet replaced
  await new Promise((r) => setTimeout(r, 120));
  assert.equal(p.currentCertKeyContent().cert, a.cert);
  assert.equal(changes, 0);
  fs.set('/c.key', b.key);
  await new Promise((r) => setTimeout(r, 120));
  assert.equal(p.currentCertKeyContent().cert, b.cert);
  assert.equal(changes, 1);
  stop.abort();
  await assert.rejects(DynamicCertKeyPairContent.create('serving-cert', '/c.crt', '/missing.key', fs), {
    message: 'open /missing.key: no such file or directory',
  });
  fs.set('/empty.key', '');
  await assert.rejects(DynamicCertKeyPairContent.create('serving-cert', '/c.crt', '/empty.key', fs), {
    message: 'missing content for serving cert "serving-cert::/c.crt::/empty.key"',
  });
});

// Both files unreadable: the certificate's error, whichever read fails sooner (upstream reads the
// certificate first, dynamic_serving_content.go loadCertKeyPair).
test('DynamicCertKeyPairContent: both files missing, the certificate is named', async () => {
  // The certificate's read fails later than the key's.
  const fs = new (class extends TestFS {
    override async readFile(p: string) {
      if (p === '/none.crt') await new Promise((r) => setTimeout(r, 20));
      return super.readFile(p);
    }
  })();
  await assert.rejects(DynamicCertKeyPairContent.create('serving-cert', '/none.crt', '/none.key', fs), {
    message: 'open /none.crt: no such file or directory',
  });
});
