import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodePEM, parsePrivateKeyBlock, pkcs8ToPkcs1 } from './pem.ts';
import { parsePrivateKeyPEM, parsePublicKeysPEM } from '../../authentication/keys.ts';

const ec = { name: 'ECDSA', namedCurve: 'P-256' };

test('private keys: truncated or garbled PKCS#1, PKCS#8 and SEC1 fail with tls: failed to parse private key', async () => {
  const keys = (await crypto.subtle.generateKey(ec, true, ['sign', 'verify'])) as CryptoKeyPair;
  const pkcs8 = new Uint8Array((await crypto.subtle.exportKey('pkcs8', keys.privateKey)) as ArrayBuffer);
  assert.equal(parsePrivateKeyBlock({ type: 'PRIVATE KEY', bytes: pkcs8 }).namedCurve, 'P-256');
  for (const type of ['PRIVATE KEY', 'RSA PRIVATE KEY', 'EC PRIVATE KEY'])
    for (const bytes of [
      new Uint8Array(),
      pkcs8.subarray(0, 10),
      pkcs8.subarray(0, pkcs8.length - 1),
      new Uint8Array([0x30, 0x80, 0, 0]),
    ])
      assert.throws(() => parsePrivateKeyBlock({ type, bytes }), { message: 'tls: failed to parse private key' }, type);
  assert.throws(() => pkcs8ToPkcs1(new Uint8Array([0x30, 0x00])), /not a PKCS#8 private key/);
});

test('service-account keys: garbage PEM bodies give errors, never a TypeError', async () => {
  const junk = [new Uint8Array([0x30]), new Uint8Array([0x30, 0x82, 0xff, 0xff]), new Uint8Array([0x04, 0x00])];
  for (const type of [
    'PUBLIC KEY',
    'RSA PUBLIC KEY',
    'CERTIFICATE',
    'PRIVATE KEY',
    'RSA PRIVATE KEY',
    'EC PRIVATE KEY',
  ])
    for (const der of junk) {
      const pem = encodePEM(type, der);
      await assert.rejects(parsePublicKeysPEM(pem), (e: Error) => !(e instanceof TypeError), type);
      if (type.endsWith('PRIVATE KEY'))
        await assert.rejects(parsePrivateKeyPEM(pem), (e: Error) => !(e instanceof TypeError), type);
    }
});
