// Chain verification failing closed (crypto/x509 Verify semantics as request/x509 uses them).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as x509 from '../util/x509.ts';
import { encodeSequence, encodeOID, encodeTLV, encodeUTF8 } from '../util/der.ts';
import { CertPool, X509Authenticator, verifyClientCertificate } from './x509.ts';
import { ctxFor, makeCA, makeCert } from './testing.ts';

const ec = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const day = 86_400_000;
const keys = () => crypto.subtle.generateKey(ec, true, ['sign', 'verify']) as Promise<CryptoKeyPair>;

async function issue(
  issuer: { cert: x509.X509Certificate; keys: CryptoKeyPair },
  subject: string | x509.Name,
  extensions: x509.Extension[],
  opts: { notBefore?: Date; notAfter?: Date } = {},
) {
  const k = await keys();
  const cert = await x509.X509CertificateGenerator.create({
    subject,
    issuer: issuer.cert.subjectName,
    notBefore: opts.notBefore ?? new Date(Date.now() - day),
    notAfter: opts.notAfter ?? new Date(Date.now() + day),
    publicKey: k.publicKey,
    signingKey: issuer.keys.privateKey,
    signingAlgorithm: ec,
    extensions,
  });
  return { cert, keys: k };
}

const caExts = (pathLength?: number) => [
  new x509.BasicConstraintsExtension(true, pathLength, true),
  new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign, true),
];
const clientExts = () => [new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth])];

test('path length: a CA with pathLen 0 cannot have an intermediate below it', async () => {
  const root = await makeCA('CN=root');
  const rootPool = CertPool.fromPEM(root.pem);
  // makeCA has no pathLen; an intermediate with pathLen 0 may sign leaves but not another CA.
  const inter = await issue(root, 'CN=inter', caExts(0));
  const leaf = await issue(inter, 'CN=alice', clientExts());
  assert.equal((await verifyClientCertificate(leaf.cert, [inter.cert], rootPool)).length, 3);
  const inter2 = await issue(inter, 'CN=inter2', caExts());
  const deep = await issue(inter2, 'CN=bob', clientExts());
  await assert.rejects(verifyClientCertificate(deep.cert, [inter2.cert, inter.cert], rootPool), /unknown authority/);
});

test('an unhandled critical extension on the leaf fails; a non-critical one is ignored', async () => {
  const ca = await makeCA('CN=ca');
  const pool = CertPool.fromPEM(ca.pem);
  const odd = (critical: boolean) => new x509.Extension('1.3.6.1.4.1.99999.1', critical, new Uint8Array([5, 0]));
  const bad = await issue(ca, 'CN=alice', [...clientExts(), odd(true)]);
  await assert.rejects(verifyClientCertificate(bad.cert, [], pool), { message: 'x509: unhandled critical extension' });
  const ok = await issue(ca, 'CN=alice', [...clientExts(), odd(false)]);
  assert.equal((await verifyClientCertificate(ok.cert, [], pool)).length, 2);
});

test('expired or not-yet-valid intermediates and roots are skipped', async () => {
  const ca = await makeCA('CN=ca');
  const pool = CertPool.fromPEM(ca.pem);
  const old = await issue(ca, 'CN=inter', caExts(), {
    notBefore: new Date(Date.now() - 3 * day),
    notAfter: new Date(Date.now() - day),
  });
  const leaf = await issue(old, 'CN=alice', clientExts());
  await assert.rejects(verifyClientCertificate(leaf.cert, [old.cert], pool), /unknown authority/);
  const expiredRoot = await makeCA('CN=old-root', {
    notBefore: new Date(Date.now() - 3 * day),
    notAfter: new Date(Date.now() - day),
  });
  const under = await makeCert(expiredRoot, 'CN=alice');
  await assert.rejects(verifyClientCertificate(under.cert, [], CertPool.fromPEM(expiredRoot.pem)), /unknown authority/);
});

test('the issuer is matched by the raw name: same text, another encoding or another key is an unknown authority', async () => {
  const ca = await makeCA('CN=ca');
  const pool = CertPool.fromPEM(ca.pem);
  // An impostor CA with the same subject text, its own key.
  const impostor = await makeCA('CN=ca');
  const forged = await makeCert(impostor, 'CN=alice');
  await assert.rejects(verifyClientCertificate(forged.cert, [], pool), /unknown authority/);
  // The same text as UTF8String instead of PrintableString (Go compares RawIssuer bytes).
  const utf8Name = new x509.Name(
    encodeSequence(encodeTLV(0x31, encodeSequence(encodeOID('2.5.4.3'), encodeUTF8('ca')))),
  );
  assert.equal(utf8Name.toString(), ca.cert.subject);
  const k = await keys();
  const odd = await x509.X509CertificateGenerator.create({
    subject: 'CN=alice',
    issuer: utf8Name,
    publicKey: k.publicKey,
    signingKey: ca.keys.privateKey,
    signingAlgorithm: ec,
    extensions: clientExts(),
  });
  await assert.rejects(verifyClientCertificate(odd, [], pool), /unknown authority/);
});

test('a tampered leaf or garbage in the chain fails closed with an error, never a crash or a user', async () => {
  const ca = await makeCA('CN=ca');
  const a = new X509Authenticator(CertPool.fromPEM(ca.pem), { cacheTTL: 0 });
  const leaf = await makeCert(ca, 'CN=alice');
  // Change the CN's last letter inside the DER: still parses, no longer verifies.
  const der = leaf.der.slice();
  const at = der.lastIndexOf('e'.charCodeAt(0), der.length - 80);
  der[at] = 'x'.charCodeAt(0);
  await assert.rejects(a.authenticateRequest(ctxFor({}, { peerCertificates: [der] })), /unknown authority|malformed/);
  for (const junk of [
    new Uint8Array(),
    new Uint8Array([0x30]),
    new Uint8Array([0x30, 0x82, 0xff, 0xff]),
    leaf.der.subarray(0, 100),
  ]) {
    await assert.rejects(
      a.authenticateRequest(ctxFor({}, { peerCertificates: [leaf.der, junk] })),
      /malformed certificate/,
    );
    await assert.rejects(a.authenticateRequest(ctxFor({}, { peerCertificates: [junk] })), /malformed certificate/);
  }
});
