import { test } from 'node:test';
import assert from 'node:assert/strict';
import { finalizeResponse, newRequestContext } from './context.ts';

const ctxWith = (headers: [string, string][]) => {
  const ctx = newRequestContext(new Request('https://127.0.0.1/healthz'));
  for (const [n, v] of headers) ctx.responseHeaders.append(n, v);
  return ctx;
};

test('finalizeResponse: every Set-Cookie line of the shared map reaches the response', () => {
  const ctx = ctxWith([
    ['Set-Cookie', 'a=1'],
    ['set-cookie', 'b=2'],
    ['Audit-Id', 'x'],
  ]);
  const res = finalizeResponse(ctx, new Response('ok'));
  assert.deepEqual(res.headers.getSetCookie(), ['a=1', 'b=2']);
  assert.equal(res.headers.get('audit-id'), 'x');
});

test("finalizeResponse: the responder's own Set-Cookie lines win, as its other headers do", () => {
  const ctx = ctxWith([
    ['set-cookie', 'a=1'],
    ['set-cookie', 'b=2'],
    ['cache-control', 'no-cache'],
  ]);
  const own = new Response('ok', {
    headers: [
      ['set-cookie', 'mine=1'],
      ['cache-control', 'private'],
    ],
  });
  const res = finalizeResponse(ctx, own);
  assert.deepEqual(res.headers.getSetCookie(), ['mine=1']);
  assert.equal(res.headers.get('cache-control'), 'private');
});

test('finalizeResponse: immutable response headers are copied, not lost', () => {
  const ctx = ctxWith([
    ['set-cookie', 'a=1'],
    ['set-cookie', 'b=2'],
  ]);
  const redirect = Response.redirect('https://example.com/', 302);
  assert.throws(() => redirect.headers.set('x', '1'));
  const res = finalizeResponse(ctx, redirect);
  assert.deepEqual(res.headers.getSetCookie(), ['a=1', 'b=2']);
  assert.equal(res.headers.get('location'), 'https://example.com/');
});
