import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  cloudflareClientCertificates,
  parseRFC9440,
  parseSfBinary,
  pemCertificatesToDER,
  takeForwardedClientCertificates,
} from './client-cert.ts';

const leaf = btoa('leaf-der');
const inter = btoa('intermediate-der');
const text = (b: Uint8Array) => new TextDecoder().decode(b);

test('RFC 9440 headers decode to DER, leaf first', () => {
  assert.equal(text(parseSfBinary(`:${leaf}:`)!), 'leaf-der');
  assert.equal(parseSfBinary(':not base64!:'), undefined);
  assert.deepEqual(parseRFC9440(`:${leaf}:`, `:${inter}:, :${inter}:`).map(text), [
    'leaf-der',
    'intermediate-der',
    'intermediate-der',
  ]);
  assert.deepEqual(parseRFC9440(null, `:${inter}:`), []);
});

test('PEM bundles decode to DER', () => {
  const pem = `-----BEGIN CERTIFICATE-----\n${leaf}\n-----END CERTIFICATE-----\n-----BEGIN CERTIFICATE-----\n${inter}\n-----END CERTIFICATE-----\n`;
  assert.deepEqual(pemCertificatesToDER(pem).map(text), ['leaf-der', 'intermediate-der']);
  assert.deepEqual(pemCertificatesToDER(undefined), []);
});

test('Cloudflare tlsClientAuth: string-valued fields, only presented+verified+unrevoked', () => {
  const ok = {
    certPresented: '1',
    certVerified: 'SUCCESS',
    certRevoked: '0',
    certRFC9440: `:${leaf}:`,
    certChainRFC9440: '',
  };
  assert.deepEqual(cloudflareClientCertificates(ok).map(text), ['leaf-der']);
  assert.deepEqual(cloudflareClientCertificates({ ...ok, certPresented: '0' }), []);
  assert.deepEqual(cloudflareClientCertificates({ ...ok, certVerified: 'NONE' }), []);
  assert.deepEqual(cloudflareClientCertificates({ ...ok, certVerified: 'FAILED:self signed certificate' }), []);
  assert.deepEqual(cloudflareClientCertificates({ ...ok, certRevoked: '1' }), []);
  // A truthiness check would accept these: the docs' `!tls.certVerified` trap.
  assert.deepEqual(cloudflareClientCertificates({ ...ok, certPresented: true as unknown as string }), []);
  assert.deepEqual(cloudflareClientCertificates(undefined), []);
});

test('forwarded certificate header is read and stripped', async () => {
  const req = new Request('https://x/', {
    method: 'POST',
    body: 'b',
    headers: { 'Client-Cert': `:${leaf}:`, 'Client-Cert-Chain': `:${inter}:`, other: '1' },
  });
  const { request, certificates } = takeForwardedClientCertificates(req, 'Client-Cert');
  assert.deepEqual(certificates.map(text), ['leaf-der', 'intermediate-der']);
  assert.equal(request.headers.get('client-cert'), null);
  assert.equal(request.headers.get('client-cert-chain'), null);
  assert.equal(request.headers.get('other'), '1');
  assert.equal(await request.text(), 'b');
  const plain = new Request('https://x/');
  assert.equal(takeForwardedClientCertificates(plain, 'Client-Cert').request, plain);
});
