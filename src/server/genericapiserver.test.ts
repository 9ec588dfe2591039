import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Hono } from 'hono';
import { complete, newConfig, newServer, type Config } from './config.ts';
import { newEmptyDelegate, notFoundHandler, type GenericAPIServer } from './genericapiserver.ts';
import type { APIEnv } from './mux/container.ts';
import { LifecycleSignal } from './lifecycle.ts';

function server(overrides: Partial<Config> = {}, name = 'test', delegate = newEmptyDelegate()) {
  const c = newConfig(overrides);
  return { s: newServer(complete(c), name, delegate), c };
}

async function get(s: GenericAPIServer, path: string, init?: RequestInit) {
  const r = await s.fetch(new Request('https://127.0.0.1' + path, init));
  return { status: r.status, headers: r.headers, body: await r.text() };
}

const tick = (ms = 5) => new Promise((r) => setTimeout(r, ms));

test('15: GET / lists sorted paths as 2-space JSON without a trailing newline', async () => {
  const { s } = server();
  s.handler.nonGoRestfulMux.handle('/metrics', () => new Response(''));
  s.handler.nonGoRestfulMux.unlistedHandlePrefix('/debug/pprof/', () => new Response(''));
  s.prepareRun();
  const r = await get(s, '/');
  assert.equal(r.status, 200);
  assert.equal(r.headers.get('content-type'), 'application/json');
  assert.ok(r.body.startsWith('{\n  "paths": [\n    "/apis",\n    "/healthz",'), r.body);
  assert.ok(r.body.endsWith('\n  ]\n}'));
  const paths = JSON.parse(r.body).paths as string[];
  for (const p of ['/healthz', '/healthz/ping', '/livez', '/metrics', '/readyz', '/readyz/shutdown', '/version']) {
    assert.ok(paths.includes(p), p);
  }
  assert.ok(!paths.includes('/') && !paths.some((p) => p.startsWith('/debug/pprof')));
  assert.deepEqual(paths, [...paths].sort());
  assert.equal((await get(s, '/index.html')).body, r.body);
});

test('16: a standalone server answers unknown paths 404 with the index; a kube chain with text', async () => {
  const { s } = server();
  s.prepareRun();
  const r = await get(s, '/does-not-exist');
  assert.equal(r.status, 404);
  assert.equal(r.body, (await get(s, '/')).body);

  const stop = new AbortController();
  const kube = server({}, 'kube', newEmptyDelegate(notFoundHandler));
  kube.s.prepareRun();
  const run = kube.s.run({ signal: stop.signal });
  await kube.c.lifecycleSignals.MuxAndDiscoveryComplete.signaled;
  const nf = await get(kube.s, '/does-not-exist');
  assert.equal(nf.status, 404);
  assert.equal(nf.headers.get('content-type'), 'text/plain; charset=utf-8');
  assert.equal(nf.headers.get('x-content-type-options'), 'nosniff');
  assert.equal(nf.body, '404 page not found\n');
  stop.abort();
  await run;
});

test('17: before MuxAndDiscoveryComplete the kube not-found answers 503 with Retry-After: 5', async () => {
  const { s, c } = server({}, 'kube', newEmptyDelegate(notFoundHandler));
  const gate = new LifecycleSignal('CRDInformerHasNotSynced');
  s.registerMuxAndDiscoveryCompleteSignal('CRDInformerHasNotSynced', gate);
  s.prepareRun();
  const stop = new AbortController();
  const run = s.run({ signal: stop.signal });
  await tick();
  const r = await get(s, '/apis/nothing/here');
  assert.equal(r.status, 503);
  assert.equal(r.headers.get('retry-after'), '5');
  assert.equal(r.headers.get('content-type'), 'application/json');
  assert.equal(
    r.body,
    '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the request has been made before all known HTTP paths have been installed, please try again","reason":"ServiceUnavailable","details":{"retryAfterSeconds":5},"code":503}\n',
  );
  gate.signal();
  await c.lifecycleSignals.MuxAndDiscoveryComplete.signaled;
  assert.equal((await get(s, '/apis/nothing/here')).status, 404);
  stop.abort();
  await run;
});

test('18/19: /version and /version/ answer; POST is 405; /version/extra is a 404 Status', async () => {
  const { s } = server();
  s.prepareRun();
  for (const p of ['/version', '/version/']) {
    const r = await get(s, p);
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('content-type'), 'application/json');
    const v = JSON.parse(r.body);
    assert.equal(v.major, '1');
    assert.equal(v.minor, '34');
    assert.match(v.gitVersion, /^v1\.34\.0\+edge-apiserver\./);
    for (const k of ['gitCommit', 'gitTreeState', 'buildDate', 'goVersion', 'compiler', 'platform'])
      assert.equal(typeof v[k], 'string', k);
    assert.ok(r.body.startsWith('{\n  "major": "1",\n  "minor": "34",'));
  }
  const post = await get(s, '/version', { method: 'POST' });
  assert.equal(post.status, 405);
  assert.equal(JSON.parse(post.body).reason, 'MethodNotAllowed');
  const extra = await get(s, '/version/extra');
  assert.equal(extra.status, 404);
  assert.equal(
    extra.body,
    '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","details":{},"code":404}\n',
  );
});

test('20: the /apis web service claims only /apis and /apis/; /api does not claim /apis', async () => {
  const { s } = server({ enableDiscovery: false }); // the test registers its own /apis
  const routes = new Hono<APIEnv>();
  routes.get('/apis', (c) => c.text('apis-root'));
  routes.get('/api', (c) => c.text('api-root'));
  routes.get('/api/v1/pods', (c) => c.text('pods'));
  s.handler.registerWebService('/api', routes);
  s.handler.registerWebService('/apis');
  s.prepareRun();
  assert.equal((await get(s, '/apis')).body, 'apis-root');
  assert.equal((await get(s, '/apis/')).body, 'apis-root');
  const foo = await get(s, '/apis/foo');
  assert.equal(foo.status, 404);
  assert.ok(JSON.parse(foo.body).paths, 'went to the mux (index 404), not the container');
  assert.equal((await get(s, '/api')).body, 'api-root');
  assert.equal((await get(s, '/api/v1/pods')).body, 'pods');
  assert.equal(s.handler.claims('/apis'), true);
  assert.equal(s.handler.claims('/apisx'), false);
  assert.equal(s.handler.claims('/api/'), true);
  const missing = await get(s, '/api/v1/nosuchresource');
  assert.equal(missing.status, 404);
  assert.equal(JSON.parse(missing.body).reason, 'NotFound');
});

test('the director does not clean paths', async () => {
  const { s } = server();
  s.prepareRun();
  assert.equal((await get(s, '//healthz')).status, 404);
  assert.equal((await get(s, '/healthz')).status, 200);
});

test('a malformed percent-escape is a 400 before any handler', async () => {
  const { s } = server();
  s.prepareRun();
  const r = await get(s, '/api/v1/namespaces/%zz/pods');
  assert.equal(r.status, 400);
  assert.equal(r.body, '400 Bad Request');
  assert.equal(r.headers.get('content-type'), 'text/plain; charset=utf-8');
});

test('8: a failing post-start hook fails run with upstream wording', async () => {
  const { s } = server();
  s.addPostStartHook('broken', () => {
    throw new Error('boom');
  });
  await assert.rejects(s.run({ signal: new AbortController().signal }), {
    message: 'PostStartHook "broken" failed: boom',
  });
});

test('post-start hook registration errors', () => {
  const { s } = server({ disabledPostStartHooks: new Set(['off']) });
  assert.throws(() => s.addPostStartHook('', () => {}), { message: 'missing name' });
  assert.throws(() => s.addPostStartHook('x', undefined), { message: 'hook func may not be nil: "x"' });
  s.addPostStartHook('off', () => {});
  assert.equal(s.postStartHooks().has('off'), false, 'disabled hooks are skipped silently');
  s.addPostStartHook('once', () => {});
  assert.throws(() => s.addPostStartHook('once', () => {}), /unable to add "once" because it was already registered/);
  s.addPreShutdownHook('nil', undefined);
  assert.equal(s.preShutdownHooks().has('nil'), false);
  s.addPreShutdownHook('p', () => {});
  assert.throws(() => s.addPreShutdownHook('p', () => {}), {
    message: 'unable to add "p" because it is already registered',
  });
});

test('9: during the shutdown delay readyz fails, healthz passes, /readyz/shutdown explains', async () => {
  const { s, c } = server({ shutdownDelayDuration: 400 });
  s.prepareRun();
  const stop = new AbortController();
  const run = s.run({ signal: stop.signal });
  await tick();
  stop.abort();
  await c.lifecycleSignals.ShutdownInitiated.signaled;
  const ready = await get(s, '/readyz');
  assert.equal(ready.status, 500);
  assert.match(ready.body, /\[-\]shutdown failed: reason withheld\n/);
  assert.equal((await get(s, '/healthz')).body, 'ok');
  assert.equal((await get(s, '/livez')).body, 'ok');
  const sub = await get(s, '/readyz/shutdown');
  assert.equal(sub.status, 500);
  assert.equal(sub.body, 'internal server error: process is shutting down\n');
  assert.equal(c.lifecycleSignals.AfterShutdownDelayDuration.hasFired, false);
  await run;
});

function recordOrder(c: Config): string[] {
  const order: string[] = [];
  for (const sig of Object.values(c.lifecycleSignals) as LifecycleSignal[])
    void sig.signaled.then(() => order.push(sig.name));
  return order;
}

test('13: lifecycle signal order in default mode, with a listener', async () => {
  const { s, c } = server({ shutdownDelayDuration: 50 });
  const order = recordOrder(c);
  let resolveStopped!: () => void;
  const stoppedListening = new Promise<void>((r) => (resolveStopped = r));
  const listener = {
    serve: async () => {},
    shutdown: async () => {
      order.push('listener.shutdown');
      resolveStopped();
    },
    stoppedListening,
  };
  s.prepareRun();
  const stop = new AbortController();
  const run = s.run({ signal: stop.signal, listener });
  await tick();
  stop.abort();
  await run;
  order.push('run returned');
  const at = (n: string) => order.indexOf(n);
  assert.ok(at('ShutdownInitiated') < at('AfterShutdownDelayDuration'), order.join());
  assert.ok(at('AfterShutdownDelayDuration') <= at('NotAcceptingNewRequest'), order.join());
  assert.ok(at('NotAcceptingNewRequest') < at('listener.shutdown'), order.join());
  assert.ok(at('NotAcceptingNewRequest') < at('HTTPServerStoppedListening'), order.join());
  assert.ok(at('InFlightRequestsDrained') < at('run returned'), order.join());
  assert.ok(at('MuxAndDiscoveryComplete') >= 0);
});

test('13: in retry-after mode the HTTP server stops only after the drain', async () => {
  const { s, c } = server({ shutdownSendRetryAfter: true });
  const order = recordOrder(c);
  let resolveStopped!: () => void;
  const listener = {
    serve: async () => {},
    shutdown: async (timeout: number) => {
      order.push(`listener.shutdown(${timeout})`);
      resolveStopped();
    },
    stoppedListening: new Promise<void>((r) => (resolveStopped = r)),
  };
  c.nonLongRunningRequestWaitGroup.add(1);
  const stop = new AbortController();
  const run = s.run({ signal: stop.signal, listener });
  await tick();
  stop.abort();
  await c.lifecycleSignals.NotAcceptingNewRequest.signaled;
  await tick(20);
  assert.ok(!order.some((e) => e.startsWith('listener.shutdown')), 'listener kept open while requests are in flight');
  c.nonLongRunningRequestWaitGroup.done();
  await run;
  assert.ok(order.indexOf('InFlightRequestsDrained') < order.indexOf('listener.shutdown(2000)'), order.join());
});

test('14: a failing pre-shutdown hook makes run fail without waiting for the drain', async () => {
  const { s, c } = server();
  s.addPreShutdownHook('bad', () => {
    throw new Error('nope');
  });
  c.nonLongRunningRequestWaitGroup.add(1); // never drained
  const stop = new AbortController();
  const run = s.run({ signal: stop.signal });
  await tick();
  stop.abort();
  await assert.rejects(run, /PreShutdownHook "bad" failed: nope/);
});

test('delegation: the delegate is reached through the outer chain once; hooks, checks and paths merge', async () => {
  const inner = server({}, 'inner', newEmptyDelegate(notFoundHandler));
  inner.s.handler.nonGoRestfulMux.handle('/inner', (ctx) => new Response(`inner saw ${ctx.values.get('chain-runs')}`));
  let innerHookRan = false;
  inner.s.addPostStartHook('inner-hook', () => {
    innerHookRan = true;
  });
  let chainRuns = 0;
  const outer = server(
    {
      buildHandlerChainFunc: (h) => (ctx) => {
        ctx.values.set('chain-runs', ++chainRuns);
        return h(ctx);
      },
    },
    'outer',
    inner.s,
  );
  outer.s.handler.nonGoRestfulMux.handle('/outer', () => new Response('outer'));
  outer.s.prepareRun();
  const stop = new AbortController();
  const run = outer.s.run({ signal: stop.signal });
  await tick();
  assert.equal((await get(outer.s, '/outer')).body, 'outer');
  assert.equal((await get(outer.s, '/inner')).body, 'inner saw 2');
  assert.equal(chainRuns, 2, 'one chain run per request: the inner chain is skipped');
  assert.equal(innerHookRan, true, 'the outermost server runs inherited hooks');
  const verbose = await get(outer.s, '/readyz?verbose');
  assert.match(verbose.body, /\[\+\]poststarthook\/inner-hook ok/);
  const index = JSON.parse((await get(outer.s, '/')).body).paths as string[];
  assert.ok(index.includes('/inner') && index.includes('/outer'));
  const nf = await get(outer.s, '/nowhere');
  assert.equal(nf.body, '404 page not found\n', 'unclaimed paths end at the inner not-found handler');
  stop.abort();
  await run;
});

test('the same mux-complete signal name twice is an error', () => {
  const { s } = server();
  s.registerMuxAndDiscoveryCompleteSignal('x', new LifecycleSignal('x'));
  assert.throws(() => s.registerMuxAndDiscoveryCompleteSignal('x', new LifecycleSignal('x')), {
    message: 'x already registered',
  });
});

test('23: PUT /debug/flags/v sets the log verbosity; other methods are 406; /debug paths are unlisted', async () => {
  const { s, c } = server();
  s.prepareRun();
  const put = await get(s, '/debug/flags/v', { method: 'PUT', body: '4' });
  assert.equal(put.status, 200);
  assert.equal(put.body, 'successfully set klog.logging.verbosity to 4\n');
  assert.equal(c.logger.enabled(4), true);
  const bad = await get(s, '/debug/flags/v', { method: 'PUT', body: 'x' });
  assert.equal(bad.status, 400);
  assert.equal(bad.body, 'failed set klog.logging.verbosity x: strconv.ParseInt: parsing "x": invalid syntax\n');
  const getV = await get(s, '/debug/flags/v');
  assert.equal(getV.status, 406);
  assert.equal(getV.body, 'unsupported http method\n');
  assert.match((await get(s, '/debug/flags')).body, /href="v"/);
  const paths = JSON.parse((await get(s, '/')).body).paths as string[];
  assert.ok(!paths.some((p) => p.startsWith('/debug')));
});
