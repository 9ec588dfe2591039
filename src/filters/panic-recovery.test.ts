import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ErrAbortHandler, withPanicRecovery } from './panic-recovery.ts';
import { recorder, serve, testContext } from './testing.ts';
import type { Logger } from '../util/logger.ts';

function memLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    enabled: () => false,
    info: () => {},
    warning: () => {},
    error: (m, kv) => lines.push(`${m} ${JSON.stringify(kv)}`),
  };
}

const body = 'This request caused apiserver to panic. Look in the logs for details.\n';

for (const [name, thrown] of [
  ['an Error', new Error('boom')],
  ['a string', 'boom'],
  ['undefined', undefined],
  ['an object', { weird: true }],
] as const) {
  test(`WithPanicRecovery: a thrown ${name} (sync and async) becomes the 500 text`, async () => {
    for (const asyncThrow of [false, true]) {
      const logger = memLogger();
      const h = withPanicRecovery(
        asyncThrow
          ? async () => {
              throw thrown;
            }
          : () => {
              throw thrown;
            },
        { logger },
      );
      const res = await serve(h, testContext('/api/v1/pods'));
      assert.equal(res.status, 500);
      assert.equal(res.headers.get('content-type'), 'text/plain; charset=utf-8');
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
      assert.equal(await res.text(), body);
      assert.match(logger.lines[0]!, /^apiserver panic'd /);
    }
  });
}

test('WithPanicRecovery: headers already on the shared map (HSTS, Cache-Control, Audit-Id) are kept', async () => {
  const ctx = testContext('/x');
  const h = withPanicRecovery(
    (c) => {
      c.responseHeaders.set('Cache-Control', 'no-cache, private');
      throw new Error('deep');
    },
    { logger: memLogger() },
  );
  const res = await serve(h, ctx);
  assert.equal(res.headers.get('cache-control'), 'no-cache, private');
});

test('WithPanicRecovery: an abort is not a panic (rethrown, no 500, no panic log)', async () => {
  const logger = memLogger();
  const h = withPanicRecovery(
    async () => {
      throw ErrAbortHandler;
    },
    { logger },
  );
  await assert.rejects(
    async () => h(testContext('/')),
    (e) => e === ErrAbortHandler,
  );
  assert.equal(logger.lines.length, 1);
  assert.match(logger.lines[0]!, /^Timeout or abort while handling/);

  const ac = new AbortController();
  const logger2 = memLogger();
  const ctx = testContext('/', { signal: ac.signal });
  ac.abort();
  const h2 = withPanicRecovery(
    async (c) => {
      throw c.signal.reason;
    },
    { logger: logger2 },
  );
  await assert.rejects(async () => h2(ctx));
  assert.equal(logger2.lines.length, 0);
});

test('WithPanicRecovery: passes responses through and keeps serving after a panic', async () => {
  let n = 0;
  const h = withPanicRecovery(
    recorder(() => {
      if (n++ === 0) throw new Error('once');
      return new Response('ok');
    }),
    { logger: memLogger() },
  );
  assert.equal((await serve(h, testContext('/'))).status, 500);
  const res = await serve(h, testContext('/'));
  assert.equal(res.status, 200);
  assert.equal(await res.text(), 'ok');
});
