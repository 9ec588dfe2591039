import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FlowControl, computeConcurrencyAllocation, RetryAfterTracker } from './controller.ts';
import { QueueSet, type Admission } from './queueset.ts';
import { deal, hashFlowID, sha256 } from './shufflesharding.ts';
import { createHash } from 'node:crypto';
import { parseFlowControlManifests } from './manifests.ts';
import type { RequestInfo } from '../endpoints/request/requestinfo.ts';
import type { UserInfo } from '../endpoints/request/context.ts';

function ri(p: Partial<RequestInfo>): RequestInfo {
  return {
    isResourceRequest: false,
    path: '/',
    verb: 'get',
    apiPrefix: '',
    apiGroup: '',
    apiVersion: '',
    namespace: '',
    resource: '',
    subresource: '',
    name: '',
    parts: [],
    fieldSelector: '',
    labelSelector: '',
    ...p,
  };
}
const pods = ri({
  isResourceRequest: true,
  path: '/api/v1/namespaces/default/pods',
  verb: 'list',
  apiVersion: 'v1',
  namespace: 'default',
  resource: 'pods',
});
const nodes = ri({
  isResourceRequest: true,
  path: '/api/v1/nodes/n1',
  verb: 'get',
  apiVersion: 'v1',
  resource: 'nodes',
  name: 'n1',
});
const lease = ri({
  isResourceRequest: true,
  path: '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/x',
  verb: 'update',
  apiGroup: 'coordination.k8s.io',
  apiVersion: 'v1',
  namespace: 'kube-system',
  resource: 'leases',
  name: 'x',
});
const healthz = ri({ path: '/healthz' });
const healthzEtcd = ri({ path: '/healthz/etcd' });
const metrics = ri({ path: '/metrics' });

const admin: UserInfo = { name: 'admin', groups: ['system:masters', 'system:authenticated'] };
const alice: UserInfo = { name: 'alice', groups: ['system:authenticated'] };
const anon: UserInfo = { name: 'system:anonymous', groups: ['system:unauthenticated'] };
const sa: UserInfo = {
  name: 'system:serviceaccount:default:builder',
  groups: ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated'],
};
const ksa: UserInfo = {
  name: 'system:serviceaccount:kube-system:foo',
  groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'],
};
const node: UserInfo = { name: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'] };
const kcm: UserInfo = { name: 'system:kube-controller-manager', groups: ['system:authenticated'] };
const nobody: UserInfo = { name: 'x', groups: [] };

test('classification against the bootstrap configuration', () => {
  const fc = new FlowControl().start({ serverConcurrencyLimit: 600, requestTimeout: 60_000 });
  const cases: [UserInfo, RequestInfo, string, string, string][] = [
    [admin, pods, 'exempt', 'exempt', ''],
    [admin, healthz, 'exempt', 'exempt', ''],
    [alice, healthz, 'probes', 'exempt', ''],
    [anon, healthz, 'probes', 'exempt', ''],
    [anon, healthzEtcd, 'probes', 'exempt', ''], // `/healthz` covers `/healthz/etcd`
    [anon, metrics, 'global-default', 'global-default', 'system:anonymous'],
    [alice, pods, 'global-default', 'global-default', 'alice'],
    [sa, pods, 'service-accounts', 'workload-low', 'system:serviceaccount:default:builder'],
    [ksa, pods, 'kube-system-service-accounts', 'workload-high', 'default'],
    [ksa, lease, 'system-leader-election', 'leader-election', 'system:serviceaccount:kube-system:foo'],
    [node, nodes, 'system-node-high', 'node-high', 'system:node:n1'],
    [node, pods, 'system-nodes', 'system', 'system:node:n1'],
    [kcm, pods, 'kube-controller-manager', 'workload-high', 'default'],
    [nobody, pods, 'catch-all', 'catch-all', 'x'],
  ];
  for (const [user, info, fs, pl, dist] of cases) {
    const c = fc.classify({ user, requestInfo: info });
    assert.deepEqual(
      [c.flowSchema.name, c.priorityLevel.name, c.distinguisher],
      [fs, pl, dist],
      `${user.name} ${info.path}`,
    );
  }
  // UIDs are per object and stable.
  const a = fc.classify({ user: alice, requestInfo: pods });
  const b = fc.classify({ user: anon, requestInfo: metrics });
  assert.equal(a.flowSchema.uid, b.flowSchema.uid);
  assert.match(a.priorityLevel.uid, /^[0-9a-f-]{36}$/);
});

test('concurrency limits from shares (serverCL 600, bootstrap shares)', () => {
  const fc = new FlowControl().start({ serverConcurrencyLimit: 600, requestTimeout: 60_000 });
  const got = Object.fromEntries(
    [...fc.priorityLevels.values()].map((p) => [p.name, [p.nominalCL, p.lendableCL, p.minCL]]),
  );
  assert.deepEqual(got, {
    'catch-all': [13, 0, 13],
    exempt: [0, 0, 0],
    system: [74, 24, 50],
    'node-high': [98, 25, 73],
    'leader-election': [25, 0, 25],
    'workload-high': [98, 49, 49],
    'workload-low': [245, 221, 24],
    'global-default': [49, 25, 24],
  });
  assert.equal(fc.requestWaitLimit, 15_000);
});

test('bad flow-control manifests are rejected with the reason; built-ins and good objects stay', () => {
  const text = `
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: PriorityLevelConfiguration
metadata: {name: tiny}
spec:
  type: Limited
  limited:
    nominalConcurrencyShares: 5
    limitResponse: {type: Queue, queuing: {queues: 4, handSize: 8, queueLengthLimit: 10}}
---
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: PriorityLevelConfiguration
metadata: {name: small}
spec:
  type: Limited
  limited:
    limitResponse: {type: Queue}
---
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata: {name: bad-fs}
spec:
  matchingPrecedence: 0
  priorityLevelConfiguration: {name: small}
  distinguisherMethod: {type: ByHat}
  rules:
  - subjects: [{kind: Robot}]
---
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata: {name: dangling}
spec:
  priorityLevelConfiguration: {name: nope}
  rules:
  - subjects: [{kind: User, user: {name: bob}}]
    nonResourceRules: [{verbs: ["*"], nonResourceURLs: ["*"]}]
---
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata: {name: exempt}
spec:
  matchingPrecedence: 1
  priorityLevelConfiguration: {name: small}
  rules:
  - subjects: [{kind: Group, group: {name: "*"}}]
    nonResourceRules: [{verbs: ["*"], nonResourceURLs: ["*"]}]
---
apiVersion: flowcontrol.apiserver.k8s.io/v1beta2
kind: FlowSchema
metadata: {name: old}
---
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata: {name: bobs}
spec:
  priorityLevelConfiguration: {name: small}
  distinguisherMethod: {type: ByUser}
  rules:
  - subjects: [{kind: User, user: {name: bob}}]
    nonResourceRules: [{verbs: ["get", "*"], nonResourceURLs: ["/ok*"]}]
  - subjects: [{kind: User, user: {name: bob}}]
    resourceRules: [{verbs: ["*"], apiGroups: ["*"], resources: ["*"], namespaces: ["*"]}]
---
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata: {name: bob-ok}
spec:
  matchingPrecedence: 50
  priorityLevelConfiguration: {name: small}
  rules:
  - subjects: [{kind: User, user: {name: bob}}]
    resourceRules: [{verbs: ["*"], apiGroups: ["*"], resources: ["*"], namespaces: ["*"]}]
---
a: [unclosed
`;
  const m = parseFlowControlManifests(text, 'fc.yaml');
  const reasons: string[] = m.rejected.map((r) => r.reason);
  const fc = new FlowControl({
    flowSchemas: m.flowSchemas,
    priorityLevels: m.priorityLevels,
    onRejected: (r) => reasons.push(r.reason),
  });
  fc.start({ serverConcurrencyLimit: 600, requestTimeout: 60_000 });
  const yamlErrors = reasons.filter((r) => /^fc\.yaml:\d+: Flow sequence/.test(r));
  assert.equal(yamlErrors.length, 1, 'YAML syntax error has file:line');
  assert.deepEqual(
    reasons.filter((r) => !yamlErrors.includes(r)).sort(),
    [
      'FlowSchema "dangling" references a nonexistent PriorityLevelConfiguration "nope" (Dangling); it is ignored',
      'FlowSchema.flowcontrol.apiserver.k8s.io "bad-fs" is invalid: [spec.matchingPrecedence: Invalid value: 0: must be a positive value, spec.distinguisherMethod.type: Unsupported value: "ByHat": supported values: "ByNamespace", "ByUser", spec.rules[0].subjects[0].kind: Unsupported value: "Robot": supported values: "Group", "ServiceAccount", "User", spec.rules[0]: Required value: at least one of resourceRules and nonResourceRules has to be non-empty]',
      'FlowSchema.flowcontrol.apiserver.k8s.io "bobs" is invalid: spec.rules[0].nonResourceRules[0].verbs: Invalid value: []string{"get", "*"}: if \'*\' is present, must not specify other verbs',
      'PriorityLevelConfiguration.flowcontrol.apiserver.k8s.io "tiny" is invalid: spec.limited.limitResponse.queuing.handSize: Invalid value: 8: should not be greater than queues (4)',
      'fc.yaml: no kind "FlowSchema" is registered for version "flowcontrol.apiserver.k8s.io/v1beta2"; use flowcontrol.apiserver.k8s.io/v1',
      'the mandatory FlowSchema "exempt" is maintained by the apiserver and cannot be replaced',
    ].sort(),
  );
  // The good objects are in force (with v1 defaults), the built-ins too.
  const bob = fc.classify({ user: { name: 'bob', groups: ['system:authenticated'] }, requestInfo: pods });
  assert.equal(bob.flowSchema.name, 'bob-ok');
  assert.equal(bob.priorityLevel.name, 'small');
  assert.deepEqual(bob.priorityLevel.config.spec.limited, {
    nominalConcurrencyShares: 30,
    lendablePercent: 0,
    limitResponse: { type: 'Queue', queuing: { queues: 64, handSize: 8, queueLengthLimit: 50 } },
  });
  assert.equal(fc.classify({ user: admin, requestInfo: pods }).flowSchema.name, 'exempt');
  assert.equal(fc.classify({ user: alice, requestInfo: pods }).priorityLevel.name, 'global-default');
  assert.equal(fc.priorityLevels.has('tiny'), false);
});

test('shuffle sharding: Dealer.Deal and the flow hash', async () => {
  assert.deepEqual(deal(0n, 128, 6), [0, 1, 2, 3, 4, 5]);
  for (const h of [1n, 12345678901234567n, 0xffffffffffffffffn]) {
    const hand = deal(h, 64, 8);
    assert.equal(new Set(hand).size, 8);
    assert.ok(hand.every((c) => c >= 0 && c < 64));
    assert.deepEqual(deal(h, 64, 8), hand);
  }
  for (const input of [
    '',
    'abc',
    'global-default\u0000alice',
    'x'.repeat(55),
    'y'.repeat(56),
    'z'.repeat(64),
    'é'.repeat(100),
  ]) {
    const bytes = new TextEncoder().encode(input);
    assert.equal(
      Buffer.from(sha256(bytes)).toString('hex'),
      createHash('sha256').update(bytes).digest('hex'),
      `sha256 of ${input.length}`,
    );
  }
  const a = hashFlowID('global-default', 'alice');
  const sum = createHash('sha256').update('global-default\u0000alice').digest();
  assert.equal(a, sum.readBigUInt64LE(0));
  assert.notEqual(a, hashFlowID('global-default', 'bob'));
  // Different flows mostly get different hands.
  const hands = new Set<string>();
  for (let i = 0; i < 50; i++) hands.add(deal(hashFlowID('fs', `user${i}`), 128, 6).join(','));
  assert.equal(hands.size, 50);
});

/** A manual clock and a driver that finishes the oldest executing request at each step. */
function harness(cl: number, queues = 8, handSize = 2, qlen = 1000) {
  let now = 1_000_000;
  const qs = new QueueSet({ name: 't', queues, handSize, queueLengthLimit: qlen }, cl, () => now);
  const executing: { flow: string; a: Admission & { admitted: true } }[] = [];
  const order: string[] = [];
  const stop = new AbortController();
  const submit = (flow: string, hand: number[]) => {
    const r = qs.startRequest(hand, 1, flow, now + 1e9, stop.signal);
    const onAdmit = (a: Admission) => {
      if (!a.admitted) return;
      executing.push({ flow, a });
      order.push(flow);
    };
    if (r instanceof Promise) void r.then(onAdmit);
    else onAdmit(r);
  };
  const step = async (serviceMs: number) => {
    await Promise.resolve();
    now += serviceMs;
    const e = executing.shift();
    e?.a.finish();
    await Promise.resolve();
    await Promise.resolve();
  };
  return { qs, submit, step, order, executing, done: () => stop.abort() };
}

test('fair queuing: a noisy flow cannot take more than its share of a level', async () => {
  const h = harness(2);
  for (let i = 0; i < 60; i++) h.submit('noisy', [0, 1]);
  for (let i = 0; i < 10; i++) h.submit('quiet', [4, 5]);
  await Promise.resolve();
  for (let i = 0; i < 40; i++) await h.step(3);
  // The first two dispatches went to the noisy flow (it arrived first); after that the two
  // flows alternate while both have requests waiting: the quiet flow's 10 requests are all
  // served within the first ~22 dispatches instead of after the noisy flow's 60.
  const firstQuietDone = h.order.lastIndexOf('quiet');
  assert.ok(firstQuietDone < 24, `quiet finished at dispatch ${firstQuietDone}: ${h.order.join(' ')}`);
  h.done();
  const window = h.order.slice(2, 22);
  const quietShare = window.filter((f) => f === 'quiet').length / window.length;
  assert.ok(quietShare >= 0.4 && quietShare <= 0.6, `quiet share ${quietShare}`);
});

test('fair queuing: slow requests cost their flow (service time feeds back into virtual time)', async () => {
  const h = harness(1);
  for (let i = 0; i < 20; i++) h.submit('slow', [0, 1]);
  for (let i = 0; i < 20; i++) h.submit('fast', [4, 5]);
  await Promise.resolve();
  for (let i = 0; i < 30; i++) {
    const next = h.executing[0];
    await h.step(next?.flow === 'slow' ? 30 : 3);
  }
  h.done();
  const first20 = h.order.slice(0, 20);
  const fast = first20.filter((f) => f === 'fast').length;
  assert.ok(fast >= 14, `fast got ${fast} of the first 20 dispatches: ${first20.join(' ')}`);
});

test('queueset: rejects only when seats are exhausted and the chosen queue is full; exempt and reject levels', async () => {
  const qs = new QueueSet({ name: 'q', queues: 2, handSize: 1, queueLengthLimit: 2 }, 1, Date.now);
  const a = qs.startRequest([0], 1, 'f', Date.now() + 10_000) as Admission;
  assert.equal(a.admitted, true);
  const w1 = qs.startRequest([0], 1, 'f', Date.now() + 10_000);
  const w2 = qs.startRequest([0], 1, 'f', Date.now() + 10_000);
  assert.ok(w1 instanceof Promise && w2 instanceof Promise);
  assert.deepEqual(qs.startRequest([0], 1, 'f', Date.now() + 10_000), {
    admitted: false,
    reason: 'queue-full',
    waitedMs: 0,
  });
  // Another flow's queue still has room.
  const other = qs.startRequest([1], 1, 'g', Date.now() + 10_000);
  assert.ok(other instanceof Promise);
  assert.equal(qs.requestsWaiting, 3);
  // Fair dispatch: queue 1 (flow g) has not been served yet, so it goes before w1.
  if (a.admitted) a.finish();
  const o = await other;
  assert.equal(o.admitted, true);
  if (o.admitted) o.finish();
  const got = await w1;
  assert.equal(got.admitted, true);
  // Timeout of a waiting request.
  const quick = qs.startRequest([1], 1, 'g', Date.now() + 20);
  const t = await quick;
  assert.equal(t.admitted, false);
  assert.equal(!t.admitted && t.reason, 'time-out');
  // Cancellation.
  const ac = new AbortController();
  const c = qs.startRequest([1], 1, 'g', Date.now() + 10_000, ac.signal);
  ac.abort();
  const cr = await c;
  assert.equal(!cr.admitted && cr.reason, 'cancelled');
  // Drain: finishing executes the rest in turn.
  if (got.admitted) got.finish();
  const r2 = await w2;
  if (r2.admitted) r2.finish();
  assert.equal(qs.requestsExecuting + qs.requestsWaiting, 0);
  assert.equal(qs.seatsInUse, 0);

  const reject = new QueueSet({ name: 'r', queues: 0, handSize: 0, queueLengthLimit: 0 }, 1, Date.now);
  const r1 = reject.startRequest([], 1, 'f', 0) as Admission;
  assert.equal(r1.admitted, true);
  assert.deepEqual(reject.startRequest([], 1, 'f', 0), { admitted: false, reason: 'concurrency-limit', waitedMs: 0 });
  const exempt = new QueueSet({ name: 'e', queues: -1, handSize: 0, queueLengthLimit: 0 }, 0, Date.now);
  for (let i = 0; i < 100; i++) assert.equal((exempt.startRequest([], 1, 'f', 0) as Admission).admitted, true);
  assert.equal(exempt.requestsExecuting, 100);
});

test('borrowing: fair allocation and the adaptive Retry-After', () => {
  assert.deepEqual(
    computeConcurrencyAllocation(10, [
      { lower: 1, upper: 10, target: 1 },
      { lower: 1, upper: 10, target: 3 },
    ]).map(Math.round),
    [3, 8],
  );
  assert.deepEqual(
    computeConcurrencyAllocation(2, [
      { lower: 2, upper: 10, target: 1 },
      { lower: 3, upper: 10, target: 3 },
    ]),
    [2, 3],
  );
  const t = new RetryAfterTracker();
  let now = 1_000_000_000;
  assert.equal(t.record(now), 1);
  for (let i = 0; i < 5; i++) t.record(now);
  assert.equal(t.record(now + 1000), 2); // ≥3 drops in the window: doubled
  for (let i = 0; i < 10; i++) t.record(now + 3000);
  assert.equal(t.retryAfter, 4);
  now += 20_000;
  assert.equal(t.record(now), 3); // quiet: back down one step per drop
});

test('borrowing: a busy level borrows idle seats after the 10s adjustment; idle levels lend down to their lower bound', async () => {
  let now = 5_000_000;
  const fc = new FlowControl({ now: () => now }).start({ serverConcurrencyLimit: 600, requestTimeout: 60_000 });
  const wl = fc.priorityLevels.get('workload-low')!;
  const wh = fc.priorityLevels.get('workload-high')!;
  assert.equal(wl.currentCL, 245 - 110);
  const c = fc.classify({ user: sa, requestInfo: pods });
  const stop = new AbortController();
  const executing: (() => void)[] = [];
  const waiting: Promise<unknown>[] = [];
  // Keep workload-low saturated: all seats busy and requests queued, for 10s of (fake) time.
  for (let i = 0; i < wl.currentCL + 100; i++) {
    const p = Promise.resolve(fc.admit(c, 1, now + 60_000, false, stop.signal)).then(
      (a) => a.admitted && executing.push(a.finish),
    );
    waiting.push(p);
  }
  await Promise.resolve();
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(wl.queueSet.requestsExecuting, 135);
  assert.equal(wl.queueSet.requestsWaiting, 100);
  now += 10_000;
  fc.maybeAdjustBorrowing();
  assert.ok(wl.currentCL > 135, `workload-low now has ${wl.currentCL} seats`);
  assert.ok(wl.currentCL <= wl.maxCL);
  // Idle workload-high lends: it keeps at least its lower bound (49) but less than its nominal 98;
  // the spare seats are shared in proportion to the targets (fair fraction 602/469).
  assert.ok(wh.currentCL >= wh.minCL && wh.currentCL < wh.nominalCL, `workload-high has ${wh.currentCL}`);
  assert.equal(wl.currentCL, Math.round((235 * 602) / 469));
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(
    wl.queueSet.requestsWaiting,
    Math.max(0, 235 - wl.currentCL),
    'the new seats dispatched waiting requests',
  );
  stop.abort();
  for (const f of executing) f();
  await Promise.all(waiting);
});

test('reconfigure (manifest reload): changed levels get new queues, unchanged ones keep theirs, UIDs stay', async () => {
  const { watchFlowControlManifests } = await import('./manifests.ts');
  const plYaml = (shares: number) => `apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: PriorityLevelConfiguration
metadata: {name: team}
spec: {type: Limited, limited: {nominalConcurrencyShares: ${shares}, limitResponse: {type: Reject}}}
---
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata: {name: team}
spec:
  matchingPrecedence: 50
  priorityLevelConfiguration: {name: team}
  rules:
  - subjects: [{kind: User, user: {name: alice}}]
    resourceRules: [{verbs: ["*"], apiGroups: ["*"], resources: ["*"], namespaces: ["*"]}]
`;
  const files = new Map<string, string>([['/fc/team.yaml', plYaml(10)]]);
  const watchers = new Map<string, () => void>();
  const fs = {
    readFile: async (p: string) => new TextEncoder().encode(files.get(p) ?? ''),
    readDir: async (p: string) => (p === '/fc' ? [...files.keys()].map((k) => k.slice(4)) : undefined),
    watch: (p: string, cb: () => void) => {
      watchers.set(p, cb);
      return () => watchers.delete(p);
    },
  };
  const m = parseFlowControlManifests(files.get('/fc/team.yaml')!, 'team.yaml');
  const fc = new FlowControl(m).start({ serverConcurrencyLimit: 600, requestTimeout: 60_000 });
  const before = fc.classify({ user: alice, requestInfo: pods });
  assert.equal(before.priorityLevel.name, 'team');
  const wlBefore = fc.priorityLevels.get('workload-low')!;
  const running = (await fc.admit(before, 1, Date.now() + 1000, false)) as Admission;
  assert.equal(running.admitted, true);
  const logs: string[] = [];
  const logger = {
    info: (msg: string) => logs.push(msg),
    error: (msg: string, kv?: Record<string, unknown>) => logs.push(`${msg}: ${String(kv?.reason ?? '')}`),
  };
  const stop = await watchFlowControlManifests(fs, ['/fc'], fc, logger, 5);
  assert.deepEqual([...watchers.keys()], ['/fc/team.yaml']);

  // A broken file keeps the configuration in force.
  files.set('/fc/team.yaml', 'a: [');
  watchers.get('/fc/team.yaml')!();
  await new Promise((r) => setTimeout(r, 30));
  assert.match(
    logs.join('\n'),
    /Rejected flow-control manifests, keeping the configuration in force: \/fc\/team\.yaml:\d+:/,
  );
  assert.equal(fc.classify({ user: alice, requestInfo: pods }).priorityLevel, before.priorityLevel);

  // A changed level: new queue set, same UIDs; other levels untouched; the running request finishes.
  files.set('/fc/team.yaml', plYaml(50));
  watchers.get('/fc/team.yaml')!();
  await new Promise((r) => setTimeout(r, 30));
  const after = fc.classify({ user: alice, requestInfo: pods });
  assert.notEqual(after.priorityLevel, before.priorityLevel);
  assert.equal(after.priorityLevel.uid, before.priorityLevel.uid);
  assert.equal(after.flowSchema.uid, before.flowSchema.uid);
  assert.ok(after.priorityLevel.nominalCL > before.priorityLevel.nominalCL);
  assert.equal(fc.priorityLevels.get('workload-low'), wlBefore);
  if (running.admitted) running.finish();
  assert.equal(before.priorityLevel.queueSet.requestsExecuting, 0);

  // Removing the objects: alice falls back to global-default.
  fc.reconfigure({});
  assert.equal(fc.classify({ user: alice, requestInfo: pods }).priorityLevel.name, 'global-default');
  assert.equal(fc.priorityLevels.has('team'), false);
  stop();
  assert.equal(watchers.size, 0);
});
