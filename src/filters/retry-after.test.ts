import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withRetryAfter } from './retry-after.ts';
import { LifecycleSignals } from '../server/lifecycle.ts';
import { recorder, serve, testContext } from './testing.ts';

test('WithRetryAfter: serves normally until NotAcceptingNewRequest', async () => {
  const lifecycleSignals = new LifecycleSignals();
  const res = await serve(withRetryAfter(recorder(), { lifecycleSignals }), testContext('/api/v1/pods'));
  assert.equal(res.status, 200);
});

test('WithRetryAfter: the plain-text 429 with Retry-After: 5 and Connection: close', async () => {
  const lifecycleSignals = new LifecycleSignals();
  lifecycleSignals.NotAcceptingNewRequest.signal();
  const next = recorder();
  const res = await serve(withRetryAfter(next, { lifecycleSignals }), testContext('/api/v1/pods'));
  assert.equal(res.status, 429);
  assert.equal(res.headers.get('retry-after'), '5');
  assert.equal(res.headers.get('connection'), 'close');
  assert.equal(res.headers.get('content-type'), 'text/plain; charset=utf-8');
  assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
  assert.equal(await res.text(), 'The apiserver is shutting down, please try again later.\n');
  assert.equal(next.calls.length, 0);
});

test('WithRetryAfter: HTTP/2 gets GOAWAY through the transport instead of Connection: close', async () => {
  const lifecycleSignals = new LifecycleSignals();
  lifecycleSignals.NotAcceptingNewRequest.signal();
  let goaways = 0;
  const res = await serve(
    withRetryAfter(recorder(), { lifecycleSignals }),
    testContext('/x', { transport: { protocol: 'h2', goaway: () => goaways++ } }),
  );
  assert.equal(res.status, 429);
  assert.equal(res.headers.get('connection'), null);
  assert.equal(goaways, 1);
});

test('WithRetryAfter: exempt paths (plain prefixes) and the loopback user agent', async () => {
  const lifecycleSignals = new LifecycleSignals();
  lifecycleSignals.NotAcceptingNewRequest.signal();
  const h = withRetryAfter(recorder(), { lifecycleSignals });
  for (const p of [
    '/readyz',
    '/livez/ping',
    '/healthz',
    '/healthzfoo',
    '/metrics',
    '/metrics/slis',
    '/readyz?verbose',
  ]) {
    assert.equal((await serve(h, testContext(p))).status, 200, p);
  }
  assert.equal(
    (await serve(h, testContext('/api/v1/pods', { headers: { 'User-Agent': 'kube-apiserver/v1.34.0 (linux/amd64)' } })))
      .status,
    200,
  );
  assert.equal(
    (await serve(h, testContext('/api/v1/pods', { headers: { 'User-Agent': 'kubectl/v1.34.0' } }))).status,
    429,
  );
  assert.equal((await serve(h, testContext('/version'))).status, 429);
});

test('TestWithRetryAfter (upstream table, WithRetryAfter around WithWaitGroup)', async () => {
  const { withWaitGroup } = await import('./waitgroup.ts');
  const { SafeWaitGroup } = await import('../util/waitgroup.ts');
  const cases: [string, boolean, string, string, boolean, number, string, string, number][] = [
    // name, shutting down, url, user agent, wg waiting, handler invoked, Connection, Retry-After, status
    ['retry-after disabled', false, '/api/v1/namespaces', 'foo', false, 1, '', '', 200],
    ['enabled, not exempt', true, '/api/v1/namespaces', 'foo', false, 0, 'close', '5', 429],
    ['enabled, exempt /metrics', true, '/metrics?foo=bar', 'foo', false, 1, '', '', 200],
    ['enabled, exempt /livez', true, '/livez?verbose', 'foo', false, 1, '', '', 200],
    ['enabled, exempt /readyz', true, '/readyz?verbose', 'foo', false, 1, '', '', 200],
    ['enabled, exempt /healthz', true, '/healthz?verbose', 'foo', false, 1, '', '', 200],
    ['enabled, exempt local loopback', true, '/api/v1/namespaces', 'kube-apiserver/', false, 1, '', '', 200],
    ['enabled, exempt /readyz, wait group waiting', true, '/readyz?verbose', 'foo', true, 1, '', '', 200],
  ];
  for (const [name, shuttingDown, url, ua, waiting, invoked, close, retryAfter, status] of cases) {
    const lifecycleSignals = new LifecycleSignals();
    if (shuttingDown) lifecycleSignals.NotAcceptingNewRequest.signal();
    const wg = new SafeWaitGroup();
    if (waiting) await wg.wait();
    const next = recorder();
    const h = withRetryAfter(
      withWaitGroup(next, { longRunningFunc: () => false, nonLongRunningRequestWaitGroup: wg }),
      { lifecycleSignals },
    );
    const res = await serve(h, testContext(url, { headers: { 'User-Agent': ua } }));
    assert.equal(next.calls.length, invoked, name);
    assert.equal(res.status, status, name);
    assert.equal(res.headers.get('connection') ?? '', close, name);
    assert.equal(res.headers.get('retry-after') ?? '', retryAfter, name);
  }
});
