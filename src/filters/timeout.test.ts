import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withTimeoutForNonLongRunningRequests } from './timeout.ts';
import { setRequestDeadline } from './request-deadline.ts';
import { kubeLongRunningRequestCheck } from '../endpoints/request/longrunning.ts';
import { discardLogger } from '../util/logger.ts';
import { recorder, serve, testContext } from './testing.ts';
import type { RequestContext } from '../endpoints/request/context.ts';

const c = { longRunningFunc: kubeLongRunningRequestCheck, requestTimeout: 60_000, logger: discardLogger };
const body504 =
  '{"metadata":{},"status":"Failure","message":"Timeout: request did not complete within the allotted timeout","reason":"Timeout","details":{},"code":504}\n';

function ctxWithDeadline(path: string, ms: number, init?: RequestInit): RequestContext {
  const ctx = testContext(path, init);
  setRequestDeadline(ctx, Date.now() + ms);
  return ctx;
}

test('WithTimeout: a handler that never answers gets the exact 504; inner headers dropped, outer kept', async () => {
  let inner!: RequestContext;
  const h = withTimeoutForNonLongRunningRequests((ctx) => {
    inner = ctx;
    ctx.responseHeaders.set('Access-Control-Allow-Origin', 'https://x');
    ctx.responseHeaders.append('Warning', '299 - "w"');
    return new Promise<Response>(() => {});
  }, c);
  const ctx = ctxWithDeadline('/api/v1/pods', 30);
  ctx.responseHeaders.set('Audit-Id', 'a1');
  ctx.responseHeaders.set('Cache-Control', 'no-cache, private');
  const res = await serve(h, ctx);
  assert.equal(res.status, 504);
  assert.equal(res.headers.get('content-type'), 'text/plain; charset=utf-8');
  assert.equal(res.headers.get('audit-id'), 'a1');
  assert.equal(res.headers.get('cache-control'), 'no-cache, private');
  assert.equal(res.headers.get('access-control-allow-origin'), null);
  assert.equal(res.headers.get('warning'), null);
  assert.equal(res.headers.get('retry-after'), null);
  assert.equal(await res.text(), body504);
  // The inner handler was told through its AbortSignal.
  assert.equal(inner.signal.aborted, true);
  assert.equal((inner.signal.reason as Error).message, 'context deadline exceeded');
  // The copy started with the outer headers.
  assert.equal(inner.responseHeaders.get('audit-id'), 'a1');
});

test('WithTimeout: in-time answers keep the inner headers, and the handler sees no abort', async () => {
  let inner!: RequestContext;
  const h = withTimeoutForNonLongRunningRequests(async (ctx) => {
    inner = ctx;
    ctx.responseHeaders.set('Warning', '299 - "w"');
    await new Promise((r) => setTimeout(r, 5));
    return new Response('ok', { headers: { 'X-Own': '1' } });
  }, c);
  const ctx = ctxWithDeadline('/api/v1/pods', 1000);
  ctx.responseHeaders.set('Audit-Id', 'a1');
  const res = await serve(h, ctx);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('warning'), '299 - "w"');
  assert.equal(res.headers.get('x-own'), '1');
  assert.equal(res.headers.get('audit-id'), 'a1');
  assert.equal(inner.signal.aborted, false);
});

test('WithTimeout: a throw inside is re-raised with the outer headers only; writes after a 504 are lost', async () => {
  const h = withTimeoutForNonLongRunningRequests(async (ctx) => {
    ctx.responseHeaders.set('Access-Control-Allow-Origin', 'https://x');
    throw new Error('boom');
  }, c);
  const ctx = ctxWithDeadline('/x', 1000);
  ctx.responseHeaders.set('Audit-Id', 'a1');
  await assert.rejects(async () => h(ctx), /boom/);
  assert.equal(ctx.responseHeaders.get('access-control-allow-origin'), null);
  assert.equal(ctx.responseHeaders.get('audit-id'), 'a1');

  let inner!: RequestContext;
  const slow = withTimeoutForNonLongRunningRequests(async (c2) => {
    inner = c2;
    await new Promise((r) => setTimeout(r, 30));
    c2.responseHeaders.set('X-Late', '1');
    return new Response('late');
  }, c);
  const ctx2 = ctxWithDeadline('/x', 5);
  const res = await serve(slow, ctx2);
  assert.equal(res.status, 504);
  await new Promise((r) => setTimeout(r, 40));
  assert.equal(inner.responseHeaders.get('x-late'), '1');
  assert.equal(ctx2.responseHeaders.get('x-late'), null);
});

test('WithTimeout: the inner signal also reports the client going away', async () => {
  const ac = new AbortController();
  const h = withTimeoutForNonLongRunningRequests(
    (ctx) =>
      new Promise<Response>((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason))),
    c,
  );
  const p = h(ctxWithDeadline('/api/v1/pods', 60_000, { signal: ac.signal }));
  ac.abort(new Error('client gone'));
  await assert.rejects(async () => p, /client gone/);
});

test('WithTimeout: a signal first read after the deadline is already aborted; long deadlines use the shared wheel', async () => {
  let inner!: RequestContext;
  const h = withTimeoutForNonLongRunningRequests((ctx) => {
    inner = ctx;
    return new Promise<Response>(() => {});
  }, c);
  assert.equal((await h(ctxWithDeadline('/x', 10))).status, 504);
  assert.equal(inner.signal.aborted, true);
  // A 1.2 s deadline goes through the 100 ms wheel: fires within a slot of it.
  const t0 = Date.now();
  assert.equal((await h(ctxWithDeadline('/x', 1200))).status, 504);
  const took = Date.now() - t0;
  assert.ok(took >= 1150 && took < 1600, `took ${took}ms`);
});

test('WithTimeout: uses --request-timeout without a deadline; long-running requests pass through', async () => {
  const h = withTimeoutForNonLongRunningRequests(() => new Promise<Response>(() => {}), { ...c, requestTimeout: 20 });
  assert.equal((await h(testContext('/api/v1/pods'))).status, 504);
  const next = recorder();
  const lr = withTimeoutForNonLongRunningRequests(next, c);
  const ctx = testContext('/api/v1/pods?watch=1');
  await lr(ctx);
  assert.equal(next.calls[0], ctx); // same context, no child
});

test('WithTimeout: errors propagate (to panic recovery) and late answers are discarded', async () => {
  const h = withTimeoutForNonLongRunningRequests(async () => {
    throw new Error('boom');
  }, c);
  await assert.rejects(async () => h(ctxWithDeadline('/x', 1000)), /boom/);
  let cancelled = false;
  const late = withTimeoutForNonLongRunningRequests(async () => {
    await new Promise((r) => setTimeout(r, 30));
    return new Response(new ReadableStream({ cancel: () => void (cancelled = true) }));
  }, c);
  assert.equal((await late(ctxWithDeadline('/x', 5))).status, 504);
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(cancelled, true);
});

test('WithTimeout: what inner layers set on the context (user, request) is seen outside', async () => {
  const ctx = ctxWithDeadline('/api/v1/pods', 1000);
  const h = withTimeoutForNonLongRunningRequests((inner) => {
    inner.user = { name: 'alice' };
    inner.request = new Request('https://example.test/rebuilt');
    return new Response('ok');
  }, c);
  await serve(h, ctx);
  assert.equal(ctx.user?.name, 'alice');
  assert.equal(ctx.request.url, 'https://example.test/rebuilt');
});
