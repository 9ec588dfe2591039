import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withWaitGroup } from './waitgroup.ts';
import { withWatchTerminationDuringShutdown, serverShutdownSignalFrom } from './watch-termination.ts';
import { SafeWaitGroup } from '../util/waitgroup.ts';
import { LifecycleSignals } from '../server/lifecycle.ts';
import { kubeLongRunningRequestCheck } from '../endpoints/request/longrunning.ts';
import { recorder, serve, testContext } from './testing.ts';

const shutdownBody =
  '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"apiserver is shutting down","reason":"ServiceUnavailable","code":503}\n\n';

async function assertShutdown503(res: Response) {
  assert.equal(res.status, 503);
  assert.equal(res.headers.get('retry-after'), '1');
  assert.equal(res.headers.get('content-type'), 'application/json');
  assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
  assert.equal(await res.text(), shutdownBody);
}

test('WithWaitGroup: tracks non-long-running requests until they answer', async () => {
  const wg = new SafeWaitGroup();
  let release!: () => void;
  const h = withWaitGroup(() => new Promise<Response>((r) => (release = () => r(new Response('ok')))), {
    longRunningFunc: kubeLongRunningRequestCheck,
    nonLongRunningRequestWaitGroup: wg,
  });
  const p = h(testContext('/api/v1/pods'));
  assert.equal(wg.size, 1);
  let drained = false;
  const waited = wg.wait().then(() => (drained = true));
  await new Promise((r) => setTimeout(r, 5));
  assert.equal(drained, false);
  release();
  await p;
  await waited;
  assert.equal(wg.size, 0);
});

test('WithWaitGroup: a throwing handler still leaves the group', async () => {
  const wg = new SafeWaitGroup();
  const h = withWaitGroup(
    () => {
      throw new Error('x');
    },
    { longRunningFunc: kubeLongRunningRequestCheck, nonLongRunningRequestWaitGroup: wg },
  );
  assert.throws(() => h(testContext('/')));
  const h2 = withWaitGroup(
    async () => {
      throw new Error('x');
    },
    { longRunningFunc: kubeLongRunningRequestCheck, nonLongRunningRequestWaitGroup: wg },
  );
  await assert.rejects(async () => h2(testContext('/')));
  assert.equal(wg.size, 0);
});

test('WithWaitGroup: long-running requests are not tracked', async () => {
  const wg = new SafeWaitGroup();
  const h = withWaitGroup(() => new Promise<Response>(() => {}), {
    longRunningFunc: kubeLongRunningRequestCheck,
    nonLongRunningRequestWaitGroup: wg,
  });
  for (const p of [
    '/api/v1/pods?watch=1',
    '/api/v1/namespaces/ns/pods/p/exec',
    '/api/v1/namespaces/ns/pods/p/log',
    '/debug/pprof/heap',
  ]) {
    void h(testContext(p));
  }
  assert.equal(wg.size, 0);
});

test('WithWaitGroup: the shutdown 503 once draining began; exempt requests still served', async () => {
  const wg = new SafeWaitGroup();
  await wg.wait();
  const next = recorder();
  const h = withWaitGroup(next, { longRunningFunc: kubeLongRunningRequestCheck, nonLongRunningRequestWaitGroup: wg });
  await assertShutdown503(await serve(h, testContext('/api/v1/pods')));
  assert.equal(next.calls.length, 0);
  assert.equal((await serve(h, testContext('/healthz'))).status, 200);
  assert.equal(
    (await serve(h, testContext('/version', { headers: { 'user-agent': 'kube-apiserver/v1.34.0' } }))).status,
    200,
  );
  // Long-running requests are not affected by this filter.
  assert.equal((await serve(h, testContext('/api/v1/pods?watch=true'))).status, 200);
});

test('WithWaitGroup: missing RequestInfo is a 500', async () => {
  const h = withWaitGroup(recorder(), {
    longRunningFunc: kubeLongRunningRequestCheck,
    nonLongRunningRequestWaitGroup: new SafeWaitGroup(),
  });
  const res = await serve(h, testContext('/x', { noInfo: true }));
  assert.equal(res.status, 500);
  assert.equal(await res.text(), 'Internal Server Error: "/x": no RequestInfo found in the context\n');
});

test('WithWatchTerminationDuringShutdown: watches join the group for the life of their stream', async () => {
  const lifecycleSignals = new LifecycleSignals();
  const wg = new SafeWaitGroup();
  let push!: ReadableStreamDefaultController<Uint8Array>;
  const next = recorder((ctx) => {
    if (ctx.requestInfo!.verb === 'watch')
      assert.equal(serverShutdownSignalFrom(ctx), lifecycleSignals.NotAcceptingNewRequest);
    else assert.equal(serverShutdownSignalFrom(ctx), undefined);
    return new Response(new ReadableStream<Uint8Array>({ start: (c) => void (push = c) }));
  });
  const h = withWatchTerminationDuringShutdown(next, { lifecycleSignals, watchRequestWaitGroup: wg });
  const res = await h(testContext('/api/v1/pods?watch=1'));
  assert.equal(wg.size, 1);
  const reader = res.body!.getReader();
  push.enqueue(new TextEncoder().encode('{"type":"ADDED"}\n'));
  assert.equal(new TextDecoder().decode((await reader.read()).value), '{"type":"ADDED"}\n');
  assert.equal(wg.size, 1);
  push.close();
  assert.equal((await reader.read()).done, true);
  assert.equal(wg.size, 0);
  // Non-watch requests pass through untracked.
  await h(testContext('/api/v1/pods'));
  assert.equal(wg.size, 0);
});

test('WithWatchTerminationDuringShutdown: a cancelled watch stream leaves the group; new watches get 503 while draining', async () => {
  const lifecycleSignals = new LifecycleSignals();
  const wg = new SafeWaitGroup();
  const h = withWatchTerminationDuringShutdown(() => new Response(new ReadableStream({ pull() {} })), {
    lifecycleSignals,
    watchRequestWaitGroup: wg,
  });
  const res = await h(testContext('/api/v1/watch/pods'));
  assert.equal(wg.size, 1);
  const drained = wg.wait();
  await res.body!.cancel();
  await drained;
  await assertShutdown503(await h(testContext('/api/v1/pods?watch=1')));
  assert.equal((await h(testContext('/api/v1/pods'))).status, 200);
});
