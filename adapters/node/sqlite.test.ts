// The revision log (src/storage/sqlite/) on node:sqlite: etcd's KV semantics on a real SQLite file —
// revisions, optimistic writes, lists at a revision, watch fan-out and catch-up, compaction,
// TTL expiry, reopening, the unique guard against a second writer, the row limit, bounded size.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { CompactedError, FutureRevisionError, type KV, type WatchResponse } from '../../src/storage/kv.ts';
import { RevisionLog, ValueTooLargeError } from '../../src/storage/sqlite/revision-log.ts';
import { nodeSQLiteDriver, openSQLiteKV } from './sqlite.ts';

const enc = new TextEncoder();
const dec = new TextDecoder();
const b = (s: string) => enc.encode(s);
const s = (u: Uint8Array | undefined) => (u ? dec.decode(u) : undefined);

function tempDir(t: { after: (fn: () => void) => void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'sqlite-kv-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Collects watch responses until `n` events (or a progress notification when n = 0) arrived. */
async function take(kv: KV, prefix: string, startRevision: number, n: number, progressNotify = false) {
  const ac = new AbortController();
  const got: WatchResponse[] = [];
  let events = 0;
  for await (const r of kv.watch(prefix, { startRevision, signal: ac.signal, progressNotify })) {
    got.push(r);
    events += r.events.length;
    if (events >= n && (n > 0 || r.events.length === 0)) break;
  }
  ac.abort();
  return got;
}

test('revisions: bootstrap ≥ 1, each write one revision, create/update/delete are optimistic', async (t) => {
  const kv = openSQLiteKV(':memory:', { compactMinRetain: 0 });
  t.after(() => kv.close());
  const r0 = await kv.currentRevision();
  assert.ok(r0 >= 1);
  const c = await kv.create('/registry/pods/ns/a', b('one'));
  assert.deepEqual(c, { succeeded: true, revision: r0 + 1 });
  const dup = await kv.create('/registry/pods/ns/a', b('two'));
  assert.equal(dup.succeeded, false);
  assert.equal(!dup.succeeded && s(dup.kv?.value), 'one');
  const stale = await kv.update('/registry/pods/ns/a', b('x'), r0);
  assert.equal(stale.succeeded, false);
  assert.equal(!stale.succeeded && stale.kv?.modRevision, r0 + 1);
  const u = await kv.update('/registry/pods/ns/a', b('two'), r0 + 1);
  assert.ok(u.succeeded);
  assert.equal(u.revision, r0 + 2);
  assert.equal(u.succeeded && s(u.prevKv?.value), 'one');
  // A read answers at once (no promise: a GET over SQLite is served synchronously).
  const g = kv.get('/registry/pods/ns/a');
  assert.ok(!(g instanceof Promise));
  assert.deepEqual(g.kv && { ...g.kv, value: s(g.kv.value) }, {
    key: '/registry/pods/ns/a',
    value: 'two',
    createRevision: r0 + 1,
    modRevision: r0 + 2,
  });
  assert.equal(g.revision, r0 + 2);
  const old = await kv.get('/registry/pods/ns/a', { revision: r0 + 1 });
  assert.equal(s(old.kv?.value), 'one');
  assert.equal((await kv.delete('/registry/pods/ns/a', r0 + 1)).succeeded, false);
  const d = await kv.delete('/registry/pods/ns/a', r0 + 2);
  assert.ok(d.succeeded);
  assert.equal(d.succeeded && s(d.prevKv?.value), 'two');
  assert.equal((await kv.get('/registry/pods/ns/a')).kv, undefined);
  assert.equal((await kv.update('/registry/pods/ns/a', b('y'), r0 + 3)).succeeded, false);
  // Re-created after a delete: a new createRevision.
  const again = await kv.create('/registry/pods/ns/a', b('three'));
  assert.ok(again.succeeded);
  assert.equal((await kv.get('/registry/pods/ns/a')).kv?.createRevision, again.revision);
  await assert.rejects(
    async () => kv.get('/registry/pods/ns/a', { revision: again.revision + 1 }),
    FutureRevisionError,
  );
});

test('list: prefix, byte order, limit + startKey with count, at an exact revision', async (t) => {
  const kv = openSQLiteKV(':memory:', { compactMinRetain: 0 });
  t.after(() => kv.close());
  for (const k of ['c', 'a', 'b', 'd']) await kv.create(`/registry/cm/ns/${k}`, b(k));
  await kv.create('/registry/cmx/ns/z', b('outside'));
  await kv.create('/registry/cm/ot/a', b('other ns'));
  const at = await kv.currentRevision();
  const all = await kv.list('/registry/cm/ns/');
  assert.deepEqual(
    all.kvs.map((x) => x.key),
    ['a', 'b', 'c', 'd'].map((k) => `/registry/cm/ns/${k}`),
  );
  assert.equal(all.count, 4);
  assert.equal(all.revision, at);
  const page = await kv.list('/registry/cm/', { limit: 2 });
  assert.deepEqual(
    page.kvs.map((x) => s(x.value)),
    ['a', 'b'],
  );
  assert.equal(page.count, 5);
  const next = await kv.list('/registry/cm/', { limit: 2, startKey: '/registry/cm/ns/b\x00' });
  assert.deepEqual(
    next.kvs.map((x) => s(x.value)),
    ['c', 'd'],
  );
  assert.equal(next.count, 3);
  // Writes after `at` do not show in a list at `at`.
  const a = (await kv.get('/registry/cm/ns/a')).kv!;
  await kv.update('/registry/cm/ns/a', b('a2'), a.modRevision);
  const dd = (await kv.get('/registry/cm/ns/d')).kv!;
  await kv.delete('/registry/cm/ns/d', dd.modRevision);
  await kv.create('/registry/cm/ns/e', b('e'));
  const then = await kv.list('/registry/cm/ns/', { revision: at });
  assert.deepEqual(
    then.kvs.map((x) => s(x.value)),
    ['a', 'b', 'c', 'd'],
  );
  assert.equal(then.revision, at);
  const now = await kv.list('/registry/cm/ns/');
  assert.deepEqual(
    now.kvs.map((x) => s(x.value)),
    ['a2', 'b', 'c', 'e'],
  );
  assert.deepEqual(await kv.count('/registry/cm/ns/'), { revision: await kv.currentRevision(), count: 4 });
  await assert.rejects(kv.list('/registry/cm/', { revision: at + 100 }), FutureRevisionError);
});

test('compaction: reads and watches at or below the compacted revision fail; later ones work', async (t) => {
  const kv = openSQLiteKV(':memory:', { compactMinRetain: 0, compactBatchSize: 3 });
  t.after(() => kv.close());
  await kv.create('/k/a', b('1'));
  let rev = await kv.currentRevision();
  for (let i = 2; i <= 10; i++) rev = ((await kv.update('/k/a', b(String(i)), rev)) as { revision: number }).revision;
  await kv.create('/k/gone', b('x'));
  const gone = await kv.currentRevision();
  await kv.delete('/k/gone', gone);
  const mid = rev - 3;
  await kv.compact(mid);
  assert.equal(kv.compactRevision(), mid);
  await assert.rejects(async () => kv.get('/k/a', { revision: mid }), CompactedError);
  await assert.rejects(
    kv.list('/k/', { revision: mid - 1 }),
    (e: unknown) => e instanceof CompactedError && e.compactRevision === mid,
  );
  assert.equal(s((await kv.get('/k/a', { revision: mid + 1 })).kv?.value), '8');
  await assert.rejects(take(kv, '/k/', mid, 1), CompactedError);
  const w = await take(kv, '/k/', mid + 1, 3);
  assert.deepEqual(w.flatMap((r) => r.events.map((e) => [e.type, s(e.kv.value), s(e.prevKv?.value)])).slice(0, 3), [
    ['PUT', '8', '7'],
    ['PUT', '9', '8'],
    ['PUT', '10', '9'],
  ]);
  // Everything: a tombstone at the top is removed, the revision does not go back.
  const top = await kv.currentRevision();
  await kv.compact(top);
  assert.equal(await kv.currentRevision(), top);
  assert.equal((await kv.create('/k/new', b('n'))).revision, top + 1);
  await kv.compact(top - 5); // below the compacted revision: a no-op
  assert.equal(kv.compactRevision(), top);
  await assert.rejects(kv.compact(top + 10), FutureRevisionError);
});

test('compaction keeps compactMinRetain revisions', async (t) => {
  const kv = openSQLiteKV(':memory:', { compactMinRetain: 5 });
  t.after(() => kv.close());
  let r = (await kv.create('/k', b('0'))).revision;
  for (let i = 1; i < 20; i++) r = ((await kv.update('/k', b(String(i)), r)) as { revision: number }).revision;
  await kv.compact(r);
  assert.equal(kv.compactRevision(), r - 5);
  assert.equal(s((await kv.get('/k', { revision: r - 4 })).kv?.value), '15');
});

test('watch: from a past revision, then live; prefix filter; DELETE carries prevKv; abort ends it', async (t) => {
  const kv = openSQLiteKV(':memory:', { compactMinRetain: 0 });
  t.after(() => kv.close());
  const c = await kv.create('/w/a', b('1'));
  await kv.create('/other/x', b('x'));
  const events: string[] = [];
  const ac = new AbortController();
  const done = (async () => {
    for await (const r of kv.watch('/w/', { startRevision: c.revision, signal: ac.signal })) {
      for (const e of r.events) {
        events.push(`${e.type} ${e.kv.key} ${s(e.kv.value)} prev=${s(e.prevKv?.value)} @${e.kv.modRevision}`);
        assert.equal(r.revision >= e.kv.modRevision, true);
      }
      if (events.length === 4) ac.abort();
    }
  })();
  await new Promise((r) => setTimeout(r, 20));
  const u = await kv.update('/w/a', b('2'), c.revision);
  await kv.create('/other/y', b('y'));
  const n = await kv.create('/w/b', b('3'));
  const d = await kv.delete('/w/a', u.revision);
  await done;
  assert.deepEqual(events, [
    `PUT /w/a 1 prev=undefined @${c.revision}`,
    `PUT /w/a 2 prev=1 @${u.revision}`,
    `PUT /w/b 3 prev=undefined @${n.revision}`,
    `DELETE /w/a  prev=2 @${d.revision}`,
  ]);
});

test('watch: a watcher from the past sees history then live writes in strict order, none missed', async (t) => {
  const kv = openSQLiteKV(':memory:', { compactMinRetain: 0, watchQueueLimit: 50 });
  t.after(() => kv.close());
  const start = (await kv.create('/o/k', b('0'))).revision;
  let rev = start;
  for (let i = 1; i < 1200; i++) rev = ((await kv.update('/o/k', b(String(i)), rev)) as { revision: number }).revision;
  const seen: number[] = [];
  const ac = new AbortController();
  const reader = (async () => {
    for await (const r of kv.watch('/o/', { startRevision: start, signal: ac.signal })) {
      for (const e of r.events) seen.push(e.kv.modRevision);
      if (seen.length >= 2400) ac.abort();
      // A slow consumer: the live queue overflows (limit 50) and it catches up from the table.
      if (seen.length % 300 === 0) await new Promise((res) => setTimeout(res, 5));
    }
  })();
  for (let i = 1200; i < 2400; i++) {
    rev = ((await kv.update('/o/k', b(String(i)), rev)) as { revision: number }).revision;
    if (i % 100 === 0) await new Promise((res) => setTimeout(res, 1));
  }
  await reader;
  assert.equal(seen.length, 2400);
  for (let i = 0; i < seen.length; i++) assert.equal(seen[i], start + i);
});

test('watch: progress notifications when idle carry the current revision', async (t) => {
  const kv = openSQLiteKV(':memory:', { progressIntervalMs: 30 });
  t.after(() => kv.close());
  await kv.create('/p/a', b('1'));
  await kv.create('/q/a', b('1'));
  // The progress timer is unref'd (an idle watch keeps no process alive): hold the test's loop open.
  const keepAlive = setInterval(() => {}, 1000);
  t.after(() => clearInterval(keepAlive));
  const got = await take(kv, '/p/', 1, 0, true);
  const last = got[got.length - 1]!;
  assert.deepEqual(last.events, []);
  assert.equal(last.revision, await kv.currentRevision());
  assert.equal(got.flatMap((r) => r.events).length, 1);
});

test('watch: closing the engine ends a watch by throwing, never silently', async () => {
  const kv = openSQLiteKV(':memory:');
  const ac = new AbortController();
  const it = kv.watch('/x/', { startRevision: 1, signal: ac.signal })[Symbol.asyncIterator]();
  const pending = it.next();
  await new Promise((r) => setTimeout(r, 10));
  await kv.close();
  await assert.rejects(pending, /closed/);
});

test('TTL: a key written with ttlSeconds is deleted (a DELETE event) when it runs out; a rewrite resets it', async (t) => {
  const kv = openSQLiteKV(':memory:', { ttlSweepMs: 50 });
  t.after(() => kv.close());
  const c = await kv.create('/registry/events/ns/e1', b('ev'), { ttlSeconds: 1 });
  await kv.create('/registry/events/ns/keep', b('k'));
  assert.equal((await kv.get('/registry/events/ns/e1')).kv?.ttlSeconds, 1);
  // The engine's TTL sweep timer is unref'd (it keeps no process alive): hold the test's loop open.
  const keepAlive = setInterval(() => {}, 1000);
  t.after(() => clearInterval(keepAlive));
  const w = take(kv, '/registry/events/', c.revision + 3, 1);
  await new Promise((r) => setTimeout(r, 400));
  const u = await kv.update('/registry/events/ns/e1', b('ev2'), c.revision, { ttlSeconds: 1 });
  const got = await w;
  const ev = got.flatMap((r) => r.events)[0]!;
  assert.equal(ev.type, 'DELETE');
  assert.equal(ev.kv.key, '/registry/events/ns/e1');
  assert.equal(s(ev.prevKv?.value), 'ev2');
  assert.equal(ev.prevKv?.modRevision, u.revision);
  assert.equal((await kv.get('/registry/events/ns/e1')).kv, undefined);
  assert.ok((await kv.get('/registry/events/ns/keep')).kv);
  await assert.rejects(kv.create('/registry/events/ns/bad', b('x'), { ttlSeconds: -1 }), RangeError);
});

test('reopen: data, revision, compaction and TTLs survive; a second writer on the file hits the unique guard', async (t) => {
  const dir = tempDir(t);
  const path = join(dir, 'sub', 'registry.db');
  const kv = openSQLiteKV(path, { compactMinRetain: 0 });
  const c = await kv.create('/r/a', b('1'));
  const u = await kv.update('/r/a', b('2'), c.revision);
  await kv.create('/r/t', b('t'), { ttlSeconds: 3600 });
  await kv.compact(c.revision);
  const rev = await kv.currentRevision();
  // A second engine on the same file (unsupported, but it must not corrupt the log) appends after
  // revision u between this engine's read of the key and its insert: the UNIQUE (name,
  // prev_revision) guard refuses the insert and the caller gets the other writer's value.
  const other = new RevisionLog(nodeSQLiteDriver(new DatabaseSync(path), path), { compactMinRetain: 0 });
  const driver = nodeSQLiteDriver(new DatabaseSync(path), path);
  let race = true;
  const racing = new RevisionLog(
    {
      ...driver,
      run(sql, params) {
        if (race && sql.startsWith('INSERT INTO kv_log')) {
          race = false;
          void other.update('/r/a', b('other'), u.revision); // runs synchronously up to its result
        }
        driver.run(sql, params);
      },
    },
    { compactMinRetain: 0 },
  );
  const lost = await racing.update('/r/a', b('mine'), u.revision);
  assert.equal(race, false);
  assert.equal(lost.succeeded, false);
  assert.equal(!lost.succeeded && s(lost.kv?.value), 'other');
  await racing.close();
  await other.close();
  await kv.close();
  assert.ok(statSync(path).size > 0);
  const again = openSQLiteKV(path, { compactMinRetain: 0 });
  t.after(() => again.close());
  assert.equal(await again.currentRevision(), rev + 1);
  assert.equal(again.compactRevision(), c.revision);
  assert.equal(s((await again.get('/r/a')).kv?.value), 'other');
  assert.equal((await again.get('/r/t')).kv?.ttlSeconds, 3600);
  assert.equal((await again.create('/r/b', b('b'))).revision, rev + 2);
});

test('row limit: a value over maxRowBytes is refused with a clear error and nothing is written', async (t) => {
  const kv = openSQLiteKV(':memory:', { maxRowBytes: 2_000_000 });
  t.after(() => kv.close());
  const before = await kv.currentRevision();
  await assert.rejects(kv.create('/big', new Uint8Array(2_000_001)), (e: unknown) => {
    assert.ok(e instanceof ValueTooLargeError);
    assert.match(e.message, /2000001 bytes .* limit of 2000000 bytes/);
    return true;
  });
  assert.equal(await kv.currentRevision(), before);
  const near = new Uint8Array(1_999_000).fill(7);
  const c = await kv.create('/big', near);
  assert.ok(c.succeeded);
  const got = (await kv.get('/big')).kv!.value;
  assert.equal(got.byteLength, near.byteLength);
  assert.equal(got[1_998_999], 7);
  await assert.rejects(kv.create('/bad', 'text' as unknown as Uint8Array), TypeError);
});

test('bounded size: 20,000 updates of one key with compaction keep the table and the file small', async (t) => {
  const dir = tempDir(t);
  const path = join(dir, 'loop.db');
  const kv = openSQLiteKV(path, { compactMinRetain: 1000 });
  t.after(() => kv.close());
  const value = new Uint8Array(1024).fill(1);
  let rev = (await kv.create('/loop', value)).revision;
  const sizes: number[] = [];
  for (let i = 1; i <= 20_000; i++) {
    rev = ((await kv.update('/loop', value, rev)) as { revision: number }).revision;
    if (i % 2000 === 0) {
      await kv.compact(rev);
      sizes.push(kv.databaseSize()!);
    }
  }
  const probe = new DatabaseSync(path);
  const rows = (probe.prepare('SELECT COUNT(*) AS n FROM kv_log').get() as { n: number }).n;
  probe.close();
  assert.ok(rows <= 1001, `rows after compaction: ${rows}`);
  // The file stops growing once freed pages are reused: the last size is no larger than the second.
  assert.ok(sizes[sizes.length - 1]! <= sizes[1]! * 1.1, `sizes: ${sizes.join(' ')}`);
  assert.ok(sizes[sizes.length - 1]! < 8 * 1024 * 1024, `size ${sizes[sizes.length - 1]}`);
});

test('WAL checkpoint: the periodic checkpoint truncates the WAL file', async (t) => {
  const dir = tempDir(t);
  const path = join(dir, 'wal.db');
  const kv = openSQLiteKV(path, { checkpointIntervalMs: 50 });
  t.after(() => kv.close());
  let rev = (await kv.create('/w', new Uint8Array(4096))).revision;
  for (let i = 0; i < 50; i++)
    rev = ((await kv.update('/w', new Uint8Array(4096), rev)) as { revision: number }).revision;
  assert.ok(statSync(path + '-wal').size > 100_000, 'the WAL grew');
  const keepAlive = setInterval(() => {}, 1000);
  await new Promise((r) => setTimeout(r, 200));
  clearInterval(keepAlive);
  assert.equal(statSync(path + '-wal').size, 0);
});
