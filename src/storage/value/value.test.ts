import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newCBCTransformer, newGCMTransformer } from './encrypt/aes.ts';
import { newSecretboxTransformer } from './encrypt/secretbox.ts';
import { loadEncryptionConfig, transformerFor } from './encryptionconfig.ts';
import { identityTransformer, newPrefixTransformers } from './transformer.ts';
import { encodeBase64 } from '../../util/base64.ts';

const enc = new TextEncoder();
const dec = new TextDecoder();
const key = (n: number, fill = 1) => new Uint8Array(n).fill(fill);
const ad = enc.encode('/registry/secrets/default/s1');
const plain = enc.encode('{"kind":"Secret","data":{"password":"aHVudGVyMg=="}}');

for (const [name, make, size] of [
  ['aesgcm', newGCMTransformer, 32],
  ['aescbc', newCBCTransformer, 32],
  ['secretbox', newSecretboxTransformer, 32],
] as const) {
  test(`${name}: round trip; a different key does not open it; the ciphertext is not the plaintext`, async () => {
    const t = make(key(size));
    const sealed = await t.transformToStorage(plain, ad);
    assert.ok(!dec.decode(sealed).includes('aHVudGVyMg'));
    assert.notDeepEqual(sealed, await t.transformToStorage(plain, ad), 'a fresh nonce or IV each time');
    assert.deepEqual((await t.transformFromStorage(sealed, ad)).data, plain);
    await assert.rejects(make(key(size, 2)).transformFromStorage(sealed, ad));
    await assert.rejects(t.transformFromStorage(sealed.subarray(0, 8), ad), /shorter than the required size/);
  });
}

test('aesgcm authenticates the key: a value moved to another key does not open', async () => {
  const t = newGCMTransformer(key(16));
  const sealed = await t.transformToStorage(plain, ad);
  await assert.rejects(
    t.transformFromStorage(sealed, enc.encode('/registry/secrets/default/s2')),
    /authentication failed/,
  );
});

test('prefix transformers: the first writes; others read and report stale; identity above migrates away', async () => {
  const k1 = { prefix: enc.encode('k8s:enc:aescbc:v1:k1:'), transformer: newCBCTransformer(key(32, 1)) };
  const k2 = { prefix: enc.encode('k8s:enc:aescbc:v1:k2:'), transformer: newCBCTransformer(key(32, 2)) };
  const old = newPrefixTransformers(new Error('no matching prefix found'), k1);
  const rotated = newPrefixTransformers(new Error('no matching prefix found'), k2, k1);
  const stored = await old.transformToStorage(plain, ad);
  assert.ok(dec.decode(stored).startsWith('k8s:enc:aescbc:v1:k1:'));
  assert.deepEqual(await rotated.transformFromStorage(stored, ad), { data: plain, stale: true });
  const rewritten = await rotated.transformToStorage(plain, ad);
  assert.ok(dec.decode(rewritten).startsWith('k8s:enc:aescbc:v1:k2:'));
  assert.equal((await rotated.transformFromStorage(rewritten, ad)).stale, false);
  await assert.rejects(old.transformFromStorage(rewritten, ad), /no matching prefix found/);
  await assert.rejects(old.transformFromStorage(plain, ad), /no matching prefix found/);

  const identity = { prefix: new Uint8Array(0), transformer: identityTransformer };
  const decrypting = newPrefixTransformers(new Error('no matching prefix found'), identity, k1);
  assert.deepEqual(await decrypting.transformFromStorage(stored, ad), { data: plain, stale: true });
  assert.deepEqual(await decrypting.transformToStorage(plain, ad), plain);
});

const b64 = (n: number) => encodeBase64(key(n, 7));
const config = (providers: string) => `apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
  - resources: [secrets, '*.apps']
    providers:
${providers}
`;

test('EncryptionConfiguration: resources are matched exactly, by group wildcard, then by *.*', () => {
  const overrides = loadEncryptionConfig(
    config(`      - aesgcm:
          keys: [{name: k1, secret: "${b64(32)}"}]
      - identity: {}`),
  );
  assert.ok(transformerFor(overrides, { group: '', resource: 'secrets' }));
  assert.ok(transformerFor(overrides, { group: 'apps', resource: 'deployments' }));
  assert.equal(transformerFor(overrides, { group: '', resource: 'configmaps' }), undefined);
});

test('EncryptionConfiguration: upstream validation messages, secrets redacted', () => {
  const cases: [string, string][] = [
    [
      `      - aescbc:
          keys: [{name: k1, secret: "${b64(8)}"}]`,
      'resources[0].providers[0].aescbc.keys[0].secret: Invalid value: "REDACTED": secret is not of the expected length, got 8, expected one of [16 24 32]',
    ],
    [
      `      - secretbox:
          keys: [{name: k1, secret: "${b64(16)}"}]`,
      'resources[0].providers[0].secretbox.keys[0].secret: Invalid value: "REDACTED": secret is not of the expected length, got 16, expected one of [32]',
    ],
    [
      `      - aesgcm:
          keys: [{name: k1, secret: "not base64!"}]`,
      'resources[0].providers[0].aesgcm.keys[0].secret: Invalid value: "REDACTED": secrets must be base64 encoded',
    ],
    [
      `      - aesgcm:
          keys: []`,
      'resources[0].providers[0].aesgcm.keys: Required value: at least one keys is required',
    ],
    [
      `      - aesgcm:
          keys: [{secret: "${b64(16)}"}]`,
      'resources[0].providers[0].aesgcm.keys[0].name: Required value: name is a mandatory field for a key',
    ],
  ];
  for (const [providers, message] of cases)
    assert.throws(() => loadEncryptionConfig(config(providers)), { message: `error while parsing file: ${message}` });
  assert.throws(() => loadEncryptionConfig('apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\n'), {
    message: 'error while parsing file: resources: Required value: at least one resources is required',
  });
  assert.throws(() => loadEncryptionConfig('kind: Foo\n'), /unexpected object kind "Foo"/);
});
