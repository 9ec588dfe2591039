import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withWarningRecorder } from './warning.ts';
import { WarningRecorder, addWarning, newWarningHeader } from '../endpoints/request/warning.ts';
import { serve, testContext } from './testing.ts';

const utf8 = (byteString: string) => new TextDecoder().decode(Uint8Array.from(byteString, (c) => c.charCodeAt(0)));
const warnings = (h: Headers) => (h.get('warning') ?? '').split(', ').filter(Boolean).map(utf8);

test('WithWarningRecorder: 299 - "text", de-duplicated by text, first agent wins', async () => {
  const h = withWarningRecorder((ctx) => {
    addWarning(ctx, '', 'first');
    addWarning(ctx, 'other', 'first');
    addWarning(ctx, 'kube', 'say "hi" \\ bye');
    addWarning(ctx, '', '');
    return new Response('ok');
  });
  const res = await serve(h, testContext('/'));
  assert.deepEqual(warnings(res.headers), ['299 - "first"', '299 kube "say \\"hi\\" \\\\ bye"']);
});

test('NewWarningHeader: invalid agents or texts are dropped', () => {
  assert.equal(newWarningHeader(299, 'a b', 'x'), null);
  assert.equal(newWarningHeader(299, 'a"b', 'x'), null);
  assert.equal(newWarningHeader(299, 'a\\b', 'x'), null);
  assert.equal(newWarningHeader(299, '', 'bad\ttext'), null);
  assert.equal(newWarningHeader(299, '', 'bad\u0085text'), null);
  assert.equal(newWarningHeader(299, '', 'bad\ud800'), null);
  assert.equal(newWarningHeader(1000, '', 'x'), null);
  assert.equal(newWarningHeader(7, 'agent', 'x'), '007 agent "x"');
  // Non-ASCII text goes out as its UTF-8 bytes.
  assert.equal(utf8(newWarningHeader(299, '', 'Iñtër 日本')!), '299 - "Iñtër 日本"');
});

test('WarningRecorder: upstream limits test (total 25, per item 5)', () => {
  const headers = new Headers();
  const r = new WarningRecorder(headers, 25, 5);
  for (const t of ['aaaaaaaaaa', 'aaaaaaaaaa', 'bb', 'ccc', 'Iñtërnâtiô']) r.addWarning('', t);
  assert.deepEqual(warnings(headers), ['299 - "aaaaaaaaaa"', '299 - "bb"', '299 - "ccc"', '299 - "Iñtërnâtiô"']);
  for (const t of ['e', 'ffffffffff', 'ffffffffff', 'gggggggggg', 'h']) r.addWarning('', t);
  assert.deepEqual(warnings(headers), [
    '299 - "aaaaa"',
    '299 - "bb"',
    '299 - "ccc"',
    '299 - "Iñtër"',
    '299 - "e"',
    '299 - "fffff"',
    '299 - "ggggg"',
  ]);
});

test('WarningRecorder: default limits 4096 total, 256 per item', () => {
  const headers = new Headers();
  const r = new WarningRecorder(headers);
  r.addWarning('', 'x'.repeat(4000));
  r.addWarning('', 'y'.repeat(100));
  const w = warnings(headers);
  assert.equal(w.length, 2);
  assert.equal(w[0], `299 - "${'x'.repeat(256)}"`);
  assert.equal(w[1], `299 - "${'y'.repeat(100)}"`);
});
