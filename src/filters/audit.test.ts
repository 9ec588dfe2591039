import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withAudit } from './audit.ts';
import {
  withFailedAuthenticationAudit,
  withFailedRequestAudit,
  getAuthMethods,
} from './failed-authentication-audit.ts';
import { recorder, serve, testConfig, testContext } from './testing.ts';
import { trackLatency, withLatencyTrackers } from './latency-trackers.ts';
import { MemoryBackend } from '../audit/testing.ts';
import { fixedPolicyRuleEvaluator, loadPolicyFromBytes, newPolicyRuleEvaluator } from '../audit/policy.ts';
import { addAuditAnnotation, logImpersonatedUser } from '../audit/context.ts';
import { AuditMetrics } from '../audit/metrics.ts';
import { IgnoreErrorsBackend } from '../audit/union.ts';
import type { Level, Stage } from '../audit/types.ts';
import type { RequestContext, Handler } from '../endpoints/request/context.ts';
import {
  errorNegotiated,
  newUnauthorized,
  newBadRequest,
  respondWithError,
} from '../endpoints/responsewriters/status.ts';

const T0 = Date.UTC(2026, 6, 23, 12, 0, 0);
const T0s = '2026-07-23T12:00:00.000000Z';

function setup(level: Level, opts: { omit?: Stage[]; maxBody?: number; result?: MemoryBackend['result'] } = {}) {
  const backend = new MemoryBackend();
  if (opts.result !== undefined) backend.result = opts.result;
  const metrics = new AuditMetrics();
  const c = testConfig({
    audit: {
      policyRuleEvaluator: fixedPolicyRuleEvaluator(level, opts.omit ?? []),
      backend,
      metrics,
      maxCapturedBodyBytes: opts.maxBody,
    },
  });
  return { backend, metrics, c };
}

function ctxFor(path: string, init?: RequestInit & { user?: boolean; remote?: string }): RequestContext {
  const ctx = testContext(path, { ...init, transport: { remoteAddress: init?.remote ?? '10.0.0.5' } });
  ctx.receivedTimestamp = T0;
  ctx.auditID = '0c6f5e1a-1111-4222-8333-444455556666';
  ctx.responseHeaders.set('Audit-Id', ctx.auditID);
  if (init?.user !== false) ctx.user = { name: 'alice', groups: ['dev', 'system:authenticated'] };
  return ctx;
}

const authz: Handler = (ctx) => {
  addAuditAnnotation(ctx, 'authorization.k8s.io/decision', 'allow');
  addAuditAnnotation(
    ctx,
    'authorization.k8s.io/reason',
    'RBAC: allowed by ClusterRoleBinding "x" of ClusterRole "view" to User "alice"',
  );
  return new Response('{"kind":"PodList","apiVersion":"v1","metadata":{},"items":[]}', {
    headers: { 'content-type': 'application/json' },
  });
};

test('WithAudit: absent without a policy or a backend', () => {
  const next = recorder();
  assert.equal(withAudit(next, testConfig()), next);
  assert.equal(withAudit(next, testConfig({ audit: { backend: new MemoryBackend() } })), next);
});

test('WithAudit: Metadata level, exact events for RequestReceived and ResponseComplete; Audit-Id agrees', async () => {
  const { backend, c, metrics } = setup('Metadata');
  const ctx = ctxFor('/api/v1/namespaces/default/pods?limit=500', {
    headers: { 'user-agent': 'kubectl/v1.30.0', 'x-forwarded-for': '1.2.3.4, bogus' },
  });
  const res = await serve(withAudit(authz, c), ctx);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('audit-id'), backend.events[0]!.auditID);
  const common =
    '{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"0c6f5e1a-1111-4222-8333-444455556666",' +
    '"stage":"%STAGE%","requestURI":"/api/v1/namespaces/default/pods?limit=500","verb":"list",' +
    '"user":{"username":"alice","groups":["dev","system:authenticated"]},"sourceIPs":["1.2.3.4","10.0.0.5"],"userAgent":"kubectl/v1.30.0",' +
    '"objectRef":{"resource":"pods","namespace":"default","apiVersion":"v1"},';
  assert.deepEqual(backend.lines(), [
    common.replace('%STAGE%', 'RequestReceived') + `"requestReceivedTimestamp":"${T0s}","stageTimestamp":"${T0s}"}`,
    common.replace('%STAGE%', 'ResponseComplete') +
      `"responseStatus":{"metadata":{},"code":200},"requestReceivedTimestamp":"${T0s}","stageTimestamp":"<now>",` +
      '"annotations":{"authorization.k8s.io/decision":"allow","authorization.k8s.io/reason":"RBAC: allowed by ClusterRoleBinding \\"x\\" of ClusterRole \\"view\\" to User \\"alice\\""}}',
  ]);
  assert.equal(metrics.eventTotal, 2);
  assert.deepEqual([...metrics.levelTotal], [['Metadata', 1]]);
});

test('WithAudit: level None records nothing and passes through', async () => {
  const { backend, c } = setup('None');
  const res = await serve(withAudit(authz, c), ctxFor('/api/v1/pods'));
  assert.equal(res.status, 200);
  assert.equal(backend.events.length, 0);
});

test('WithAudit: omitStages drops RequestReceived', async () => {
  const { backend, c } = setup('Metadata', { omit: ['RequestReceived'] });
  await serve(withAudit(authz, c), ctxFor('/api/v1/pods'));
  assert.deepEqual(backend.stages(), ['ResponseComplete']);
});

test('WithAudit: a Forbidden Status response becomes responseStatus (Metadata level)', async () => {
  const { backend, c } = setup('Metadata');
  const forbid: Handler = (ctx) =>
    respondWithError(
      {
        status: 'Failure',
        message:
          'pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "default"',
        reason: 'Forbidden',
        details: { kind: 'pods' },
        code: 403,
      },
      ctx.request,
      ctx.url,
    );
  await serve(withAudit(forbid, c), ctxFor('/api/v1/namespaces/default/pods'));
  const last = backend.lines()[1]!;
  assert.match(
    last,
    /"responseStatus":\{"metadata":\{\},"status":"Failure","message":"pods is forbidden: User \\"alice\\" cannot list resource \\"pods\\" in API group \\"\\" in the namespace \\"default\\"","reason":"Forbidden","details":\{"kind":"pods"\},"code":403\}/,
  );
  assert.doesNotMatch(last, /responseObject/);
});

test('WithAudit: Request level captures the request body on create, not the response', async () => {
  const { backend, c } = setup('Request');
  const next = recorder(async (ctx) => {
    // The handler still reads the whole body.
    const body = await ctx.request.text();
    return new Response(body, { status: 201, headers: { 'content-type': 'application/json' } });
  });
  const body =
    '{ "kind": "ConfigMap", "apiVersion": "v1", "metadata": { "name": "cm1", "namespace": "default" }, "data": { "a": "<b>&" } }';
  const res = await serve(
    withAudit(next, c),
    ctxFor('/api/v1/namespaces/default/configmaps', {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json' },
    }),
  );
  assert.equal(await res.text(), body);
  const [received, complete] = backend.lines();
  assert.doesNotMatch(received!, /requestObject/);
  assert.match(
    complete!,
    /"objectRef":\{"resource":"configmaps","namespace":"default","name":"cm1","apiVersion":"v1"\},"responseStatus":\{"metadata":\{\},"code":201\},"requestObject":\{"kind":"ConfigMap","apiVersion":"v1","metadata":\{"name":"cm1","namespace":"default"\},"data":\{"a":"\\u003cb\\u003e\\u0026"\}\},"requestReceivedTimestamp"/,
  );
  assert.doesNotMatch(complete!, /responseObject/);
});

test('WithAudit: RequestResponse captures both; PATCH bodies raw; managed fields omitted when asked', async () => {
  const backend = new MemoryBackend();
  const policy = newPolicyRuleEvaluator(
    loadPolicyFromBytes(
      'apiVersion: audit.k8s.io/v1\nkind: Policy\nomitManagedFields: true\nrules:\n- level: RequestResponse\n',
    ),
  );
  const c = testConfig({ audit: { policyRuleEvaluator: policy, backend } });
  const obj =
    '{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cm1","managedFields":[{"manager":"kubectl"}]},"data":{}}';
  const next: Handler = async (ctx) => {
    await ctx.request.text();
    return new Response(obj, { headers: { 'content-type': 'application/json' } });
  };
  const patch = '[{"op":"add","path":"/data/x","value":"1"}]';
  await serve(
    withAudit(next, c),
    ctxFor('/api/v1/namespaces/default/configmaps/cm1', {
      method: 'PATCH',
      body: patch,
      headers: { 'content-type': 'application/json-patch+json' },
    }),
  );
  const complete = backend.lines()[1]!;
  assert.ok(complete.includes(`"requestObject":${patch}`), complete);
  assert.ok(
    complete.includes('"responseObject":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cm1"},"data":{}}'),
    complete,
  );
});

test('WithAudit: bodies over the size bound are not captured and the event says so', async () => {
  const { backend, c } = setup('RequestResponse', { maxBody: 64 });
  const big = JSON.stringify({
    kind: 'ConfigMap',
    apiVersion: 'v1',
    metadata: { name: 'x' },
    data: { a: 'y'.repeat(200) },
  });
  const next: Handler = async (ctx) =>
    new Response(await ctx.request.text(), { headers: { 'content-type': 'application/json' } });
  const res = await serve(
    withAudit(next, c),
    ctxFor('/api/v1/namespaces/default/configmaps', {
      method: 'POST',
      body: big,
      headers: { 'content-type': 'application/json' },
    }),
  );
  assert.equal(await res.text(), big, 'the client still gets the whole body');
  const complete = backend.lines()[1]!;
  assert.doesNotMatch(complete, /requestObject|responseObject/);
  assert.match(complete, /"annotations":\{"audit.k8s.io\/truncated":"true"\}/);
});

test('WithAudit: non-resource requests carry no objectRef and no objects', async () => {
  const { backend, c } = setup('RequestResponse');
  await serve(
    withAudit(() => Response.json({ major: '1' }), c),
    ctxFor('/version'),
  );
  assert.equal(backend.events.length, 2);
  assert.equal(backend.events[1]!.objectRef, undefined);
  assert.equal(backend.events[1]!.responseObject, undefined);
  assert.equal(backend.events[1]!.verb, 'get');
});

test('WithAudit: long-running requests emit ResponseStarted when the response starts, ResponseComplete when the stream ends', async () => {
  const { backend, c } = setup('Metadata');
  let push!: ReadableStreamDefaultController<Uint8Array>;
  const stream = new ReadableStream<Uint8Array>({ start: (ctl) => void (push = ctl) });
  const next: Handler = () => new Response(stream, { headers: { 'content-type': 'application/json' } });
  const res = await serve(withAudit(next, c), ctxFor('/api/v1/pods?watch=true'));
  assert.deepEqual(backend.stages(), ['RequestReceived', 'ResponseStarted']);
  assert.equal(backend.events[1]!.responseStatus?.code, 200);
  assert.equal(backend.events[1]!.verb, 'watch');
  const reader = res.body!.getReader();
  push.enqueue(new TextEncoder().encode('{"type":"ADDED"}\n'));
  assert.equal(new TextDecoder().decode((await reader.read()).value), '{"type":"ADDED"}\n');
  assert.equal(backend.events.length, 2);
  push.close();
  assert.equal((await reader.read()).done, true);
  assert.deepEqual(backend.stages(), ['RequestReceived', 'ResponseStarted', 'ResponseComplete']);
});

test('WithAudit: a client that goes away ends a long-running request too', async () => {
  const { backend, c } = setup('Metadata');
  const stream = new ReadableStream<Uint8Array>({ pull: () => new Promise(() => {}) });
  const res = await serve(
    withAudit(() => new Response(stream), c),
    ctxFor('/api/v1/pods?watch=1'),
  );
  await res.body!.cancel();
  assert.deepEqual(backend.stages(), ['RequestReceived', 'ResponseStarted', 'ResponseComplete']);
});

test('WithAudit: a panic records stage Panic with code 500 and is rethrown', async () => {
  const { backend, c } = setup('Metadata');
  const boom = new Error('boom');
  await assert.rejects(
    serve(
      withAudit(() => {
        throw boom;
      }, c),
      ctxFor('/api/v1/pods'),
    ),
    boom,
  );
  assert.deepEqual(backend.stages(), ['RequestReceived', 'Panic']);
  assert.equal(
    backend.lines()[1],
    '{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"0c6f5e1a-1111-4222-8333-444455556666","stage":"Panic",' +
      '"requestURI":"/api/v1/pods","verb":"list","user":{"username":"alice","groups":["dev","system:authenticated"]},"sourceIPs":["10.0.0.5"],' +
      '"objectRef":{"resource":"pods","apiVersion":"v1"},"responseStatus":{"metadata":{},"status":"Failure","message":"APIServer panic\'d: boom","reason":"InternalError","code":500},' +
      `"requestReceivedTimestamp":"${T0s}","stageTimestamp":"<now>"}`,
  );
});

test('WithAudit: a handler that outlives the timeout is recorded when it finishes, with what it wrote', async () => {
  const { backend, c } = setup('Metadata');
  let finish!: () => void;
  const slow: Handler = () => new Promise<Response>((r) => (finish = () => r(new Response('late', { status: 200 }))));
  // What the timeout filter does: race the inner handler against the deadline, answer 504.
  const inner = withAudit(slow, c);
  const ctx = ctxFor('/api/v1/pods');
  const pending = inner(ctx);
  const timedOut = await Promise.race([
    pending,
    new Promise<Response>((r) => setTimeout(() => r(new Response('timeout', { status: 504 })), 5)),
  ]);
  assert.equal(timedOut.status, 504);
  assert.deepEqual(backend.stages(), ['RequestReceived']);
  finish();
  await pending;
  assert.deepEqual(backend.stages(), ['RequestReceived', 'ResponseComplete']);
  assert.equal(
    backend.lines()[1],
    '{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"0c6f5e1a-1111-4222-8333-444455556666","stage":"ResponseComplete",' +
      '"requestURI":"/api/v1/pods","verb":"list","user":{"username":"alice","groups":["dev","system:authenticated"]},"sourceIPs":["10.0.0.5"],' +
      `"objectRef":{"resource":"pods","apiVersion":"v1"},"responseStatus":{"metadata":{},"code":200},"requestReceivedTimestamp":"${T0s}","stageTimestamp":"<now>"}`,
  );
});

test('WithAudit: blocking-strict — a RequestReceived the sink cannot store fails the request with 500', async () => {
  const { backend, c, metrics } = setup('Metadata', { result: 'async-false' });
  const next = recorder();
  const res = await serve(withAudit(next, c), ctxFor('/api/v1/pods'));
  assert.equal(res.status, 500);
  assert.equal(await res.text(), 'Internal Server Error: "/api/v1/pods": failed to store audit event\n');
  assert.equal(next.calls.length, 0);
  assert.equal(metrics.requestsRejectedTotal, 1);
  assert.equal(backend.events.length, 1);
});

test('WithAudit: blocking — the request waits for the sink', async () => {
  const backend = new MemoryBackend();
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let stored = 0;
  backend.processEvents = (evs) => gate.then(() => ((stored += evs.length), true));
  const c = testConfig({ audit: { policyRuleEvaluator: fixedPolicyRuleEvaluator('Metadata'), backend } });
  let answered = false;
  const p = serve(withAudit(recorder(), c), ctxFor('/api/v1/pods')).then(() => (answered = true));
  await new Promise((r) => setTimeout(r, 5));
  assert.equal(answered, false);
  release();
  await p;
  assert.equal(stored, 2);
});

test('WithAudit: impersonation — explicit and detected impersonatedUser', async () => {
  const { backend, c } = setup('Metadata');
  await serve(
    withAudit((ctx) => {
      logImpersonatedUser(ctx, { name: 'bob', groups: ['system:authenticated'] }, 'impersonate-on:user-info:list');
      return new Response('ok');
    }, c),
    ctxFor('/api/v1/pods'),
  );
  assert.match(
    backend.lines()[1]!,
    /"user":\{"username":"alice","groups":\["dev","system:authenticated"\]\},"impersonatedUser":\{"username":"bob","groups":\["system:authenticated"\]\},"authenticationMetadata":\{"impersonationConstraint":"impersonate-on:user-info:list"\}/,
  );
  backend.events.length = 0;
  await serve(
    withAudit((ctx) => {
      ctx.user = { name: 'carol', groups: ['system:authenticated'] };
      return new Response('ok');
    }, c),
    ctxFor('/api/v1/pods'),
  );
  assert.equal(backend.events[1]!.impersonatedUser?.username, 'carol');
  assert.equal(backend.events[0]!.impersonatedUser, undefined);
});

test('WithAudit: policy sees the authenticated user and RequestInfo (rule matching end to end)', async () => {
  const backend = new MemoryBackend();
  const policy = newPolicyRuleEvaluator(
    loadPolicyFromBytes(`apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: None
  users: ["system:kube-proxy"]
- level: RequestResponse
  resources: [{group: "", resources: ["secrets"]}]
- level: Metadata
`),
  );
  const c = testConfig({ audit: { policyRuleEvaluator: policy, backend } });
  const h = withAudit(() => new Response('{}', { headers: { 'content-type': 'application/json' } }), c);
  const proxy = ctxFor('/api/v1/pods');
  proxy.user = { name: 'system:kube-proxy' };
  await serve(h, proxy);
  assert.equal(backend.events.length, 0);
  await serve(h, ctxFor('/api/v1/namespaces/a/secrets/s'));
  assert.deepEqual(
    backend.events.map((e) => e.level),
    ['RequestResponse', 'RequestResponse'],
  );
});

test('WithAudit: edge runtimes get a flush through waitUntil', async () => {
  const { backend, c } = setup('Metadata');
  const waited: Promise<unknown>[] = [];
  const ctx = ctxFor('/api/v1/pods');
  ctx.transport = { remoteAddress: '10.0.0.5', waitUntil: (p) => waited.push(p) };
  await serve(withAudit(recorder(), c), ctx);
  await Promise.all(waited);
  assert.equal(waited.length, 1);
  assert.equal(backend.flushes, 1);
});

test('WithAudit: a second initialisation is a 500 "failed to create audit event"', async () => {
  const { c } = setup('Metadata');
  const h = withAudit(recorder(), c);
  const ctx = ctxFor('/api/v1/pods');
  await serve(h, ctx);
  const res = await h(ctx);
  assert.equal(res.status, 500);
  assert.equal(await res.text(), 'Internal Server Error: "/api/v1/pods": failed to create audit event\n');
});

test('WithFailedAuthenticationAudit: one ResponseStarted event, no user, code 401, attempted methods', async () => {
  const { backend, c } = setup('Metadata');
  const unauthorized: Handler = (ctx) => errorNegotiated(newUnauthorized(), ctx.request, ctx.url);
  const h = withFailedAuthenticationAudit(unauthorized, c);
  const ctx = ctxFor('/api/v1/pods', { user: false, headers: { authorization: 'Bearer abc' } });
  const res = await serve(h, ctx);
  assert.equal(res.status, 401);
  assert.equal(
    await res.text(),
    '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}\n',
  );
  assert.deepEqual(backend.lines(), [
    '{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"0c6f5e1a-1111-4222-8333-444455556666","stage":"ResponseStarted",' +
      '"requestURI":"/api/v1/pods","verb":"list","user":{},"sourceIPs":["10.0.0.5"],"objectRef":{"resource":"pods","apiVersion":"v1"},' +
      `"responseStatus":{"metadata":{},"message":"Authentication failed, attempted: bearer","code":401},"requestReceivedTimestamp":"${T0s}","stageTimestamp":"<now>"}`,
  ]);
});

test('WithFailedAuthenticationAudit: users rules cannot match; absent without auditing', async () => {
  const backend = new MemoryBackend();
  const policy = newPolicyRuleEvaluator(
    loadPolicyFromBytes(
      'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n  userGroups: ["system:authenticated"]\n',
    ),
  );
  const c = testConfig({ audit: { policyRuleEvaluator: policy, backend } });
  await serve(
    withFailedAuthenticationAudit(() => new Response('', { status: 401 }), c),
    ctxFor('/api/v1/pods', { user: false }),
  );
  assert.equal(backend.events.length, 0);
  const h: Handler = () => new Response('');
  assert.equal(withFailedAuthenticationAudit(h, testConfig()), h);
});

test('getAuthMethods: upstream order and wording', () => {
  const m = (path: string, headers: Record<string, string> = {}, certs = false) => {
    const ctx = testContext(path, { headers, transport: certs ? { peerCertificates: [new Uint8Array([1])] } : {} });
    return getAuthMethods(ctx);
  };
  assert.equal(m('/'), 'Authentication failed, no credentials provided');
  assert.equal(m('/', { authorization: 'Basic ' + btoa('u:p') }), 'Authentication failed, attempted: basic');
  assert.equal(m('/', { authorization: 'bearer' }), 'Authentication failed, no credentials provided');
  assert.equal(
    m('/?access_token=x', { authorization: 'BEARER t' }, true),
    'Authentication failed, attempted: bearer, access_token, x509',
  );
});

test('withFailedRequestAudit: the bad ?timeout= 400 is one ResponseStarted event with the message', async () => {
  const { backend, c } = setup('Metadata');
  const message = 'invalid timeout specified in the request URL - time: invalid duration "foo"';
  const failed: Handler = (ctx) => errorNegotiated(newBadRequest(message), ctx.request, ctx.url);
  const res = await serve(
    withFailedRequestAudit(failed, message, c),
    ctxFor('/api/v1/pods?timeout=foo', { user: false }),
  );
  assert.equal(res.status, 400);
  assert.deepEqual(backend.stages(), ['ResponseStarted']);
  assert.match(
    backend.lines()[0]!,
    /"responseStatus":\{"metadata":\{\},"message":"invalid timeout specified in the request URL - time: invalid duration \\"foo\\"","code":400\}/,
  );
});

test('WithAudit: past 500ms, tracked layer latencies become annotations', async () => {
  const { backend, c } = setup('Metadata');
  const ctx = ctxFor('/api/v1/pods');
  ctx.receivedTimestamp = Date.now() - 750;
  const inner = withAudit((x) => {
    trackLatency(x, 'authorization', 12.5);
    trackLatency(x, 'apf_queue_wait', 3);
    return new Response('ok');
  }, c);
  await serve(withLatencyTrackers(inner), ctx);
  const a = backend.events[1]!.annotations!;
  assert.equal(a['apiserver.latency.k8s.io/authorization'], '12.5ms');
  assert.equal(a['apiserver.latency.k8s.io/apf-queue-wait'], '3ms');
  assert.match(a['apiserver.latency.k8s.io/total']!, /^7\d\dms$/);
  // Fast requests get none.
  backend.events.length = 0;
  const fast = ctxFor('/api/v1/pods');
  fast.receivedTimestamp = Date.now();
  await serve(withLatencyTrackers(inner), fast);
  assert.equal(backend.events[1]!.annotations, undefined);
});

test('WithAudit: a streaming handler that fails after the response started records Panic', async () => {
  const { backend, c } = setup('Metadata');
  let fail!: (e: Error) => void;
  const stream = new ReadableStream<Uint8Array>({ start: (ctl) => void (fail = (e) => ctl.error(e)) });
  const res = await serve(
    withAudit(() => new Response(stream), c),
    ctxFor('/api/v1/pods?watch=true'),
  );
  const reading = res.body!.getReader().read();
  fail(new Error('watch broke'));
  await assert.rejects(reading);
  assert.deepEqual(backend.stages(), ['RequestReceived', 'ResponseStarted', 'Panic']);
  assert.match(
    backend.lines()[2]!,
    /"responseStatus":\{"metadata":\{\},"status":"Failure","message":"APIServer panic'd: watch broke","reason":"InternalError","code":500\}/,
  );
});

test('WithAudit: blocking mode (a backend that never fails) runs the handler meanwhile, holds the response', async () => {
  const inner = new MemoryBackend();
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  inner.processEvents = (evs) => gate.then(() => (inner.events.push(...evs), false));
  const backend = new IgnoreErrorsBackend(inner);
  const c = testConfig({ audit: { policyRuleEvaluator: fixedPolicyRuleEvaluator('Metadata'), backend } });
  const next = recorder();
  let answered = false;
  const p = serve(withAudit(next, c), ctxFor('/api/v1/pods')).then((r) => ((answered = true), r));
  await new Promise((r) => setTimeout(r, 5));
  assert.equal(next.calls.length, 1, 'the handler already ran');
  assert.equal(answered, false, 'the response waits for the events');
  release();
  assert.equal((await p).status, 200, 'a failed write does not fail the request in blocking mode');
  assert.deepEqual(inner.stages(), ['RequestReceived', 'ResponseComplete']);
});

test('WithAudit: a create that authorization forbids carries no requestObject (the handler never decoded it)', async () => {
  const { backend, c } = setup('Request');
  const forbid: Handler = (ctx) => {
    addAuditAnnotation(ctx, 'authorization.k8s.io/decision', 'forbid');
    addAuditAnnotation(ctx, 'authorization.k8s.io/reason', '');
    return respondWithError(
      {
        status: 'Failure',
        message: 'configmaps is forbidden',
        reason: 'Forbidden',
        details: { kind: 'configmaps' },
        code: 403,
      },
      ctx.request,
      ctx.url,
    );
  };
  const body = '{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cm1"}}';
  await serve(
    withAudit(forbid, c),
    ctxFor('/api/v1/namespaces/default/configmaps', {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json' },
    }),
  );
  const complete = backend.lines()[1]!;
  assert.doesNotMatch(complete, /requestObject/);
  assert.match(complete, /"reason":"Forbidden"/);
});
