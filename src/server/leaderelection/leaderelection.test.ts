import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LeaderElector, microTime, type LeaderElectionRecord, type ResourceLock } from './leaderelection.ts';

/** An in-memory lock with optimistic concurrency; `down` makes every call fail (storage gone). */
function memoryLock() {
  let stored: { record: LeaderElectionRecord; version: number } | undefined;
  const lock = {
    down: false,
    writes: 0,
    get record() {
      return stored?.record;
    },
    describe: () => 'kube-system/test',
    async get() {
      if (lock.down) throw new Error('storage down');
      return stored && { record: { ...stored.record }, version: String(stored.version) };
    },
    async create(record: LeaderElectionRecord) {
      if (lock.down) throw new Error('storage down');
      if (stored) return false;
      stored = { record: { ...record }, version: 1 };
      lock.writes++;
      return true;
    },
    async update(record: LeaderElectionRecord, version: string) {
      if (lock.down) throw new Error('storage down');
      if (!stored || String(stored.version) !== version) return false;
      stored = { record: { ...record }, version: stored.version + 1 };
      lock.writes++;
      return true;
    },
  } satisfies ResourceLock & Record<string, unknown>;
  return lock;
}

const timing = { leaseDurationMs: 1000, renewDeadlineMs: 600, retryPeriodMs: 100 };
const until = async (f: () => boolean, ms = 5000) => {
  const end = Date.now() + ms;
  while (!f()) {
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 10));
  }
};

test('microTime: RFC 3339 with microseconds, as metav1.MicroTime', () => {
  assert.equal(microTime(Date.UTC(2026, 0, 2, 3, 4, 5, 678)), '2026-01-02T03:04:05.678000Z');
});

test('LeaderElector: config validation as client-go NewLeaderElector', () => {
  const lock = memoryLock();
  const base = { lock, identity: 'a', onStartedLeading() {} };
  assert.throws(
    () => new LeaderElector({ ...base, leaseDurationMs: 10, renewDeadlineMs: 10, retryPeriodMs: 1 }),
    /leaseDuration must be greater than renewDeadline/,
  );
  assert.throws(
    () => new LeaderElector({ ...base, leaseDurationMs: 20, renewDeadlineMs: 10, retryPeriodMs: 9 }),
    /renewDeadline must be greater than retryPeriod\*JitterFactor/,
  );
  assert.throws(() => new LeaderElector({ ...base, identity: '', ...timing }), /Lock identity is empty/);
});

test('LeaderElector: one leader at a time; the record says who; a stopped leader releases, the other takes over at once', async () => {
  const lock = memoryLock();
  const leading = new Set<string>();
  const stops = new Map<string, AbortController>();
  const runs: Promise<void>[] = [];
  for (const id of ['a', 'b', 'c']) {
    const stop = new AbortController();
    stops.set(id, stop);
    const e = new LeaderElector({
      lock,
      identity: id,
      ...timing,
      releaseOnCancel: true,
      onStartedLeading(signal) {
        leading.add(id);
        signal.addEventListener('abort', () => leading.delete(id));
      },
    });
    runs.push(e.run(stop.signal));
  }
  await until(() => leading.size === 1);
  const first = [...leading][0]!;
  assert.equal(lock.record!.holderIdentity, first);
  assert.equal(lock.record!.leaseDurationSeconds, 1);
  assert.equal(lock.record!.leaseTransitions, 0);
  // Renewals keep the same holder, acquireTime and transitions.
  const acquired = lock.record!.acquireTime;
  const w = lock.writes;
  await until(() => lock.writes >= w + 3);
  assert.equal(lock.record!.holderIdentity, first);
  assert.equal(lock.record!.acquireTime, acquired);
  assert.equal(leading.size, 1);
  const t0 = Date.now();
  stops.get(first)!.abort();
  await until(() => leading.size === 1 && !leading.has(first));
  // Released: no wait for the lease to run out.
  assert.ok(Date.now() - t0 < timing.leaseDurationMs, `took over after ${Date.now() - t0} ms`);
  assert.equal(lock.record!.leaseTransitions, 1);
  for (const s of stops.values()) s.abort();
  await Promise.all(runs);
});

test('LeaderElector: a leader that cannot renew steps down within renewDeadline; a silent holder is replaced after leaseDuration', async () => {
  const lock = memoryLock();
  let leading = 0;
  let lost = 0;
  const stop = new AbortController();
  const e = new LeaderElector({
    lock,
    identity: 'a',
    ...timing,
    onStartedLeading(signal) {
      leading++;
      signal.addEventListener('abort', () => lost++);
    },
  });
  const run = e.run(stop.signal);
  await until(() => leading === 1);
  lock.down = true;
  const t0 = Date.now();
  await until(() => lost === 1);
  assert.ok(Date.now() - t0 <= timing.renewDeadlineMs + timing.retryPeriodMs + 200, `${Date.now() - t0} ms`);
  assert.equal(e.isLeader(), false);
  // Storage is back and the record is still ours: leadership again.
  lock.down = false;
  await until(() => leading === 2);
  stop.abort();
  await run;

  // `a` stopped without releasing (a crash): `b` waits a lease duration from when it saw the last change.
  let bLeads = 0;
  const stopB = new AbortController();
  const t1 = Date.now();
  const b = new LeaderElector({ lock, identity: 'b', ...timing, onStartedLeading: () => bLeads++ });
  const runB = b.run(stopB.signal);
  await until(() => bLeads === 1);
  const waited = Date.now() - t1;
  assert.ok(waited >= timing.leaseDurationMs - 50, `took over after ${waited} ms, before the lease ran out`);
  assert.equal(lock.record!.holderIdentity, 'b');
  assert.equal(lock.record!.leaseTransitions, 1);
  stopB.abort();
  await runB;
});
