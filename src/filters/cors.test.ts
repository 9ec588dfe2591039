import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withCORS, compileOriginPatterns } from './cors.ts';
import { recorder, serve, testContext } from './testing.ts';

const c = { corsAllowedOrigins: ['//example\\.com(:|$)', '^https://other\\.io$'] };
const expected = {
  'access-control-allow-credentials': 'true',
  'access-control-allow-headers':
    'Content-Type, Content-Length, Accept-Encoding, X-CSRF-Token, Authorization, X-Requested-With, If-Modified-Since',
  'access-control-allow-methods': 'POST, GET, OPTIONS, PUT, DELETE, PATCH',
  'access-control-expose-headers': 'Date',
};

test('WithCORS: an allowed origin gets the five headers, echoing the Origin', async () => {
  const next = recorder();
  const res = await serve(
    withCORS(next, c),
    testContext('/api/v1/pods', { headers: { Origin: 'https://example.com:8443' } }),
  );
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('access-control-allow-origin'), 'https://example.com:8443');
  for (const [k, v] of Object.entries(expected)) assert.equal(res.headers.get(k), v, k);
  assert.equal(res.headers.get('vary'), null);
  assert.equal(next.calls.length, 1);
});

test('WithCORS: preflight from an allowed origin is a 204 with an empty body, before anything else', async () => {
  const next = recorder();
  const res = await serve(
    withCORS(next, c),
    testContext('/api/v1/pods', { method: 'OPTIONS', headers: { Origin: 'https://other.io' } }),
  );
  assert.equal(res.status, 204);
  assert.equal(await res.text(), '');
  assert.equal(res.headers.get('access-control-allow-origin'), 'https://other.io');
  assert.equal(next.calls.length, 0);
});

test('WithCORS: no Origin or an unmatched one passes through untouched', async () => {
  for (const headers of [{}, { Origin: 'https://evil.com' }, { Origin: 'https://other.io.evil' }] as Record<
    string,
    string
  >[]) {
    const next = recorder();
    const res = await serve(withCORS(next, c), testContext('/x', { method: 'OPTIONS', headers }));
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('access-control-allow-origin'), null);
    assert.equal(next.calls.length, 1);
  }
});

test('WithCORS: patterns are unanchored (CVE-2022-1996 behaviour kept)', async () => {
  const res = await serve(
    withCORS(recorder(), { corsAllowedOrigins: ['example.com'] }),
    testContext('/', { headers: { Origin: 'http://example.com.hacker.org' } }),
  );
  assert.equal(res.headers.get('access-control-allow-origin'), 'http://example.com.hacker.org');
});

test('WithCORS: absent without origins; (?i) flags; invalid regex fails at build', () => {
  const next = recorder();
  assert.equal(withCORS(next, { corsAllowedOrigins: [] }), next);
  assert.equal(compileOriginPatterns(['(?i)^https://EXAMPLE\\.com$'])[0]!.test('https://example.com'), true);
  assert.throws(
    () => withCORS(next, { corsAllowedOrigins: ['(['] }),
    /^Error: Invalid CORS allowed origin, --cors-allowed-origins flag was set to \(\[ - /,
  );
});

test('TestCORSAllowedOrigins (upstream table)', async () => {
  const table: [string[], string, boolean][] = [
    [[], 'example.com', false],
    [['example.com'], 'example.com', true],
    [['example.com'], 'not-allowed.com', false],
    [['not-matching.com', 'example.com'], 'example.com', true],
    [['.*'], 'example.com', true],
  ];
  for (const [corsAllowedOrigins, origin, allowed] of table) {
    const res = await serve(
      withCORS(recorder(), { corsAllowedOrigins }),
      testContext('/version', { headers: { Origin: origin } }),
    );
    const h = (k: string) => res.headers.get(k) ?? '';
    if (allowed) {
      assert.equal(h('access-control-allow-origin'), origin);
      assert.notEqual(h('access-control-allow-credentials'), '');
      assert.notEqual(h('access-control-allow-headers'), '');
      assert.notEqual(h('access-control-allow-methods'), '');
      assert.equal(h('access-control-expose-headers'), 'Date');
    } else {
      for (const k of ['origin', 'credentials', 'headers', 'methods']) assert.equal(h(`access-control-allow-${k}`), '');
      assert.notEqual(h('access-control-expose-headers'), 'Date');
    }
  }
});

test('TestCORSAllowedMethods (default methods) and TestCompileRegex (upstream)', async () => {
  for (const method of ['POST', 'GET', 'OPTIONS', 'PUT', 'DELETE', 'PATCH']) {
    const res = await serve(
      withCORS(recorder(), { corsAllowedOrigins: ['.*'] }),
      testContext('/version', { method, headers: { Origin: 'allowed.com' } }),
    );
    assert.ok(
      res.headers
        .get('access-control-allow-methods')!
        .split(',')
        .map((m) => m.trim())
        .includes(method),
      method,
    );
  }
  const [ends, starts] = compileOriginPatterns(['endsWithMe$', '^startingWithMe']);
  assert.equal(ends!.test('Something that endsWithMe'), true);
  assert.equal(ends!.test("Something that doesn't endsWithMe."), false);
  assert.equal(starts!.test('startingWithMe is very important'), true);
  assert.equal(starts!.test('not startingWithMe should fail'), false);
});
