import { test } from 'node:test';
import assert from 'node:assert/strict';
import { base64Decode, base64Encode } from './base64.ts';

test('base64: round trip of every length and byte, same as atob/btoa', () => {
  for (let n = 0; n < 70; n++) {
    const bytes = new Uint8Array(n).map((_, i) => (i * 37 + n) & 0xff);
    const s = base64Encode(bytes);
    assert.equal(s, Buffer.from(bytes).toString('base64'));
    assert.deepEqual(base64Decode(s), bytes);
  }
});

test('base64: whitespace and missing padding are accepted as atob does; bad input throws', () => {
  assert.deepEqual(base64Decode('aGVs\nbG8='), new TextEncoder().encode('hello'));
  assert.deepEqual(base64Decode('aGVsbG8'), new TextEncoder().encode('hello'));
  assert.deepEqual(base64Decode(''), new Uint8Array(0));
  assert.throws(() => base64Decode('a$=='));
  assert.throws(() => base64Decode('abcde'));
  assert.throws(() => base64Decode('aé=='));
});

test('URL-safe base64 without padding (RawURLEncoding)', async () => {
  const { decodeBase64URL, encodeBase64URL } = await import('./base64.ts');
  const bytes = new Uint8Array([0xfb, 0xff, 0xfe, 0x00, 0x3f]);
  assert.equal(encodeBase64URL(bytes), '-__-AD8');
  assert.equal(encodeBase64URL('{"a":1}'), 'eyJhIjoxfQ');
  assert.deepEqual(decodeBase64URL('-__-AD8'), bytes);
  assert.deepEqual(decodeBase64URL('-__-AD8='), bytes, 'padding is optional');
  for (const bad of ['+//+AD8', 'ab c', 'a', 'abcde']) assert.throws(() => decodeBase64URL(bad), /illegal base64url/);
});
