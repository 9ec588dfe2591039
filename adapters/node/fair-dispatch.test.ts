import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FairDispatcher, quantum, type PendingRequest } from './fair-dispatch.ts';

const turn = () => new Promise<void>((r) => setImmediate(r));

/** Requests that record their start order; `cost` advances the fake clock per start (ms). */
function harness(turnTarget = 2, cost = 0) {
  let clock = 0;
  const errors: unknown[] = [];
  const d = new FairDispatcher(
    turnTarget,
    () => clock,
    (err) => errors.push(err),
  );
  const started: string[] = [];
  const request = (connection: object, name: string, alive = () => true): PendingRequest => ({
    connection,
    alive,
    start: () => {
      clock += cost;
      started.push(name);
    },
  });
  return { d, started, request, errors };
}

async function settle(d: FairDispatcher): Promise<void> {
  for (let i = 0; i < 1000 && d.waiting; i++) await turn();
  assert.equal(d.waiting, 0);
}

test('without contention a request starts at once, inside dispatch', () => {
  const { d, started, request } = harness();
  d.dispatch(request({}, 'a'));
  assert.deepEqual(started, ['a']);
  assert.equal(d.waiting, 0);
});

test('beyond the turn budget requests wait; a new waiter goes first, backlogs round robin, each in arrival order', async () => {
  const { d, started, request } = harness();
  const flood = {};
  const other = {};
  for (let i = 0; i < 100; i++) d.dispatch(request(flood, `f${i}`));
  d.dispatch(request(other, 'o0'));
  d.dispatch(request(other, 'o1'));
  // The first turn's budget went to the flood; the other connection's requests wait, not 60 more of the flood's.
  const budget = d.budget;
  assert.equal(started.length, budget);
  assert.equal(d.waiting, 102 - budget);
  await settle(d);
  assert.equal(started.length, 102);
  // Both connections just started waiting: one request each (f32, o0); then the backlogs round
  // robin, `quantum` each: f33…, then o1.
  assert.deepEqual(started.slice(budget, budget + 2), [`f${budget}`, 'o0']);
  assert.equal(started.indexOf('o1'), budget + 2 + quantum);
  assert.deepEqual(
    started.filter((n) => n.startsWith('f')),
    Array.from({ length: 100 }, (_, i) => `f${i}`),
  );
});

test('while requests wait, a new connection queues too (no overtaking), then starts first in the next turn', async () => {
  const { d, started, request } = harness();
  const a = {};
  for (let i = 0; i < 200; i++) d.dispatch(request(a, `a${i}`));
  await turn(); // the first turn's budget went to the fast path
  await turn(); // a's queue started once: now a backlog
  const b = {};
  d.dispatch(request(b, 'b0'));
  assert.ok(!started.includes('b0'));
  const before = started.length;
  await turn();
  assert.equal(started[before], 'b0', 'b0 is the first to start in the next turn');
  await settle(d);
});

test('a request whose client went away is dropped, not started', async () => {
  const { d, started, request } = harness();
  const c = {};
  for (let i = 0; i < 40; i++) d.dispatch(request(c, `c${i}`, () => i !== 35));
  await settle(d);
  assert.equal(started.length, 39);
  assert.ok(!started.includes('c35'));
});

test('the budget follows the measured cost of a start: expensive requests, fewer per turn', async () => {
  for (const [cost, expected] of [
    [0.5, 8], // 3 ms / 0.5 ms = 6, raised to the minimum of 8
    [0.1, 30],
    [0.01, 256], // capped
  ] as const) {
    const { d, request } = harness(3, cost);
    const conns = Array.from({ length: 10 }, () => ({}));
    for (let i = 0; i < 3000; i++) d.dispatch(request(conns[i % 10]!, `r${i}`));
    await settle(d);
    assert.equal(d.budget, expected, `cost ${cost} ms`);
  }
});

test('a waiting request whose start throws does not stop the others; the error is reported', async () => {
  const { d, started, request, errors } = harness();
  const c = {};
  for (let i = 0; i < 40; i++) d.dispatch(request(c, `c${i}`));
  d.dispatch({
    connection: c,
    alive: () => true,
    start: () => {
      throw new Error('boom');
    },
  });
  d.dispatch(request(c, 'after'));
  await settle(d);
  assert.equal(started.length, 41);
  assert.equal(started.at(-1), 'after');
  assert.deepEqual(
    errors.map((e) => (e as Error).message),
    ['boom'],
  );
});
