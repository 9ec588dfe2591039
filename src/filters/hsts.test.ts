import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withHSTS } from './hsts.ts';
import { recorder, serve, testContext } from './testing.ts';

test('WithHSTS: directives joined with "; "', async () => {
  const res = await serve(
    withHSTS(recorder(), { hstsDirectives: ['max-age=31536000', 'includeSubDomains', 'preload'] }),
    testContext('/'),
  );
  assert.equal(res.headers.get('strict-transport-security'), 'max-age=31536000; includeSubDomains; preload');
});

test('WithHSTS: absent without directives; an existing value is kept', async () => {
  const next = recorder();
  assert.equal(withHSTS(next, { hstsDirectives: [] }), next);
  const ctx = testContext('/');
  ctx.responseHeaders.set('Strict-Transport-Security', 'max-age=1');
  const res = await serve(withHSTS(recorder(), { hstsDirectives: ['max-age=2'] }), ctx);
  assert.equal(res.headers.get('strict-transport-security'), 'max-age=1');
});
