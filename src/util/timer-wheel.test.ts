import { test } from 'node:test';
import assert from 'node:assert/strict';
import { scheduleDeadline } from './timer-wheel.ts';

function expiring(): { fired: Promise<number>; expire(): void; count: number } {
  let resolve!: (t: number) => void;
  const e = {
    fired: new Promise<number>((r) => (resolve = r)),
    count: 0,
    expire() {
      e.count++;
      resolve(Date.now());
    },
  };
  return e;
}

test('timer wheel: a short deadline (precise timer) and long ones (wheel slots) never fire early', async () => {
  const start = Date.now();
  const short = expiring();
  const long1 = expiring();
  const long2 = expiring();
  scheduleDeadline(start + 30, short);
  scheduleDeadline(start + 1100, long1);
  scheduleDeadline(start + 1150, long2); // the same 100 ms slot
  assert.ok((await short.fired) >= start + 30);
  assert.equal(long1.count, 0);
  const [t1, t2] = await Promise.all([long1.fired, long2.fired]);
  assert.ok(t1 >= start + 1100, `fired ${t1 - start} ms after start`);
  assert.ok(t2 >= start + 1150, `fired ${t2 - start} ms after start`);
  assert.equal(long1.count, 1);
  assert.equal(long2.count, 1);
});

test('timer wheel: a cancelled deadline never fires; the others in its slot still do', async () => {
  const start = Date.now();
  const cancelled = expiring();
  const kept = expiring();
  const cancelShort = expiring();
  const cancel = scheduleDeadline(start + 1100, cancelled);
  scheduleDeadline(start + 1120, kept);
  scheduleDeadline(start + 20, cancelShort)();
  cancel();
  await kept.fired;
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(cancelled.count, 0);
  assert.equal(cancelShort.count, 0);
  assert.equal(kept.count, 1);
});

test('timer wheel: a deadline already past fires at once', async () => {
  const e = expiring();
  scheduleDeadline(Date.now() - 5, e);
  await e.fired;
  assert.equal(e.count, 1);
});
