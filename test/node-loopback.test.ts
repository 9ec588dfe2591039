// The loopback client as upstream's (server/options/serving_with_loopback.go): SNI apiserver-loopback-client, verified
// against the loopback CA, bearer token authenticated as system:apiserver (system:masters).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import net from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../adapters/node/cli.ts';
import type { Config } from '../src/server/config.ts';
import { discardLogger } from '../src/util/logger.ts';

test('loopback: verified TLS by SNI and the per-start token authenticates as system:apiserver', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'edge-apiserver-loopback-'));
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise((r) => s.close(r));
  let config!: Config;
  const stop = new AbortController();
  const exited = main(['--cert-dir', dir, '--secure-port', String(port), '--bind-address', '127.0.0.1'], {
    signals: false,
    signal: stop.signal,
    logger: discardLogger,
    stderr: () => {},
    configure: (c) => {
      config = c;
    },
  });
  try {
    const lb = await waitFor(() => config?.secureServing?.loopback);
    const token = config.loopbackToken!;
    const body = JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });
    const res = await retry(() =>
      request(
        port,
        {
          method: 'POST',
          path: '/apis/authentication.k8s.io/v1/selfsubjectreviews',
          servername: lb.serverName,
          ca: lb.caPEM,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        },
        body,
      ),
    );
    assert.equal(res.status, 201, res.body);
    const review = JSON.parse(res.body);
    assert.equal(review.status.userInfo.username, 'system:apiserver');
    assert.deepEqual(review.status.userInfo.groups, ['system:authenticated', 'system:masters']);
    // The same CA does not verify the default serving certificate (it is the loopback one).
    await assert.rejects(request(port, { path: '/healthz', ca: lb.caPEM, servername: 'localhost' }));
    // That failed handshake (the client aborts) and a garbage one are counted.
    const raw = net.connect(port, '127.0.0.1');
    raw.on('error', () => {});
    raw.resume();
    raw.end(Buffer.from([0x16, 0x03, 0x01, 0x00, 0x05, 1, 2, 3, 4, 5]));
    await new Promise<void>((resolve) => raw.once('close', () => resolve()));
    const metrics = await request(port, {
      path: '/metrics',
      servername: lb.serverName,
      ca: lb.caPEM,
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(metrics.status, 200);
    const m = /^apiserver_tls_handshake_errors_total (\d+)$/m.exec(metrics.body);
    assert.ok(
      m && Number(m[1]) >= 1,
      metrics.body
        .split('\n')
        .filter((l) => l.includes('handshake'))
        .join('\n'),
    );
  } finally {
    stop.abort();
    assert.equal(await exited, 0);
    rmSync(dir, { recursive: true, force: true });
  }
});

test('--client-ca-file: client certificates are requested and authenticate (the chain reaches the x509 authenticator)', async () => {
  const x509 = await import('../src/server/dynamiccertificates/x509.ts');
  const { encodePEM } = await import('../src/server/dynamiccertificates/pem.ts');
  const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const caKeys = (await crypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as CryptoKeyPair;
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    name: 'CN=client-ca',
    keys: caKeys,
    signingAlgorithm: alg,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign, true),
    ],
  });
  const keys = (await crypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as CryptoKeyPair;
  const cert = await x509.X509CertificateGenerator.create({
    subject: 'CN=alice, O=dev',
    issuer: ca.subject,
    publicKey: keys.publicKey,
    signingKey: caKeys.privateKey,
    signingAlgorithm: alg,
    extensions: [new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth])],
  });
  const key = encodePEM(
    'PRIVATE KEY',
    new Uint8Array((await crypto.subtle.exportKey('pkcs8', keys.privateKey)) as ArrayBuffer),
  );
  const dir = mkdtempSync(join(tmpdir(), 'edge-apiserver-clientca-'));
  writeFileSync(join(dir, 'ca.crt'), ca.toString('pem'));
  const port = await freePort();
  const stop = new AbortController();
  const exited = main(['--cert-dir', dir, '--secure-port', String(port), '--client-ca-file', join(dir, 'ca.crt')], {
    signals: false,
    signal: stop.signal,
    logger: discardLogger,
    stderr: () => {},
  });
  try {
    const body = JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });
    const post = (extra: https.RequestOptions) =>
      retry(() =>
        request(
          port,
          {
            method: 'POST',
            path: '/apis/authentication.k8s.io/v1/selfsubjectreviews',
            rejectUnauthorized: false,
            headers: { 'content-type': 'application/json' },
            ...extra,
          },
          body,
        ),
      );
    const withCert = await post({ cert: cert.toString('pem'), key });
    assert.equal(withCert.status, 201, withCert.body);
    const review = JSON.parse(withCert.body);
    assert.equal(review.status.userInfo.username, 'alice');
    assert.deepEqual(review.status.userInfo.groups, ['dev', 'system:authenticated']);
    // Without a certificate the handshake still completes (RequestClientCert).
    const anon = await post({});
    assert.notEqual(anon.status, 201);
  } finally {
    stop.abort();
    assert.equal(await exited, 0);
    rmSync(dir, { recursive: true, force: true });
  }
});

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

async function waitFor<T>(f: () => T | undefined): Promise<T> {
  for (let i = 0; i < 500; i++) {
    const v = f();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('timed out');
}

async function retry<T>(f: () => Promise<T>): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      return await f();
    } catch (err) {
      if (i > 200 || (err as NodeJS.ErrnoException).code !== 'ECONNREFUSED') throw err;
      await new Promise((r) => setTimeout(r, 10));
    }
  }
}

function request(port: number, opts: https.RequestOptions, body?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port, agent: false, ...opts }, (res) => {
      let b = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (b += c));
      res.on('end', () => resolve({ status: res.statusCode!, body: b }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
