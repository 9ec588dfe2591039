// The chain's order (DefaultBuildHandlerChain, k8s.io/apiserver/pkg/server/config.go), observed
// from outside: which responses are produced before authentication, which are audited, which consume
// flow-control (max-in-flight) slots, which reach authorization, and which headers each carries.
// Authentication, authorization and audit are observed through fakes set on the config.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  complete,
  newConfig,
  newServer,
  newEmptyDelegate,
  notFoundHandler,
  type Handler,
  type GenericAPIServer,
} from '../src/index.ts';
import type { RequestAuthenticator } from '../src/authentication/authenticator.ts';
import type { Attributes, Authorizer } from '../src/authorization/authorizer.ts';
import type { AuditBackend, AuditEvent } from '../src/audit/types.ts';
import { fixedPolicyRuleEvaluator } from '../src/audit/policy.ts';
import { discardLogger } from '../src/util/logger.ts';
import { addWarning } from '../src/endpoints/request/warning.ts';

interface Harness {
  server: GenericAPIServer;
  authn: string[];
  authz: Attributes[];
  events: AuditEvent[];
  fetch: (path: string, init?: RequestInit) => Promise<Response>;
  /** Clears the recorded calls. */
  reset: () => void;
  holdRelease: () => void;
}

function harness(overrides: Parameters<typeof newConfig>[0] = {}): Harness {
  const authn: string[] = [];
  const authz: Attributes[] = [];
  const events: AuditEvent[] = [];
  const authenticator: RequestAuthenticator = {
    async authenticateRequest(ctx) {
      const auth = ctx.request.headers.get('authorization') ?? '';
      authn.push(auth);
      if (auth === 'Bearer good') return { user: { name: 'alice', groups: ['system:authenticated'] } };
      if (auth === 'Bearer admin')
        return { user: { name: 'root', groups: ['system:masters', 'system:authenticated'] } };
      if (auth) throw new Error('invalid bearer token');
      return null;
    },
  };
  const authorizer: Authorizer = {
    async authorize(a) {
      authz.push(a);
      return a.path.startsWith('/forbidden')
        ? { decision: 'NoOpinion', reason: '' }
        : { decision: 'Allow', reason: '' };
    },
  };
  const backend: AuditBackend = {
    processEvents: (evs) => {
      events.push(...evs.map((e) => structuredClone(e)));
      return true;
    },
    run: () => {},
    shutdown: async () => {},
    toString: () => 'fake',
  };
  let releaseHeld: (() => void)[] = [];
  const routes: Record<string, Handler> = {
    '/ok': (ctx) => {
      addWarning(ctx, '', 'inner warning');
      return new Response('ok');
    },
    '/forbidden': () => new Response('never'),
    '/hold': () => new Promise<Response>((r) => releaseHeld.push(() => r(new Response('held')))),
    '/slow': (ctx) => new Promise<Response>((r) => ctx.signal.addEventListener('abort', () => r(new Response('late')))),
    '/panic': () => {
      throw 'not even an Error';
    },
  };
  const config = newConfig({
    logger: discardLogger,
    hstsDirectives: ['max-age=31536000', 'includeSubDomains'],
    corsAllowedOrigins: ['^https://ok\\.io$'],
    maxRequestsInFlight: 1,
    maxMutatingRequestsInFlight: 1,
    ...overrides,
  });
  config.authentication = { ...config.authentication, authenticator };
  config.authorization = { ...config.authorization, authorizer };
  (config as { audit?: unknown }).audit = { backend, policyRuleEvaluator: fixedPolicyRuleEvaluator('Metadata') };
  config.routeInstallers.push((s) => {
    for (const [p, h] of Object.entries(routes)) s.handler.nonGoRestfulMux.handle(p, h);
  });
  const server = newServer(complete(config), 'chain-order', newEmptyDelegate(notFoundHandler));
  server.prepareRun();
  return {
    server,
    authn,
    authz,
    events,
    fetch: (path, init) => server.fetch(new Request('https://example.test' + path, init)),
    reset: () => {
      authn.length = 0;
      authz.length = 0;
      events.length = 0;
    },
    holdRelease: () => {
      const r = releaseHeld;
      releaseHeld = [];
      r.forEach((f) => f());
    },
  };
}

const good = { headers: { Authorization: 'Bearer good' } };

function assertOuterHeaders(res: Response, { hstsAndCacheControl }: { hstsAndCacheControl: boolean }) {
  assert.ok(res.headers.get('audit-id'), 'Audit-Id is on every response');
  assert.equal(res.headers.get('cache-control') !== null, hstsAndCacheControl, 'Cache-Control');
  assert.equal(res.headers.get('strict-transport-security') !== null, hstsAndCacheControl, 'HSTS');
}

test('order: a normal request is authenticated, audited, counted and authorized', async () => {
  const h = harness();
  const res = await h.fetch('/ok', good);
  assert.equal(res.status, 200);
  assert.equal(await res.text(), 'ok');
  assertOuterHeaders(res, { hstsAndCacheControl: true });
  assert.equal(res.headers.get('warning'), '299 - "inner warning"');
  assert.deepEqual(h.authn, ['Bearer good']);
  assert.equal(h.authz.length, 1);
  assert.equal(h.authz[0]!.user?.name, 'alice');
  assert.deepEqual(
    h.events.map((e) => e.stage),
    ['RequestReceived', 'ResponseComplete'],
  );
  assert.equal(h.events[1]!.user.username, 'alice');
});

test('order: 401 skips audit policy of WithAudit (lone failed-authn event), flow control and authorization', async () => {
  const h = harness();
  // Fill the read-only bucket first: a 401 must not be a 429.
  const held = h.fetch('/hold', good);
  await new Promise((r) => setTimeout(r, 5));
  h.reset();
  for (const init of [{}, { headers: { Authorization: 'Bearer bad' } }]) {
    const res = await h.fetch('/ok', init);
    assert.equal(res.status, 401);
    assert.equal(
      await res.text(),
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}\n',
    );
    assertOuterHeaders(res, { hstsAndCacheControl: true });
    assert.equal(res.headers.get('warning'), null);
  }
  assert.equal(h.authn.length, 2);
  assert.equal(h.authz.length, 0);
  assert.deepEqual(
    h.events.map((e) => [e.stage, e.responseStatus?.code, e.user.username]),
    [
      ['ResponseStarted', 401, undefined],
      ['ResponseStarted', 401, undefined],
    ],
  );
  h.holdRelease();
  assert.equal((await held).status, 200);
});

test('order: bad ?timeout= 400 comes before authentication but is audited (no user)', async () => {
  const h = harness();
  const res = await h.fetch('/ok?timeout=10', good);
  assert.equal(res.status, 400);
  assert.equal(
    await res.text(),
    '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"invalid timeout specified in the request URL - time: missing unit in duration \\"10\\"","reason":"BadRequest","code":400}\n',
  );
  assertOuterHeaders(res, { hstsAndCacheControl: true });
  assert.equal(h.authn.length, 0);
  assert.equal(h.authz.length, 0);
  assert.equal(h.events.length, 1);
  assert.equal(h.events[0]!.stage, 'ResponseStarted');
  assert.equal(h.events[0]!.responseStatus?.code, 400);
  assert.equal(h.events[0]!.user.username, undefined);
});

test('order: CORS preflight 204 is answered before authentication, audit and flow control', async () => {
  const h = harness();
  const held = h.fetch('/hold', { ...good, method: 'PUT' });
  await new Promise((r) => setTimeout(r, 5));
  h.reset();
  const res = await h.fetch('/ok', { method: 'OPTIONS', headers: { Origin: 'https://ok.io' } });
  assert.equal(res.status, 204);
  assert.equal(res.headers.get('access-control-allow-origin'), 'https://ok.io');
  assertOuterHeaders(res, { hstsAndCacheControl: true });
  assert.deepEqual([h.authn.length, h.events.length, h.authz.length], [0, 0, 0]);
  // The same OPTIONS from an unknown origin goes all the way (and is a mutating request: 429).
  const other = await h.fetch('/ok', {
    method: 'OPTIONS',
    headers: { Origin: 'https://evil.io', Authorization: 'Bearer good' },
  });
  assert.equal(other.status, 429);
  h.holdRelease();
  await held;
});

test('order: max-in-flight 429 comes after authentication and audit, before authorization; system:masters passes', async () => {
  const h = harness();
  const held = h.fetch('/hold', good);
  await new Promise((r) => setTimeout(r, 5));
  h.reset();
  const res = await h.fetch('/ok', good);
  assert.equal(res.status, 429);
  assert.equal(await res.text(), 'Too many requests, please try again later.\n');
  assert.equal(res.headers.get('retry-after'), '1');
  assertOuterHeaders(res, { hstsAndCacheControl: true });
  assert.equal(h.authn.length, 1);
  assert.equal(h.authz.length, 0);
  assert.deepEqual(
    h.events.map((e) => [e.stage, e.responseStatus?.code]),
    [
      ['RequestReceived', undefined],
      ['ResponseComplete', 429],
    ],
  );
  assert.equal((await h.fetch('/ok', { headers: { Authorization: 'Bearer admin' } })).status, 200);
  h.holdRelease();
  await held;
});

test('order: authorization 403 after everything else', async () => {
  const h = harness();
  const res = await h.fetch('/forbidden', good);
  assert.equal(res.status, 403);
  assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
  assert.equal(
    await res.text(),
    '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"forbidden: User \\"alice\\" cannot get path \\"/forbidden\\"","reason":"Forbidden","details":{},"code":403}\n',
  );
  assertOuterHeaders(res, { hstsAndCacheControl: true });
  assert.equal(h.authn.length, 1);
  assert.equal(h.authz.length, 1);
  assert.deepEqual(
    h.events.map((e) => e.stage),
    ['RequestReceived', 'ResponseComplete'],
  );
});

test('order: RequestInfo 500 is outside HSTS/Cache-Control, before authentication and audit', async () => {
  const h = harness();
  const res = await h.fetch('/api/v1/watch', good);
  assert.equal(res.status, 500);
  assert.equal(
    await res.text(),
    'Internal Server Error: "/api/v1/watch": failed to create RequestInfo: unable to determine kind and namespace from url, /api/v1/watch\n',
  );
  assertOuterHeaders(res, { hstsAndCacheControl: false });
  assert.deepEqual([h.authn.length, h.events.length, h.authz.length], [0, 0, 0]);
});

test('order: shutdown RetryAfter 429 carries Audit-Id only and skips authentication and audit', async () => {
  const h = harness({ shutdownSendRetryAfter: true });
  h.server.config.lifecycleSignals.NotAcceptingNewRequest.signal();
  const res = await h.fetch('/ok', good);
  assert.equal(res.status, 429);
  assert.equal(res.headers.get('retry-after'), '5');
  assert.equal(res.headers.get('connection'), 'close');
  assert.equal(await res.text(), 'The apiserver is shutting down, please try again later.\n');
  assertOuterHeaders(res, { hstsAndCacheControl: false });
  assert.deepEqual([h.authn.length, h.events.length, h.authz.length], [0, 0, 0]);
  assert.equal((await h.fetch('/healthz', good)).status, 200);
});

test('order: WaitGroup 503 during drain keeps HSTS/Cache-Control and skips authentication and audit', async () => {
  const h = harness();
  await h.server.config.nonLongRunningRequestWaitGroup.wait();
  const res = await h.fetch('/ok', good);
  assert.equal(res.status, 503);
  assert.equal(
    await res.text(),
    '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"apiserver is shutting down","reason":"ServiceUnavailable","code":503}\n\n',
  );
  assert.equal(res.headers.get('retry-after'), '1');
  assertOuterHeaders(res, { hstsAndCacheControl: true });
  assert.deepEqual([h.authn.length, h.events.length, h.authz.length], [0, 0, 0]);
});

test('order: timeout 504 keeps outer headers, drops CORS and Warning set inside', async () => {
  const h = harness();
  const res = await h.fetch('/slow?timeout=50ms', {
    headers: { Authorization: 'Bearer good', Origin: 'https://ok.io' },
  });
  assert.equal(res.status, 504);
  assert.equal(
    await res.text(),
    '{"metadata":{},"status":"Failure","message":"Timeout: request did not complete within the allotted timeout","reason":"Timeout","details":{},"code":504}\n',
  );
  assert.equal(res.headers.get('content-type'), 'text/plain; charset=utf-8');
  assertOuterHeaders(res, { hstsAndCacheControl: true });
  assert.equal(res.headers.get('access-control-allow-origin'), null);
  // Authentication ran (inside the timeout filter) before the handler stalled.
  assert.equal(h.authn.length, 1);
});

test('order: a panic deep inside is the 500 text with the outer headers, and the server keeps serving', async () => {
  const h = harness();
  const res = await h.fetch('/panic', good);
  assert.equal(res.status, 500);
  assert.equal(await res.text(), 'This request caused apiserver to panic. Look in the logs for details.\n');
  assertOuterHeaders(res, { hstsAndCacheControl: true });
  assert.equal((await h.fetch('/ok', good)).status, 200);
});
