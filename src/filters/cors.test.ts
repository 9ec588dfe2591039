import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withCORS, compileOriginPatterns } from './cors.ts';
import { recorder, serve, testContext } from './testing.ts';

const c = { corsAllowedOrigins: ['//example\\.com(:|$)', '^https://other\\.io$'] };
const expected = {
  'access-control-allow-credentials': 'true',
  'access-control-allow-headers': 'Content-Type, Content-Length, Accept-Encoding, X-CSRF-Token, Authorization, X-Requested-With, If-Modified-Since',
  'access-control-allow-methods': 'POST, GET, OPTIONS, PUT, DELETE, PATCH',
  'access-control-expose-headers': 'Date',
};

test('WithCORS: an allowed origin gets the five headers, echoing the Origin', async () => {
  const next = recorder();
  const res = await serve(withCORS(next, c), testContext('/api/v1/pods', { headers: { Origin: 'https://example.com:8443' } }));
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('access-control-allow-origin'), 'https://example.com:8443');
  for (const [k, v] of Object.entries(expected)) assert.equal(res.headers.get(k), v, k);
  assert.equal(res.headers.get('vary'), null);
  assert.equal(next.calls.length, 1);
});

test('WithCORS: preflight from an allowed origin is a 204 with an empty body, before anything else', async () => {
  const next = recorder();
  const res = await serve(withCORS(next, c), testContext('/api/v1/pods', { method: 'OPTIONS', headers: { Origin: 'https://other.io' } }));
  assert.equal(res.status, 204);
  assert.equal(await res.text(), '');
  assert.equal(res.headers.get('access-control-allow-origin'), 'https://other.io');
  assert.equal(next.calls.length, 0);
});

test('WithCORS: no Origin or an unmatched one passes through untouched', async () => {
  for (const headers of [{}, { Origin: 'https://evil.com' }, { Origin: 'https://other.io.evil' }] as Record<string, string>[]) {
    const next = recorder();
    const res = await serve(withCORS(next, c), testContext('/x', { method: 'OPTIONS', headers }));
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('access-control-allow-origin'), null);
    assert.equal(next.calls.length, 1);
  }
});

test('WithCORS: patterns are unanchored (CVE-2022-1996 behaviour kept)', async () => {
  const res = await serve(withCORS(recorder(), { corsAllowedOrigins: ['example.com'] }), testContext('/', { headers: { Origin: 'http://example.com.hacker.org' } }));
  assert.equal(res.headers.get('access-control-allow-origin'), 'http://example.com.hacker.org');
});

test('WithCORS: absent without origins; (?i) flags; invalid regex fails at build', () => {
  const next = recorder();
  assert.equal(withCORS(next, { corsAllowedOrigins: [] }), next);
  assert.equal(compileOriginPatterns(['(?i)^https://EXAMPLE\\.com$'])[0]!.test('https://example.com'), true);
  assert.throws(() => withCORS(next, { corsAllowedOrigins: ['(['] }), /^Error: Invalid CORS allowed origin, --cors-allowed-origins flag was set to \(\[ - /);
});
