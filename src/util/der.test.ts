import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DERError,
  Tag,
  children,
  decodeBigInt,
  decodeBitString,
  decodeBoolean,
  decodeOID,
  decodeString,
  decodeTime,
  encodeInt,
  encodeOID,
  encodeTLV,
  encodeTime,
  encodeUnsigned,
  parseDER,
  readTLV,
} from './der.ts';

const b = (...x: number[]) => new Uint8Array(x);
const derError = (re: RegExp) => (e: unknown) => e instanceof DERError && re.test(e.message);

test('TLV: truncated input, wrong and non-minimal lengths, indefinite lengths and high tags are refused', () => {
  assert.throws(() => readTLV(b()), derError(/truncated/));
  assert.throws(() => readTLV(b(0x30)), derError(/truncated/));
  assert.throws(() => readTLV(b(0x30, 0x03, 1, 2)), derError(/truncated/));
  assert.throws(() => readTLV(b(0x04, 0x81)), derError(/truncated/));
  assert.throws(() => readTLV(b(0x04, 0x81, 0x05, 1, 2, 3, 4, 5)), derError(/non-minimal/));
  assert.throws(() => readTLV(b(0x04, 0x82, 0x00, 0x80)), derError(/leading zeros/));
  assert.throws(() => readTLV(b(0x30, 0x80, 0, 0)), derError(/indefinite/));
  assert.throws(() => readTLV(b(0x04, 0x85, 1, 0, 0, 0, 0)), derError(/too large/));
  assert.throws(() => readTLV(b(0x04, 0x84, 0x7f, 0xff, 0xff, 0xff)), derError(/truncated/));
  assert.throws(() => readTLV(b(0x1f, 0x01, 0x00)), derError(/high-tag/));
  assert.throws(() => parseDER(b(0x05, 0x00, 0x00)), derError(/trailing data/));
  assert.throws(() => parseDER(b(0x05, 0x00), Tag.SEQUENCE), derError(/tags don't match/));
  // A child that runs past its parent.
  assert.throws(() => children(parseDER(b(0x30, 0x03, 0x04, 0x05, 0x00))), derError(/truncated/));
  assert.throws(() => children(parseDER(b(0x04, 0x00))), derError(/primitive/));
  // Long form, minimal: fine.
  const long = new Uint8Array(3 + 200);
  long.set([0x04, 0x81, 200]);
  assert.equal(parseDER(long).value.length, 200);
  assert.deepEqual(encodeTLV(0x04, new Uint8Array(200)).subarray(0, 3), b(0x04, 0x81, 200));
  assert.deepEqual(encodeTLV(0x04, new Uint8Array(300)).subarray(0, 4), b(0x04, 0x82, 0x01, 0x2c));
});

test('INTEGER: two’s complement, minimal encodings only', () => {
  for (const n of [0n, 1n, 127n, 128n, 255n, 256n, -1n, -128n, -129n, 2n ** 64n + 5n, -(2n ** 70n)])
    assert.equal(decodeBigInt(parseDER(encodeInt(n))), n, String(n));
  assert.deepEqual(encodeInt(128), b(0x02, 0x02, 0x00, 0x80));
  assert.deepEqual(encodeUnsigned(b(0, 0, 0x80)), b(0x02, 0x02, 0x00, 0x80));
  assert.deepEqual(encodeUnsigned(b(0, 0)), b(0x02, 0x01, 0x00));
  assert.throws(() => decodeBigInt(parseDER(b(0x02, 0x00))), derError(/empty integer/));
  assert.throws(() => decodeBigInt(parseDER(b(0x02, 0x02, 0x00, 0x01))), derError(/minimally/));
  assert.throws(() => decodeBigInt(parseDER(b(0x02, 0x02, 0xff, 0x80))), derError(/minimally/));
  assert.throws(() => decodeBigInt(parseDER(b(0x04, 0x01, 0x00))), derError(/tags don't match/));
});

test('OBJECT IDENTIFIER: round trip, large arcs; bad encodings refused', () => {
  for (const o of [
    '1.2.840.113549.1.1.11',
    '2.5.29.17',
    '2.999.3',
    '0.9.2342.19200300.100.1.1',
    '1.3.6.1.4.1.311.21.7',
  ])
    assert.equal(decodeOID(parseDER(encodeOID(o))), o);
  assert.deepEqual(encodeOID('1.2.840.113549'), b(0x06, 0x06, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d));
  assert.throws(() => decodeOID(parseDER(b(0x06, 0x00))), derError(/invalid object identifier/));
  assert.throws(() => decodeOID(parseDER(b(0x06, 0x01, 0x86))), derError(/invalid object identifier/));
  assert.throws(() => decodeOID(parseDER(b(0x06, 0x02, 0x80, 0x01))), derError(/invalid object identifier/));
  assert.throws(() => decodeOID(parseDER(b(0x06, 0x0a, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f))));
  assert.throws(() => encodeOID('1'), derError(/bad OID/));
});

test('BIT STRING, BOOLEAN, strings', () => {
  assert.deepEqual(decodeBitString(parseDER(b(0x03, 0x02, 0x07, 0x80))), { bytes: b(0x80), unused: 7 });
  assert.throws(() => decodeBitString(parseDER(b(0x03, 0x00))), derError(/zero length/));
  assert.throws(() => decodeBitString(parseDER(b(0x03, 0x01, 0x01))), derError(/padding/));
  assert.throws(() => decodeBitString(parseDER(b(0x03, 0x02, 0x08, 0x00))), derError(/padding/));
  assert.throws(() => decodeBitString(parseDER(b(0x03, 0x02, 0x01, 0x01))), derError(/padding/));
  assert.equal(decodeBoolean(parseDER(b(0x01, 0x01, 0xff))), true);
  assert.equal(decodeBoolean(parseDER(b(0x01, 0x01, 0x00))), false);
  assert.throws(() => decodeBoolean(parseDER(b(0x01, 0x01, 0x01))), derError(/invalid boolean/));
  assert.throws(() => decodeBoolean(parseDER(b(0x01, 0x02, 0, 0))), derError(/invalid boolean/));
  assert.equal(decodeString(parseDER(b(0x0c, 0x02, 0xc3, 0xa9))), 'é');
  assert.throws(() => decodeString(parseDER(b(0x0c, 0x01, 0xff))), derError(/invalid string/));
  assert.throws(() => decodeString(parseDER(b(0x13, 0x01, 0xe9))), derError(/invalid character/));
  assert.equal(decodeString(parseDER(b(0x1e, 0x02, 0x00, 0x41))), 'A');
  assert.throws(() => decodeString(parseDER(b(0x1e, 0x01, 0x00))), derError(/BMPString/));
  assert.throws(() => decodeString(parseDER(b(0x04, 0x00))), derError(/unsupported string/));
});

test('time: UTCTime pivots at 1950, GeneralizedTime after 2049, impossible dates refused', () => {
  const t = (tag: number, s: string) => decodeTime(parseDER(encodeTLV(tag, new TextEncoder().encode(s))));
  assert.equal(t(Tag.UTCTime, '491231235959Z').toISOString(), '2049-12-31T23:59:59.000Z');
  assert.equal(t(Tag.UTCTime, '500101000000Z').toISOString(), '1950-01-01T00:00:00.000Z');
  assert.equal(t(Tag.GeneralizedTime, '20500101000000Z').toISOString(), '2050-01-01T00:00:00.000Z');
  for (const bad of ['490230000000Z', '491231240000Z', '4912312359Z', '491231235959+0100', '49123123595aZ'])
    assert.throws(() => t(Tag.UTCTime, bad), derError(/invalid/), bad);
  assert.throws(() => t(Tag.GeneralizedTime, '20500101000000.5Z'), derError(/invalid GeneralizedTime/));
  assert.throws(() => t(Tag.INTEGER, '1'), derError(/expected UTCTime/));
  for (const d of ['2049-12-31T23:59:59Z', '2050-01-01T00:00:00Z', '1999-02-28T01:02:03Z'])
    assert.equal(decodeTime(parseDER(encodeTime(new Date(d)))).getTime(), new Date(d).getTime());
  assert.equal(encodeTime(new Date('2050-01-01T00:00:00Z'))[0], Tag.GeneralizedTime);
});
