import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withCacheControl } from './cachecontrol.ts';
import { recorder, serve, testContext } from './testing.ts';

test('WithCacheControl: no-cache, private on every path, set before next', async () => {
  for (const path of ['/api/v1/pods', '/healthz', '/openapi/v3']) {
    const next = recorder();
    const ctx = testContext(path);
    const res = await serve(withCacheControl(next), ctx);
    assert.equal(res.headers.get('cache-control'), 'no-cache, private');
    assert.equal(next.calls[0]!.responseHeaders.get('cache-control'), 'no-cache, private');
  }
});

test('WithCacheControl: a handler value wins; a value already on the map is kept', async () => {
  let res = await serve(
    withCacheControl(() => new Response('', { headers: { 'Cache-Control': 'public, immutable' } })),
    testContext('/openapi/v3/apis/x'),
  );
  assert.equal(res.headers.get('cache-control'), 'public, immutable');
  const ctx = testContext('/');
  ctx.responseHeaders.set('Cache-Control', 'max-age=1');
  res = await serve(withCacheControl(recorder()), ctx);
  assert.equal(res.headers.get('cache-control'), 'max-age=1');
});
