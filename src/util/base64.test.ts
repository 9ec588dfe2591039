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

test("base64: whitespace and missing padding are accepted as atob does; bad input throws", () => {
  assert.deepEqual(base64Decode('aGVs\nbG8='), new TextEncoder().encode('hello'));
  assert.deepEqual(base64Decode('aGVsbG8'), new TextEncoder().encode('hello'));
  assert.deepEqual(base64Decode(''), new Uint8Array(0));
  assert.throws(() => base64Decode('a$=='));
  assert.throws(() => base64Decode('abcde'));
  assert.throws(() => base64Decode('aé=='));
});
