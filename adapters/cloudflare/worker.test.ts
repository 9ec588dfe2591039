import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cloudflareTransport, createWorker } from './worker.ts';

const leaf = btoa('leaf-der');

function cfRequest(url: string, cf: unknown, headers: Record<string, string> = {}): Request {
  const r = new Request(url, { headers });
  Object.defineProperty(r, 'cf', { value: cf });
  return r;
}

test('cloudflareTransport: mTLS, client IP, protocol, waitUntil', async () => {
  const waited: Promise<unknown>[] = [];
  const req = cfRequest(
    'https://x/',
    {
      httpProtocol: 'HTTP/2',
      tlsVersion: 'TLSv1.3',
      tlsClientAuth: { certPresented: '1', certVerified: 'SUCCESS', certRevoked: '0', certRFC9440: `:${leaf}:` },
    },
    { 'cf-connecting-ip': '203.0.113.7' },
  );
  const { transport } = cloudflareTransport(req, { waitUntil: (p) => waited.push(p) });
  assert.equal(transport.remoteAddress, '203.0.113.7');
  assert.equal(transport.protocol, 'h2');
  assert.equal(transport.tlsVersion, 'TLSv1.3');
  assert.equal(new TextDecoder().decode(transport.peerCertificates![0]), 'leaf-der');
  transport.waitUntil!(Promise.resolve(1));
  assert.equal(waited.length, 1);
});

test('cloudflareTransport: forwarded header only when configured, always stripped then', () => {
  const req = cfRequest(
    'https://x/',
    { tlsClientAuth: { certPresented: '0', certVerified: 'NONE' } },
    { 'X-Cert': `:${leaf}:` },
  );
  assert.equal(cloudflareTransport(req).transport.peerCertificates, undefined);
  const { request, transport } = cloudflareTransport(req, undefined, 'X-Cert');
  assert.equal(transport.peerCertificates!.length, 1);
  assert.equal(request.headers.get('x-cert'), null);
});

test('createWorker: settings from env, code settings merged', async () => {
  const worker = createWorker({ flags: '--no-such-flag-from-code', files: {} });
  const origError = console.error;
  console.error = () => {};
  try {
    const r = await worker.fetch(new Request('https://x/healthz'), {});
    assert.equal(r.status, 500);
  } finally {
    console.error = origError;
  }
  const ok = createWorker();
  const r = await ok.fetch(new Request('https://x/healthz'), { APISERVER_FLAGS: '' }, { waitUntil() {} });
  assert.equal(r.status, 200);
  assert.equal(await r.text(), 'ok');
});
