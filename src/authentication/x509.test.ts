import 'reflect-metadata';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as x509 from '@peculiar/x509';
import { ctxFor, makeCA, makeCert } from './testing.ts';
import { CertPool, X509Authenticator } from './x509.ts';
import { newSecureRequestHeaderAuthenticator, defaultRequestHeaderConfig } from './requestheader.ts';

const ca = await makeCA('CN=client-ca');
const otherCA = await makeCA('CN=evil-ca');
const pool = CertPool.fromPEM(ca.pem + '\n');
const day = 86_400_000;

test('x509: CN → user, O → groups, UID, credential id; chain through an intermediate', async () => {
  const a = new X509Authenticator(pool, { cacheTTL: 0 });
  const leaf = await makeCert(ca, 'CN=alice, O=system:masters, O=dev, 0.9.2342.19200300.100.1.1=uid-1');
  const r = await a.authenticateRequest(ctxFor({}, { peerCertificates: [leaf.der] }));
  assert.equal(r!.user.name, 'alice');
  assert.deepEqual(r!.user.groups, ['system:masters', 'dev']);
  assert.equal(r!.user.uid, 'uid-1');
  assert.match(r!.user.extra!['authentication.kubernetes.io/credential-id']![0]!, /^X509SHA256=[0-9a-f]{64}$/);
  const inter = await makeCert(ca, 'CN=intermediate', { ca: true, serial: '0b' });
  const leaf2 = await makeCert(inter, 'CN=bob', { serial: '0c' });
  assert.equal(
    (await a.authenticateRequest(ctxFor({}, { peerCertificates: [leaf2.der, inter.der] })))!.user.name,
    'bob',
  );
  // Without the intermediate the chain does not verify.
  await assert.rejects(
    a.authenticateRequest(ctxFor({}, { peerCertificates: [leaf2.der] })),
    /failed: x509: certificate signed by unknown authority$/,
  );
});

test('x509: no certificate or no CA → no opinion; empty CN → no opinion', async () => {
  const leaf = await makeCert(ca, 'O=dev');
  assert.equal(await new X509Authenticator(pool).authenticateRequest(ctxFor()), null);
  assert.equal(
    await new X509Authenticator(() => undefined).authenticateRequest(ctxFor({}, { peerCertificates: [leaf.der] })),
    null,
  );
  assert.equal(
    await new X509Authenticator(pool).authenticateRequest(ctxFor({}, { peerCertificates: [leaf.der] })),
    null,
  );
});

test('x509 errors: other CA, expired, not yet valid, wrong EKU, non-CA intermediate, garbage', async () => {
  const a = new X509Authenticator(pool);
  const foreign = await makeCert(otherCA, 'CN=mallory, O=system:masters', { serial: '3039' });
  const err = await a.authenticateRequest(ctxFor({}, { peerCertificates: [foreign.der] })).catch((e: Error) => e);
  assert.match(
    String((err as Error).message),
    /^verifying certificate SN=12345, SKID=([0-9A-F]{2}:)+[0-9A-F]{2}, AKID=([0-9A-F]{2}:)+[0-9A-F]{2} failed: x509: certificate signed by unknown authority$/,
  );
  const expired = await makeCert(ca, 'CN=old', {
    notBefore: new Date(Date.now() - 3 * day),
    notAfter: new Date(Date.now() - day),
  });
  await assert.rejects(
    a.authenticateRequest(ctxFor({}, { peerCertificates: [expired.der] })),
    /x509: certificate has expired or is not yet valid: current time \S+Z is after \S+Z$/,
  );
  const future = await makeCert(ca, 'CN=future', {
    notBefore: new Date(Date.now() + day),
    notAfter: new Date(Date.now() + 2 * day),
  });
  await assert.rejects(a.authenticateRequest(ctxFor({}, { peerCertificates: [future.der] })), /is before/);
  const server = await makeCert(ca, 'CN=server', { eku: [x509.ExtendedKeyUsage.serverAuth] });
  await assert.rejects(a.authenticateRequest(ctxFor({}, { peerCertificates: [server.der] })), /incompatible key usage/);
  const noEKU = await makeCert(ca, 'CN=any', { eku: null });
  assert.equal((await a.authenticateRequest(ctxFor({}, { peerCertificates: [noEKU.der] })))!.user.name, 'any');
  const notCA = await makeCert(ca, 'CN=leafy');
  const under = await makeCert(notCA, 'CN=under');
  await assert.rejects(
    a.authenticateRequest(ctxFor({}, { peerCertificates: [under.der, notCA.der] })),
    /unknown authority/,
  );
  await assert.rejects(
    a.authenticateRequest(ctxFor({}, { peerCertificates: [new Uint8Array([1, 2, 3])] })),
    /malformed certificate/,
  );
  assert.throws(() => CertPool.fromPEM('nothing here'), /does not contain any valid/);
});

test('x509: verified results are cached, but never past the certificate expiry or across CA changes', async () => {
  let now = new Date();
  let current: CertPool | undefined = pool;
  const a = new X509Authenticator(() => current, { now: () => now });
  const short = await makeCert(ca, 'CN=short', { notAfter: new Date(Date.now() + 1000) });
  assert.equal((await a.authenticateRequest(ctxFor({}, { peerCertificates: [short.der] })))!.user.name, 'short');
  assert.equal((await a.authenticateRequest(ctxFor({}, { peerCertificates: [short.der] })))!.user.name, 'short');
  now = new Date(Date.now() + 2000);
  await assert.rejects(a.authenticateRequest(ctxFor({}, { peerCertificates: [short.der] })), /expired/);
  now = new Date();
  current = CertPool.fromPEM(otherCA.pem);
  await assert.rejects(a.authenticateRequest(ctxFor({}, { peerCertificates: [short.der] })), /unknown authority/);
});

test('front proxy: headers trusted only with a verified proxy certificate with an allowed CN', async () => {
  const proxyCA = await makeCA('CN=front-proxy-ca');
  const proxy = await makeCert(proxyCA, 'CN=front-proxy-client');
  const wrongName = await makeCert(proxyCA, 'CN=someone-else');
  const cfg = { ...defaultRequestHeaderConfig(), allowedClientNames: ['front-proxy-client'] };
  const a = newSecureRequestHeaderAuthenticator(CertPool.fromPEM(proxyCA.pem), cfg);
  const headers: [string, string][] = [
    ['X-Remote-User', 'alice'],
    ['X-Remote-Uid', 'u1'],
    ['X-Remote-Group', 'a, b'],
    ['X-Remote-Group', 'c'],
    ['X-Remote-Extra-Acme.com%2Fproject', 'p1'],
    ['X-Remote-Extra-Scopes', 's1'],
    ['X-Remote-Extra-Scopes', 's2'],
  ];
  const rawHeaders = headers.flat();
  const ctx = ctxFor(headers, { peerCertificates: [proxy.der], rawHeaders });
  const r = await a.authenticateRequest(ctx);
  assert.deepEqual(r!.user, {
    name: 'alice',
    uid: 'u1',
    groups: ['a, b', 'c'],
    extra: { 'acme.com/project': ['p1'], scopes: ['s1', 's2'] },
  });
  for (const h of ['x-remote-user', 'x-remote-uid', 'x-remote-group', 'x-remote-extra-scopes'])
    assert.equal(ctx.request.headers.get(h), null);
  // No certificate: no opinion (the headers are not trusted).
  assert.equal(await a.authenticateRequest(ctxFor(headers, { rawHeaders })), null);
  // A client certificate from the client CA is not a proxy certificate.
  const client = await makeCert(ca, 'CN=front-proxy-client');
  await assert.rejects(
    a.authenticateRequest(ctxFor(headers, { peerCertificates: [client.der], rawHeaders })),
    /^Error: x509: certificate signed by unknown authority$/,
  );
  await assert.rejects(a.authenticateRequest(ctxFor(headers, { peerCertificates: [wrongName.der], rawHeaders })), {
    message: 'x509: subject with cn=someone-else is not in the allowed list',
  });
  // Proxy certificate but no user header: no opinion.
  assert.equal(await a.authenticateRequest(ctxFor([['x-remote-group', 'g']], { peerCertificates: [proxy.der] })), null);
  // h.Get semantics: an empty first value moves on to the next header name.
  const multi = newSecureRequestHeaderAuthenticator(CertPool.fromPEM(proxyCA.pem), {
    ...cfg,
    usernameHeaders: ['x-user', 'x-remote-user'],
  });
  const raw = ['X-User', '', 'X-User', 'ignored', 'X-Remote-User', 'bob'];
  assert.equal(
    (await multi.authenticateRequest(ctxFor([], { peerCertificates: [proxy.der], rawHeaders: raw })))!.user.name,
    'bob',
  );
});
