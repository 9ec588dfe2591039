import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lambdaTransport } from './index.ts';

const pem = (text: string) => `-----BEGIN CERTIFICATE-----\n${btoa(text)}\n-----END CERTIFICATE-----\n`;
const text = (b: Uint8Array) => new TextDecoder().decode(b);

test('lambdaTransport: API Gateway v1 identity (source IP, protocol, mTLS PEM)', () => {
  const t = lambdaTransport({
    requestContext: {
      protocol: 'HTTP/1.1',
      identity: { sourceIp: '198.51.100.1', clientCert: { clientCertPem: pem('v1-leaf') } },
    },
  } as never);
  assert.equal(t.remoteAddress, '198.51.100.1');
  assert.equal(t.protocol, 'http/1.1');
  assert.deepEqual(t.peerCertificates!.map(text), ['v1-leaf']);
});

test('lambdaTransport: HTTP API v2 (authentication.clientCert)', () => {
  const t = lambdaTransport({
    rawPath: '/',
    requestContext: {
      http: { sourceIp: '198.51.100.2', protocol: 'HTTP/2.0' },
      authentication: { clientCert: { clientCertPem: pem('v2-leaf') } },
    },
  } as never);
  assert.equal(t.remoteAddress, '198.51.100.2');
  assert.equal(t.protocol, 'h2');
  assert.deepEqual(t.peerCertificates!.map(text), ['v2-leaf']);
  const none = lambdaTransport({
    rawPath: '/',
    requestContext: { http: { sourceIp: '1.2.3.4' }, authentication: null },
  } as never);
  assert.equal(none.peerCertificates, undefined);
});

test('lambdaTransport: ALB takes the last X-Forwarded-For entry', () => {
  const t = lambdaTransport({
    requestContext: { elb: {} },
    headers: { 'x-forwarded-for': '10.0.0.1, 198.51.100.3' },
  } as never);
  assert.equal(t.remoteAddress, '198.51.100.3');
  const mv = lambdaTransport({
    requestContext: { elb: {} },
    multiValueHeaders: { 'x-forwarded-for': ['10.0.0.1', '198.51.100.4'] },
  } as never);
  assert.equal(mv.remoteAddress, '198.51.100.4');
});
