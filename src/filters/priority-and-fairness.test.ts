import { test } from 'node:test';
import assert from 'node:assert/strict';
import { complete, newConfig, newServer, type Config } from '../server/config.ts';
import type { Handler } from '../endpoints/request/context.ts';
import { requestFunc } from '../authentication/authenticator.ts';
import { FlowControl } from '../flowcontrol/controller.ts';
import { parseFlowControlManifests } from '../flowcontrol/manifests.ts';
import type { GenericAPIServer } from '../server/genericapiserver.ts';

// A priority level with one seat, one queue of length one, for user bob (serverCL 10:
// ceil(10 × 25 / (245 + 25)) = 1 seat).
const tinyManifests = `
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: PriorityLevelConfiguration
metadata: {name: tiny}
spec:
  type: Limited
  limited:
    nominalConcurrencyShares: 25
    limitResponse: {type: Queue, queuing: {queues: 1, handSize: 1, queueLengthLimit: 1}}
---
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata: {name: tiny}
spec:
  matchingPrecedence: 100
  priorityLevelConfiguration: {name: tiny}
  distinguisherMethod: {type: ByUser}
  rules:
  - subjects: [{kind: User, user: {name: bob}}]
    resourceRules: [{verbs: ["*"], apiGroups: ["*"], resources: ["*"], namespaces: ["*"], clusterScope: true}]
    nonResourceRules: [{verbs: ["*"], nonResourceURLs: ["*"]}]
`;

interface TestServer {
  server: GenericAPIServer;
  fc: FlowControl;
  fetch(path: string, user?: string, groups?: string[], init?: RequestInit): Promise<Response>;
  metrics(): Promise<string>;
}

function testServer(handler: Handler, overrides: Partial<Config> = {}, manifests = tinyManifests): TestServer {
  const m = parseFlowControlManifests(manifests, 'test.yaml');
  assert.deepEqual(m.rejected, []);
  const fc = new FlowControl({ flowSchemas: m.flowSchemas, priorityLevels: m.priorityLevels });
  const config = newConfig({
    flowControl: fc,
    maxRequestsInFlight: 10,
    maxMutatingRequestsInFlight: 0,
    authentication: {
      apiAudiences: [],
      authenticator: requestFunc(async (ctx) => {
        const name = ctx.request.headers.get('x-user') ?? 'system:anonymous';
        const groups = ctx.request.headers.get('x-groups')?.split(',') ?? [
          name === 'system:anonymous' ? 'system:unauthenticated' : 'system:authenticated',
        ];
        return { user: { name, groups } };
      }),
    },
    ...overrides,
  });
  config.routeInstallers.push((s) => {
    s.handler.nonGoRestfulMux.handlePrefix('/api/', handler);
    s.handler.nonGoRestfulMux.handle('/work', handler);
  });
  const server = newServer(complete(config), 'test');
  server.prepareRun();
  return {
    server,
    fc,
    fetch: (path, user, groups, init) => {
      const headers = new Headers(init?.headers);
      if (user) headers.set('x-user', user);
      if (groups) headers.set('x-groups', groups.join(','));
      return server.fetch(new Request(`http://test${path}`, { ...init, headers }));
    },
    metrics: async () =>
      (await server.fetch(new Request('http://test/metrics', { headers: { 'x-groups': 'system:masters' } }))).text(),
  };
}

/** A handler whose requests wait until released. */
function gate() {
  const waiters: (() => void)[] = [];
  let started = 0;
  const handler: Handler = async () => {
    started++;
    await new Promise<void>((r) => waiters.push(r));
    return new Response('done');
  };
  return {
    handler,
    get started() {
      return started;
    },
    releaseAll: () => waiters.splice(0).forEach((r) => r()),
  };
}

const tick = (ms = 0) => new Promise((r) => setTimeout(r, ms));

function uids(t: TestServer, fs: string) {
  const f = t.fc.flowSchemas.find((x) => x.name === fs)!;
  return { fs: f.uid, pl: f.priorityLevel.uid };
}

test('429 when the queue is full: upstream body, headers and metrics', async () => {
  const g = gate();
  const t = testServer(g.handler);
  const p1 = t.fetch('/api/v1/namespaces/default/pods', 'bob');
  await tick();
  const p2 = t.fetch('/api/v1/namespaces/default/pods', 'bob');
  await tick();
  assert.equal(g.started, 1);
  const res = await t.fetch('/api/v1/namespaces/default/pods', 'bob');
  assert.equal(res.status, 429);
  assert.equal(await res.text(), 'Too many requests, please try again later.\n');
  assert.equal(res.headers.get('content-type'), 'text/plain; charset=utf-8');
  assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
  assert.equal(res.headers.get('retry-after'), '1');
  const u = uids(t, 'tiny');
  assert.equal(res.headers.get('X-Kubernetes-PF-FlowSchema-UID'), u.fs);
  assert.equal(res.headers.get('X-Kubernetes-PF-PriorityLevel-UID'), u.pl);
  assert.ok(res.headers.get('audit-id'));

  g.releaseAll();
  const r1 = await p1;
  assert.equal(r1.status, 200);
  assert.equal(r1.headers.get('x-kubernetes-pf-flowschema-uid'), u.fs);
  await tick();
  g.releaseAll();
  assert.equal((await p2).status, 200);

  const text = await t.metrics();
  assert.match(
    text,
    /^apiserver_flowcontrol_rejected_requests_total\{flow_schema="tiny",priority_level="tiny",reason="queue-full"\} 1$/m,
  );
  assert.match(
    text,
    /^apiserver_flowcontrol_dispatched_requests_total\{flow_schema="tiny",priority_level="tiny"\} 2$/m,
  );
  assert.match(
    text,
    /^apiserver_flowcontrol_current_executing_requests\{flow_schema="tiny",priority_level="tiny"\} 0$/m,
  );
  assert.match(text, /^apiserver_flowcontrol_current_inqueue_requests\{flow_schema="tiny",priority_level="tiny"\} 0$/m);
  assert.match(text, /^apiserver_flowcontrol_nominal_limit_seats\{priority_level="tiny"\} 1$/m);
  assert.match(
    text,
    /^apiserver_flowcontrol_request_wait_duration_seconds_count\{execute="true",flow_schema="tiny",priority_level="tiny"\} 2$/m,
  );
  assert.match(
    text,
    /^apiserver_request_terminations_total\{code="429",component="apiserver",group="",resource="pods",scope="namespace",subresource="",verb="LIST",version="v1"\} 1$/m,
  );
  assert.match(text, /^apiserver_dropped_requests_total\{request_kind="readOnly"\} 1$/m);
  // The authentication filter's metrics (bob ×3 and the /metrics scraper).
  assert.match(text, /^authentication_attempts\{result="success"\} 4$/m);
  assert.match(text, /^authenticated_user_requests\{username="other"\} 4$/m);
  assert.match(text, /^authentication_duration_seconds_count\{result="success"\} 4$/m);
  assert.match(
    text,
    /^apiserver_request_total\{code="429",component="apiserver",dry_run="",group="",resource="pods",scope="namespace",subresource="",verb="LIST",version="v1"\} 1$/m,
  );
});

test('queue wait limit is a quarter of the request timeout; exempt and probes are never queued', async () => {
  const g = gate();
  const t = testServer(g.handler, { requestTimeout: 400 });
  const p1 = t.fetch('/work', 'bob');
  await tick();
  const started = Date.now();
  const res = await t.fetch('/work', 'bob');
  const waited = Date.now() - started;
  assert.equal(res.status, 429);
  assert.ok(waited >= 90 && waited < 350, `waited ${waited}ms (limit 100ms)`);
  // system:masters (exempt) and health probes bypass the saturated level.
  const exempt = t.fetch('/work', 'bob', ['system:masters']);
  await tick(5);
  assert.equal(g.started, 2);
  const probe = await t.fetch('/healthz', 'carol');
  assert.equal(probe.status, 200);
  const u = uids(t, 'probes');
  assert.equal(probe.headers.get('x-kubernetes-pf-flowschema-uid'), u.fs);
  assert.equal(probe.headers.get('x-kubernetes-pf-prioritylevel-uid'), uids(t, 'exempt').pl);
  g.releaseAll();
  assert.equal((await p1).status, 200);
  const ex = await exempt;
  assert.equal(ex.status, 200);
  assert.equal(ex.headers.get('x-kubernetes-pf-flowschema-uid'), uids(t, 'exempt').fs);
  assert.match(
    await t.metrics(),
    /^apiserver_flowcontrol_rejected_requests_total\{flow_schema="tiny",priority_level="tiny",reason="time-out"\} 1$/m,
  );
});

function watchHandler(opened: { n: number; cancelled: number }): Handler {
  return () => {
    opened.n++;
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new TextEncoder().encode('{"type":"BOOKMARK"}\n'));
      },
      cancel() {
        opened.cancelled++;
      },
    });
    return new Response(body, { headers: { 'content-type': 'application/json' } });
  };
}

test('watches hold a seat only until they start', async () => {
  const opened = { n: 0, cancelled: 0 };
  const t = testServer(watchHandler(opened));
  // One seat, one queue slot: opened one after another, every watch gets through because each
  // gives its seat back once it has started (holding it would make the third one a 429).
  const n = 200;
  const watches: Response[] = [];
  for (let i = 0; i < n; i++) watches.push(await t.fetch('/api/v1/namespaces/default/pods?watch=1', 'bob'));
  assert.deepEqual(new Set(watches.map((r) => r.status)), new Set([200]));
  assert.equal(opened.n, n);
  opened.n = 0;
  // The one seat of the level is free again: a plain request is served at once.
  const get = await t.fetch('/api/v1/namespaces/default/pods/x', 'bob');
  assert.equal(get.status, 200);
  await get.body?.cancel();
  let text = await t.metrics();
  assert.match(text, /^apiserver_flowcontrol_current_executing_seats\{flow_schema="tiny",priority_level="tiny"\} 0$/m);
  assert.match(
    text,
    new RegExp(
      `^apiserver_longrunning_requests\\{component="apiserver",group="",resource="pods",scope="namespace",subresource="",verb="WATCH",version="v1"\\} ${n}$`,
      'm',
    ),
  );
  // Reading a watch works through the wrapper; cancelling every watch brings the gauge back to 0.
  const reader = watches[0]!.body!.getReader();
  assert.equal(new TextDecoder().decode((await reader.read()).value), '{"type":"BOOKMARK"}\n');
  reader.releaseLock();
  await Promise.all(watches.map((w) => w.body!.cancel()));
  assert.equal(opened.cancelled, n + 1); // the watches and the plain GET
  text = await t.metrics();
  assert.match(
    text,
    /^apiserver_longrunning_requests\{component="apiserver",group="",resource="pods",scope="namespace",subresource="",verb="WATCH",version="v1"\} 0$/m,
  );
});

test('a flood of watches from many clients at once', async () => {
  const opened = { n: 0, cancelled: 0 };
  const t = testServer(watchHandler(opened), { maxRequestsInFlight: 400, maxMutatingRequestsInFlight: 200 });
  const n = 1000;
  const watches = await Promise.all(
    Array.from({ length: n }, (_, i) => t.fetch('/api/v1/namespaces/default/pods?watch=true', `user${i % 100}`)),
  );
  const codes = new Map<number, number>();
  for (const w of watches) codes.set(w.status, (codes.get(w.status) ?? 0) + 1);
  assert.deepEqual([...codes], [[200, n]]);
  const gd = t.fc.priorityLevels.get('global-default')!;
  assert.equal(gd.queueSet.requestsExecuting + gd.queueSet.requestsWaiting, 0);
  await Promise.all(watches.map((w) => w.body!.cancel()));
  assert.equal(opened.cancelled, n);
  assert.match(await t.metrics(), /^apiserver_longrunning_requests\{[^}]*verb="WATCH"[^}]*\} 0$/m);
});

test('a flood from one client: bounded queues, fast 429s, other levels unaffected', async () => {
  const handler: Handler = async () => {
    await tick(2);
    return new Response('ok');
  };
  // serverCL 30: workload-low has 7 seats at start; one flow can fill its 6 queues × 50.
  const t = testServer(handler, { maxRequestsInFlight: 20, maxMutatingRequestsInFlight: 10 });
  const sa = 'system:serviceaccount:default:flooder';
  const saGroups = ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated'];
  const started = Date.now();
  const flood = Array.from({ length: 1000 }, () => t.fetch('/api/v1/namespaces/default/configmaps', sa, saGroups));
  await tick(1);
  const wl = t.fc.priorityLevels.get('workload-low')!;
  assert.ok(wl.queueSet.requestsWaiting <= 6 * 50, `waiting ${wl.queueSet.requestsWaiting}`);
  // Another priority level is served while the flood is queued.
  const t0 = Date.now();
  const other = await t.fetch('/api/v1/namespaces/default/configmaps', 'alice');
  const otherLatency = Date.now() - t0;
  assert.equal(other.status, 200);
  const results = await Promise.all(flood);
  const elapsed = Date.now() - started;
  const ok = results.filter((r) => r.status === 200).length;
  const rejected = results.filter((r) => r.status === 429).length;
  assert.equal(ok + rejected, 1000);
  assert.ok(rejected >= 600 && rejected <= 700, `rejected ${rejected}`);
  assert.ok(otherLatency < elapsed / 2, `other level waited ${otherLatency}ms of ${elapsed}ms`);
  assert.equal(wl.queueSet.requestsWaiting + wl.queueSet.requestsExecuting, 0);
  await Promise.all(results.map((r) => r.body?.cancel()));
});

test('many flows share a level fairly; nothing is lost', async () => {
  const handler: Handler = async () => {
    await tick(1);
    return new Response('ok');
  };
  const t = testServer(handler, { maxRequestsInFlight: 20, maxMutatingRequestsInFlight: 10 });
  const users = Array.from({ length: 40 }, (_, i) => `user${i}`);
  const results = await Promise.all(
    users.flatMap((u) => Array.from({ length: 10 }, () => t.fetch('/api/v1/namespaces/default/secrets', u))),
  );
  assert.equal(results.filter((r) => r.status === 200).length, 400);
  const text = await t.metrics();
  assert.match(
    text,
    /^apiserver_flowcontrol_dispatched_requests_total\{flow_schema="global-default",priority_level="global-default"\} 400$/m,
  );
});

test('APF needs a positive server concurrency limit', () => {
  assert.throws(
    () => testServer(() => new Response('ok'), { maxRequestsInFlight: 0, maxMutatingRequestsInFlight: 0 }),
    {
      message:
        'invalid configuration: MaxRequestsInFlight=0 and MaxMutatingRequestsInFlight=0; they must add up to something positive',
    },
  );
});

test('--enable-priority-and-fairness=false: no APF headers (max-in-flight instead)', async () => {
  const t = testServer(() => new Response('ok'), { flowControl: undefined });
  const res = await t.fetch('/work', 'bob');
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('x-kubernetes-pf-flowschema-uid'), null);
});

test('/debug/api_priority_and_fairness/dump_priority_levels: tabwriter-aligned counts per level', async () => {
  const g = gate();
  const t = testServer(g.handler);
  const p1 = t.fetch('/work', 'bob');
  await tick();
  const p2 = t.fetch('/work', 'bob');
  await tick();
  assert.equal((await t.fetch('/work', 'bob')).status, 429);
  const res = await t.fetch('/debug/api_priority_and_fairness/dump_priority_levels', 'admin', ['system:masters']);
  assert.equal(res.status, 200);
  const lines = (await res.text()).split('\n');
  assert.equal(
    lines[0],
    'PriorityLevelName, ActiveQueues, IsIdle, IsQuiescing, WaitingRequests, ExecutingRequests, DispatchedRequests, RejectedRequests, TimedoutRequests, CancelledRequests',
  );
  assert.equal(
    lines[1],
    'catch-all,         0,            true,   false,       0,               0,                 0,                  0,                0,                0',
  );
  const tiny = lines.find((l) => l.startsWith('tiny,'))!;
  assert.deepEqual(tiny.split(/,\s*/), ['tiny', '1', 'false', 'false', '1', '1', '1', '1', '0', '0']);
  assert.equal(lines.filter((l) => l.startsWith('exempt,')).length, 1);
  g.releaseAll();
  await p1;
  await tick();
  g.releaseAll();
  await p2;
});

test('/debug/api_priority_and_fairness/dump_queues and dump_requests: a row per queue and per waiting request', async () => {
  const g = gate();
  const t = testServer(g.handler);
  const p1 = t.fetch('/work', 'bob');
  await tick();
  const before = Date.now();
  const p2 = t.fetch('/api/v1/namespaces/ns1/pods/p1', 'bob');
  await tick();
  const admin = async (path: string) => {
    const r = await t.fetch(path, 'admin', ['system:masters']);
    return { status: r.status, type: r.headers.get('content-type'), lines: (await r.text()).split('\n') };
  };

  const queues = await admin('/debug/api_priority_and_fairness/dump_queues');
  assert.equal(queues.status, 200);
  assert.equal(queues.type, 'text/plain; charset=utf-8');
  assert.deepEqual(queues.lines[0]!.split(/,\s*/), [
    'PriorityLevelName',
    'Index',
    'PendingRequests',
    'ExecutingRequests',
    'SeatsInUse',
    'NextDispatchR',
    'InitialSeatsSum',
    'MaxSeatsSum',
    'TotalWorkSum',
  ]);
  const tiny = queues.lines.filter((l) => l.startsWith('tiny,'));
  assert.equal(tiny.length, 1, 'one queue');
  const cells = tiny[0]!.split(/,\s*/);
  assert.deepEqual(cells.slice(0, 5), ['tiny', '0', '1', '1', '1']);
  assert.match(cells[5]!, /^\d+\.\d{8}ss$/);
  assert.deepEqual(cells.slice(6), ['1', '1', '0.00300000ss']);
  // Exempt levels have no queues; global-default has 128.
  assert.equal(queues.lines.filter((l) => l.startsWith('exempt,')).length, 0);
  assert.equal(queues.lines.filter((l) => l.startsWith('global-default,')).length, 128);

  const requests = await admin('/debug/api_priority_and_fairness/dump_requests');
  assert.deepEqual(requests.lines[0]!.split(/,\s*/), [
    'PriorityLevelName',
    'FlowSchemaName',
    'QueueIndex',
    'RequestIndexInQueue',
    'FlowDistingsher',
    'ArriveTime',
    'InitialSeats',
    'FinalSeats',
    'AdditionalLatency',
  ]);
  assert.equal(requests.lines.length, 3, 'header, one waiting request, final newline');
  const r = requests.lines[1]!.split(/,\s*/);
  assert.deepEqual([...r.slice(0, 5), ...r.slice(6)], ['tiny', 'tiny', '0', '0', 'bob', '1', '0', '0s']);
  assert.match(r[5]!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,3})?Z$/);
  assert.ok(Math.abs(Date.parse(r[5]!) - before) < 5000);

  const detailed = await admin('/debug/api_priority_and_fairness/dump_requests?includeRequestDetails=1');
  assert.deepEqual(detailed.lines[0]!.split(/,\s*/).slice(9), [
    'UserName',
    'Verb',
    'APIPath',
    'Namespace',
    'Name',
    'APIVersion',
    'Resource',
    'SubResource',
  ]);
  assert.deepEqual(detailed.lines[1]!.split(/,\s*/).slice(9), [
    'bob',
    'get',
    '/api/v1/namespaces/ns1/pods/p1',
    'ns1',
    'p1',
    'v1',
    'pods',
    '',
  ]);
  // Unlisted, as upstream: not in the root path index.
  assert.ok(!(await admin('/')).lines.some((l) => l.includes('api_priority_and_fairness')));
  g.releaseAll();
  await p1;
  await tick();
  g.releaseAll();
  await p2;
});

test('fairness through the filter: a quiet user is not stuck behind a noisy one in the same level', async () => {
  const manifests = `
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: PriorityLevelConfiguration
metadata: {name: shared}
spec:
  type: Limited
  limited:
    nominalConcurrencyShares: 55
    limitResponse: {type: Queue, queuing: {queues: 16, handSize: 2, queueLengthLimit: 200}}
---
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata: {name: shared}
spec:
  matchingPrecedence: 100
  priorityLevelConfiguration: {name: shared}
  distinguisherMethod: {type: ByUser}
  rules:
  - subjects: [{kind: User, user: {name: noisy}}, {kind: User, user: {name: quiet}}]
    nonResourceRules: [{verbs: ["*"], nonResourceURLs: ["*"]}]
`;
  const order: string[] = [];
  const handler: Handler = async (ctx) => {
    await tick(3);
    order.push(ctx.user!.name);
    return new Response('ok');
  };
  // serverCL 10: ceil(10 × 55 / 300) = 2 seats for the level.
  const t = testServer(handler, {}, manifests);
  assert.equal(t.fc.priorityLevels.get('shared')!.currentCL, 2);
  const noisy = Array.from({ length: 60 }, () => t.fetch('/work', 'noisy'));
  await tick(1);
  const quiet = Array.from({ length: 6 }, () => t.fetch('/work', 'quiet'));
  const all = await Promise.all([...noisy, ...quiet]);
  assert.deepEqual(new Set(all.map((r) => r.status)), new Set([200]));
  // All of the quiet user's requests finish long before the noisy backlog (60 requests) drains.
  const lastQuiet = order.lastIndexOf('quiet');
  assert.ok(lastQuiet < 25, `last quiet request finished at position ${lastQuiet}: ${order.join(' ')}`);
});
