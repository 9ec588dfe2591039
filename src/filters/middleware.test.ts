import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Hono } from 'hono';
import { honoMiddleware, type FilterEnv } from './middleware.ts';
import { withAuditInit } from './audit-init.ts';
import { withCacheControl } from './cachecontrol.ts';
import { withRequestInfo } from './requestinfo.ts';
import { withCORS } from './cors.ts';
import { withTimeoutForNonLongRunningRequests } from './timeout.ts';
import { withPanicRecovery } from './panic-recovery.ts';
import { withWarningRecorder } from './warning.ts';
import { addWarning } from '../endpoints/request/warning.ts';
import { testConfig } from './testing.ts';

test('honoMiddleware: filters run as Hono middleware and share one RequestContext', async () => {
  const c = testConfig({ corsAllowedOrigins: ['^https://ok\\.io$'], requestTimeout: 50 });
  const app = new Hono<FilterEnv>();
  app.use(honoMiddleware(withAuditInit, c));
  app.use(honoMiddleware(withPanicRecovery, c));
  app.use(honoMiddleware(withRequestInfo, c));
  app.use(honoMiddleware(withCacheControl, c));
  app.use(honoMiddleware(withTimeoutForNonLongRunningRequests, c));
  app.use(honoMiddleware(withWarningRecorder, c));
  app.use(honoMiddleware(withCORS, c));
  app.get('/api/v1/namespaces/:ns/pods', (hc) => {
    const ctx = hc.var.requestContext;
    addWarning(ctx, '', 'deprecated');
    return hc.json({ ns: ctx.requestInfo!.namespace, verb: ctx.requestInfo!.verb });
  });
  app.get('/slow', () => new Promise<Response>(() => {}));
  app.get('/boom', () => {
    throw 'not an Error';
  });

  let res = await app.request('/api/v1/namespaces/default/pods', {
    headers: { 'Audit-ID': 'id-1', Origin: 'https://ok.io' },
  });
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { ns: 'default', verb: 'list' });
  assert.equal(res.headers.get('audit-id'), 'id-1');
  assert.equal(res.headers.get('cache-control'), 'no-cache, private');
  assert.equal(res.headers.get('warning'), '299 - "deprecated"');
  assert.equal(res.headers.get('access-control-allow-origin'), 'https://ok.io');

  // Preflight short-circuits inside; outer headers still merged.
  res = await app.request('/api/v1/namespaces/default/pods', {
    method: 'OPTIONS',
    headers: { Origin: 'https://ok.io' },
  });
  assert.equal(res.status, 204);
  assert.ok(res.headers.get('audit-id'));

  res = await app.request('/slow');
  assert.equal(res.status, 504);
  assert.ok(res.headers.get('audit-id'));
  assert.match(await res.text(), /^\{"metadata":\{\},"status":"Failure"/);

  // Hono's own error handler sees the throw first unless it rethrows; route errors to the filter.
  app.onError((err) => {
    throw err;
  });
  res = await app.request('/boom');
  assert.equal(res.status, 500);
  assert.equal(await res.text(), 'This request caused apiserver to panic. Look in the logs for details.\n');
});

test('honoMiddleware: a single filter alone', async () => {
  const app = new Hono<FilterEnv>();
  app.use(honoMiddleware(withCacheControl, {}));
  app.get('/', (hc) => hc.text('hi'));
  const res = await app.request('/');
  assert.equal(res.headers.get('cache-control'), 'no-cache, private');
  assert.equal(await res.text(), 'hi');
});

test('honoMiddleware: the docs/handler-chain.md example, from the package root', async () => {
  const root = await import('../index.ts');
  const {
    honoMiddleware: mw,
    withAuditInit: ai,
    withRequestInfo: ri,
    withTimeoutForNonLongRunningRequests: to,
    kubeLongRunningRequestCheck,
    discardLogger,
  } = root;
  const config = {
    legacyAPIGroupPrefixes: ['/api'],
    longRunningFunc: kubeLongRunningRequestCheck,
    requestTimeout: 60_000,
    logger: discardLogger,
  };
  const app = new Hono<FilterEnv>();
  app.use(mw(ai, config));
  app.use(mw(ri, config));
  app.use(mw(to, config));
  app.get('/api/v1/namespaces/:ns/pods', (c) => c.json(c.var.requestContext.requestInfo));
  const res = await app.request('/api/v1/namespaces/default/pods?watch=1');
  assert.equal(res.status, 200);
  assert.ok(res.headers.get('audit-id'));
  const info = await res.json();
  assert.equal(info.verb, 'watch');
  assert.equal(info.namespace, 'default');
});
