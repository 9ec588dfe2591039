import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withMaxInFlightLimit } from './maxinflight.ts';
import { kubeLongRunningRequestCheck } from '../endpoints/request/longrunning.ts';
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
  const h = withMaxInFlightLimit(b.h, {
    maxRequestsInFlight: 2,
    maxMutatingRequestsInFlight: 1,
    longRunningFunc: kubeLongRunningRequestCheck,
  });
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
  const h = withMaxInFlightLimit(b.h, {
    maxRequestsInFlight: 1,
    maxMutatingRequestsInFlight: 1,
    longRunningFunc: kubeLongRunningRequestCheck,
  });
  const held = [
    h(testContext('/api/v1/pods?watch=1')),
    h(testContext('/api/v1/namespaces/n/pods/p/log')),
    h(testContext('/api/v1/pods')),
  ];
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
  assert.equal(
    withMaxInFlightLimit(next, {
      maxRequestsInFlight: 0,
      maxMutatingRequestsInFlight: 0,
      longRunningFunc: kubeLongRunningRequestCheck,
    }),
    next,
  );
  const h = withMaxInFlightLimit(next, {
    maxRequestsInFlight: 0,
    maxMutatingRequestsInFlight: 1,
    longRunningFunc: kubeLongRunningRequestCheck,
  });
  const many = Array.from({ length: 5 }, () => h(testContext('/api/v1/pods')));
  b.releaseAll();
  for (const r of await Promise.all(many)) assert.equal(r.status, 200);
  const failing = withMaxInFlightLimit(
    async () => {
      throw new Error('x');
    },
    { maxRequestsInFlight: 1, maxMutatingRequestsInFlight: 1, longRunningFunc: kubeLongRunningRequestCheck },
  );
  await assert.rejects(async () => failing(testContext('/api/v1/pods')));
  await assert.rejects(async () => failing(testContext('/api/v1/pods')), /x/); // slot was released
});

test('WithMaxInFlightLimit: missing RequestInfo is the 500 with the quoted URI', async () => {
  const h = withMaxInFlightLimit(() => new Response('ok'), {
    maxRequestsInFlight: 1,
    maxMutatingRequestsInFlight: 1,
    longRunningFunc: kubeLongRunningRequestCheck,
  });
  const res = await serve(h, testContext('/x?y', { noInfo: true }));
  assert.equal(res.status, 500);
  assert.equal(await res.text(), 'Internal Server Error: "/x?y"\n');
});

test('TestMaxInFlightNonMutating / Mutating / SkipsMasters (upstream scenarios)', async () => {
  const { basicLongRunningRequestCheck } = await import('../endpoints/request/longrunning.ts');
  const longRunningFunc = basicLongRunningRequestCheck(['watch'], ['proxy']);
  const server = (nonMutating: number, mutating: number) => {
    const pending: (() => void)[] = [];
    const h = withMaxInFlightLimit(
      (ctx) =>
        ctx.url.pathname.includes('dontwait')
          ? new Response('')
          : new Promise<Response>((r) => pending.push(() => r(new Response('')))),
      { maxRequestsInFlight: nonMutating, maxMutatingRequestsInFlight: mutating, longRunningFunc },
    );
    const call = (path: string, method = 'GET', groups?: string[]) => {
      const ctx = testContext(path, { method });
      if (groups) ctx.user = { name: '', groups };
      return Promise.resolve(h(ctx)).then((r) => r.status);
    };
    return { call, release: () => pending.splice(0).forEach((f) => f()) };
  };
  // Non-mutating: 3 watches hang unaccounted, 3 short requests saturate.
  let s = server(3, 1);
  const hanging = [...Array(3)].map(() => s.call('/api/v1/namespaces/default/wait?watch=true'));
  assert.equal(await s.call('/dontwait'), 200);
  const accounted = [...Array(3)].map(() => s.call('/'));
  for (let i = 0; i < 2; i++) assert.equal(await s.call('/'), 429);
  assert.equal(await s.call('/api/v1/watch/namespaces/default/dontwait'), 200);
  assert.equal(await s.call('/dontwait', 'POST'), 200);
  s.release();
  await Promise.all([...hanging, ...accounted]);
  const again = s.call('/');
  s.release();
  assert.equal(await again, 200);
  // Mutating.
  s = server(1, 3);
  const posts = [...Array(3)].map(() => s.call('/foo/bar', 'POST'));
  for (let i = 0; i < 2; i++) assert.equal(await s.call('/foo/bar/', 'POST'), 429);
  assert.equal(await s.call('/dontwait'), 200);
  // Masters skip the limit.
  for (let i = 0; i < 2; i++) assert.equal(await s.call('/dontwait', 'POST', ['system:masters']), 200);
  s.release();
  assert.deepEqual(await Promise.all(posts), [200, 200, 200]);
});
