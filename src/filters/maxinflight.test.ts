import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withMaxInFlightLimit } from './maxinflight.ts';
import { kubeLongRunningRequestCheck } from '../server/config.ts';
import { serve, testContext } from './testing.ts';
import type { Handler } from '../endpoints/request/context.ts';

function blocking(): { h: Handler; releaseAll: () => void } {
  const pending: (() => void)[] = [];
  return {
    h: () => new Promise<Response>((r) => pending.push(() => r(new Response('ok')))),
    releaseAll: () => pending.splice(0).forEach((f) => f()),
  };
}

async function assert429(res: Response) {
  assert.equal(res.status, 429);
  assert.equal(res.headers.get('retry-after'), '1');
  assert.equal(res.headers.get('content-type'), 'text/plain; charset=utf-8');
  assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
  assert.equal(await res.text(), 'Too many requests, please try again later.\n');
}

test('WithMaxInFlightLimit: read-only and mutating buckets, plain-text 429 when full', async () => {
  const b = blocking();
  const h = withMaxInFlightLimit(b.h, { maxRequestsInFlight: 2, maxMutatingRequestsInFlight: 1, longRunningFunc: kubeLongRunningRequestCheck });
  const held = [h(testContext('/api/v1/pods')), h(testContext('/api/v1/namespaces/ns/pods/p'))];
  await assert429(await serve(h, testContext('/api/v1/pods')));
  // The mutating bucket is separate.
  held.push(h(testContext('/api/v1/namespaces/ns/pods', { method: 'POST' })));
  await assert429(await serve(h, testContext('/api/v1/namespaces/ns/pods/p', { method: 'DELETE' })));
  // Non-resource HEAD/OPTIONS/POST count as mutating; GET as read-only.
  await assert429(await serve(h, testContext('/healthz', { method: 'HEAD' })));
  await assert429(await serve(h, testContext('/healthz')));
  b.releaseAll();
  await Promise.all(held);
  const again = h(testContext('/api/v1/pods'));
  b.releaseAll();
  assert.equal((await again).status, 200);
});

test('WithMaxInFlightLimit: long-running requests are not counted; system:masters is never rejected', async () => {
  const b = blocking();
  const h = withMaxInFlightLimit(b.h, { maxRequestsInFlight: 1, maxMutatingRequestsInFlight: 1, longRunningFunc: kubeLongRunningRequestCheck });
  const held = [h(testContext('/api/v1/pods?watch=1')), h(testContext('/api/v1/namespaces/n/pods/p/log')), h(testContext('/api/v1/pods'))];
  const admin = testContext('/api/v1/pods');
  admin.user = { name: 'admin', groups: ['system:masters', 'system:authenticated'] };
  const p = h(admin);
  await assert429(await serve(h, testContext('/api/v1/pods')));
  b.releaseAll();
  assert.equal((await p).status, 200);
  await Promise.all(held);
});

test('WithMaxInFlightLimit: 0 disables a bucket; both 0 removes the filter; errors release the slot', async () => {
  const b = blocking();
  const next: Handler = b.h;
  assert.equal(withMaxInFlightLimit(next, { maxRequestsInFlight: 0, maxMutatingRequestsInFlight: 0, longRunningFunc: kubeLongRunningRequestCheck }), next);
  const h = withMaxInFlightLimit(next, { maxRequestsInFlight: 0, maxMutatingRequestsInFlight: 1, longRunningFunc: kubeLongRunningRequestCheck });
  const many = Array.from({ length: 5 }, () => h(testContext('/api/v1/pods')));
  b.releaseAll();
  for (const r of await Promise.all(many)) assert.equal(r.status, 200);
  const failing = withMaxInFlightLimit(async () => { throw new Error('x'); }, { maxRequestsInFlight: 1, maxMutatingRequestsInFlight: 1, longRunningFunc: kubeLongRunningRequestCheck });
  await assert.rejects(async () => failing(testContext('/api/v1/pods')));
  await assert.rejects(async () => failing(testContext('/api/v1/pods')), /x/); // slot was released
});

test('WithMaxInFlightLimit: missing RequestInfo is the 500 with the quoted URI', async () => {
  const h = withMaxInFlightLimit(() => new Response('ok'), { maxRequestsInFlight: 1, maxMutatingRequestsInFlight: 1, longRunningFunc: kubeLongRunningRequestCheck });
  const res = await serve(h, testContext('/x?y', { noInfo: true }));
  assert.equal(res.status, 500);
  assert.equal(await res.text(), 'Internal Server Error: "/x?y"\n');
});
