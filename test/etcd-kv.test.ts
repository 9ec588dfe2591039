// The etcd engine (src/storage/etcd3) against a real etcd through its JSON gateway: optimistic
// writes, ranges at revisions, watch with prev_kv, compaction (compact_rev_key as upstream's
// compactor), leases, error mapping, unreachable and stopped etcd, endpoint failover.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { CompactedError, FutureRevisionError, type WatchResponse } from '../src/storage/kv.ts';
import { EtcdKV } from '../src/storage/etcd3/kv.ts';
import { EtcdUnavailableError, b64 } from '../src/storage/etcd3/client.ts';
import { compact, compactRevKey, EtcdCompactor } from '../src/storage/etcd3/compactor.ts';
import { etcdSkip, freePort, startEtcd, type EtcdServer } from './etcd-harness.ts';

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);

/** Collects watch responses until `until` says stop (or the timeout). */
async function collect(
  it: AsyncIterable<WatchResponse>,
  until: (all: WatchResponse[]) => boolean,
  ms = 5000,
): Promise<WatchResponse[]> {
  const all: WatchResponse[] = [];
  const timer = setTimeout(() => {}, ms);
  try {
    for await (const r of it) {
      all.push(r);
      if (until(all)) break;
    }
  } finally {
    clearTimeout(timer);
  }
  return all;
}

describe('etcd engine over the JSON gateway', { skip: etcdSkip() }, () => {
  let etcd: EtcdServer;
  let kv: EtcdKV;
  let n = 0;
  /** A fresh key prefix per case. */
  const prefix = () => `/registry/t${++n}/`;

  before(async () => {
    etcd = await startEtcd({ args: ['--experimental-watch-progress-notify-interval=300ms'] });
    kv = new EtcdKV({ endpoints: [etcd.clientURL] });
  });
  after(async () => {
    await kv?.close();
    await etcd?.stop();
  });

  test('create is a txn on mod_revision == 0: a second create fails with the current value', async () => {
    const p = prefix();
    const c = await kv.create(p + 'a', enc('{"v":1}'));
    assert.equal(c.succeeded, true);
    assert.ok(c.revision >= 2);
    const again = await kv.create(p + 'a', enc('{"v":2}'));
    assert.equal(again.succeeded, false);
    assert.ok(!again.succeeded && again.kv);
    assert.equal(dec(again.kv!.value), '{"v":1}');
    assert.equal(again.kv!.modRevision, c.revision);
    assert.equal(again.kv!.createRevision, c.revision);
    assert.equal(again.revision, c.revision);
  });

  test('update/delete on mod_revision: stale revisions fail with the current value, the right one wins', async () => {
    const p = prefix();
    const c = await kv.create(p + 'a', enc('1'));
    const u = await kv.update(p + 'a', enc('2'), c.revision);
    assert.equal(u.succeeded, true);
    assert.ok(u.revision > c.revision);
    const stale = await kv.update(p + 'a', enc('3'), c.revision);
    assert.equal(stale.succeeded, false);
    assert.equal(dec(stale.kv!.value), '2');
    assert.equal(stale.kv!.modRevision, u.revision);
    const staleDel = await kv.delete(p + 'a', c.revision);
    assert.equal(staleDel.succeeded, false);
    assert.equal(staleDel.kv!.modRevision, u.revision);
    const del = await kv.delete(p + 'a', u.revision);
    assert.equal(del.succeeded, true);
    assert.equal(dec(del.prevKv!.value), '2');
    const gone = await kv.get(p + 'a');
    assert.equal(gone.kv, undefined);
    assert.equal(gone.revision, del.revision);
    // Updating or deleting a missing key fails with no value.
    const missing = await kv.update(p + 'a', enc('x'), u.revision);
    assert.equal(missing.succeeded, false);
    assert.equal(missing.kv, undefined);
    assert.equal((await kv.delete(p + 'nope', 5)).succeeded, false);
  });

  test('get and list at a revision; list with limit and start key; count', async () => {
    const p = prefix();
    const revs: number[] = [];
    for (const name of ['a', 'b', 'c', 'd']) revs.push((await kv.create(p + name, enc(name))).revision);
    await kv.create(p.slice(0, -1) + 'x/other', enc('outside'));
    const u = await kv.update(p + 'b', enc('b2'), revs[1]!);
    const full = await kv.list(p);
    assert.deepEqual(
      full.kvs.map((k) => k.key),
      ['a', 'b', 'c', 'd'].map((s) => p + s),
    );
    assert.equal(full.count, 4);
    assert.equal(dec(full.kvs[1]!.value), 'b2');
    const page = await kv.list(p, { limit: 2 });
    assert.deepEqual(
      page.kvs.map((k) => k.key),
      [p + 'a', p + 'b'],
    );
    assert.equal(page.count, 4);
    const rest = await kv.list(p, { startKey: p + 'b\x00', limit: 2, revision: page.revision });
    assert.deepEqual(
      rest.kvs.map((k) => k.key),
      [p + 'c', p + 'd'],
    );
    assert.equal(rest.count, 2, 'count is over [startKey, prefix end)');
    assert.equal(rest.revision, page.revision);
    const old = await kv.list(p, { revision: revs[2]! });
    assert.deepEqual(
      old.kvs.map((k) => dec(k.value)),
      ['a', 'b', 'c'],
    );
    assert.equal(old.revision, revs[2]);
    assert.equal(dec((await kv.get(p + 'b', { revision: revs[1]! })).kv!.value), 'b');
    assert.equal(dec((await kv.get(p + 'b')).kv!.value), 'b2');
    assert.deepEqual(await kv.count(p), { revision: u.revision, count: 4 });
    assert.equal(await kv.currentRevision(), u.revision);
    const empty = await kv.list(prefix());
    assert.deepEqual(empty.kvs, []);
    assert.equal(empty.count, 0);
  });

  test('a revision newer than etcd → FutureRevisionError with the current revision', async () => {
    const current = await kv.currentRevision();
    await assert.rejects(kv.get('/registry/x', { revision: current + 100 }), (err: unknown) => {
      assert.ok(err instanceof FutureRevisionError);
      assert.equal(err.currentRevision, current);
      return true;
    });
    await assert.rejects(kv.list('/registry/', { revision: current + 100 }), FutureRevisionError);
  });

  test('watch: PUT and DELETE events with prev_kv from a start revision, in order; abort ends it', async () => {
    const p = prefix();
    const c = await kv.create(p + 'a', enc('1'));
    const u = await kv.update(p + 'a', enc('2'), c.revision);
    const ctl = new AbortController();
    const seen = collect(
      kv.watch(p, { startRevision: u.revision, signal: ctl.signal }),
      (all) => all.flatMap((r) => r.events).length >= 3,
    );
    const d = await kv.delete(p + 'a', u.revision);
    await kv.create(p + 'b', enc('3'));
    await kv.create('/registry/elsewhere-' + n, enc('no'));
    const events = (await seen).flatMap((r) => r.events);
    ctl.abort();
    assert.deepEqual(
      events.map((e) => [e.type, e.kv.key, e.kv.modRevision, e.prevKv ? dec(e.prevKv.value) : null]),
      [
        ['PUT', p + 'a', u.revision, '1'],
        ['DELETE', p + 'a', d.revision, '2'],
        ['PUT', p + 'b', d.revision + 1, null],
      ],
    );
    assert.equal(dec(events[0]!.kv.value), '2');
    assert.equal(events[2]!.kv.createRevision, d.revision + 1);
  });

  test('watch: an aborted signal ends the iteration without an error', async () => {
    const ctl = new AbortController();
    const it = kv.watch(prefix(), { startRevision: 1, signal: ctl.signal });
    setTimeout(() => ctl.abort(), 200);
    const got = await collect(it, () => false);
    assert.ok(got.every((r) => r.events.length === 0 || r.events.every((e) => e.kv.key.startsWith('/registry/t'))));
  });

  test('watch: progress notifications are empty responses at the current revision', async () => {
    const p = prefix();
    await kv.create(p + 'a', enc('1'));
    const current = await kv.currentRevision();
    const ctl = new AbortController();
    const got = await collect(
      kv.watch(p, { startRevision: current + 1, progressNotify: true, signal: ctl.signal }),
      (all) => all.length >= 1,
    );
    ctl.abort();
    assert.deepEqual(got[0]!.events, []);
    assert.ok(got[0]!.revision >= current);
  });

  test('TTL: a create with ttlSeconds attaches a lease; leases are reused', async () => {
    const p = prefix();
    await kv.create(p + 'a', enc('1'), { ttlSeconds: 3600 });
    await kv.create(p + 'b', enc('2'), { ttlSeconds: 3600 });
    const raw = await kv.client.call<{ kvs: { lease?: string }[] }>('/v3/kv/range', {
      key: b64(p),
      range_end: b64(p.slice(0, -1) + '0'),
    });
    assert.ok(raw.kvs[0]!.lease, 'lease attached');
    assert.equal(raw.kvs[0]!.lease, raw.kvs[1]!.lease, 'one lease for both');
    const ttl = await kv.client.call<{ TTL: string }>('/v3/lease/timetolive', { ID: raw.kvs[0]!.lease });
    assert.ok(Number(ttl.TTL) > 3600 && Number(ttl.TTL) <= 3660, ttl.TTL);
  });

  // Compaction changes what every later case can read: these run last.
  test('compaction: reads and watches below the compacted revision → CompactedError; the compacted revision stays readable', async () => {
    const p = prefix();
    const c = await kv.create(p + 'a', enc('1'));
    const u = await kv.update(p + 'a', enc('2'), c.revision);
    await kv.compact(u.revision);
    assert.equal(kv.compactRevision(), u.revision);
    assert.equal(dec((await kv.get(p + 'a', { revision: u.revision })).kv!.value), '2');
    const current = await kv.currentRevision();
    await assert.rejects(kv.get(p + 'a', { revision: c.revision }), (err: unknown) => {
      assert.ok(err instanceof CompactedError);
      assert.equal(err.compactRevision, u.revision);
      assert.equal(err.currentRevision, current);
      return true;
    });
    await assert.rejects(kv.list(p, { revision: c.revision, limit: 1 }), CompactedError);
    await assert.rejects(
      async () => {
        for await (const _ of kv.watch(p, { startRevision: c.revision, signal: new AbortController().signal }))
          assert.fail('no events');
      },
      (err: unknown) => err instanceof CompactedError && err.compactRevision === u.revision,
    );
    // Compacting again at or below is a no-op.
    await kv.compact(c.revision);
    assert.equal(kv.compactRevision(), u.revision);
  });

  test('compactor: compact_rev_key CAS — bootstrap round, compaction at the previous round revision, a second compactor loses', async () => {
    const first = await compact(kv, 0, 0);
    assert.deepEqual([first.version, first.compactRevision], [1, 0], 'bootstrap does not compact');
    const p = prefix();
    await kv.create(p + 'a', enc('1'));
    const second = await compact(kv, first.version, first.revision);
    assert.deepEqual([second.version, second.compactRevision], [2, first.revision]);
    // Another apiserver's compactor with a stale view: its CAS fails and it adopts the version.
    const other = new EtcdKV({ endpoints: [etcd.clientURL] });
    const lost = await compact(other, 0, 0);
    assert.equal(lost.version, 2);
    assert.equal(lost.compactRevision, first.revision);
    assert.equal(other.compactRevision(), first.revision);
    const key = await kv.get(compactRevKey);
    assert.equal(dec(key.kv!.value), String(first.revision));
    // The running compactor follows compact_rev_key.
    const follower = new EtcdKV({ endpoints: [etcd.clientURL] });
    const loop = new EtcdCompactor(follower, { intervalMs: 0 }).start();
    const next = await compact(kv, second.version, second.revision);
    for (let i = 0; i < 50 && follower.compactRevision() !== next.compactRevision; i++)
      await new Promise((r) => setTimeout(r, 50));
    assert.equal(follower.compactRevision(), second.revision);
    await loop.stop();
    await other.close();
    await follower.close();
  });

  test('endpoints: a refused first endpoint fails over to the next', async () => {
    const dead = `http://127.0.0.1:${await freePort()}`;
    const two = new EtcdKV({ endpoints: [dead, etcd.clientURL] });
    assert.ok((await two.currentRevision()) > 1);
    await two.close();
  });

  test('a closed client rejects', async () => {
    const k = new EtcdKV({ endpoints: [etcd.clientURL] });
    await k.close();
    await assert.rejects(k.get('/x'), /etcd client is closed/);
  });
});

describe('etcd engine: etcd unreachable or stopped', { skip: etcdSkip() }, () => {
  test('connection refused → EtcdUnavailableError at once (reads, writes, readiness)', async () => {
    const kv = new EtcdKV({ endpoints: [`http://127.0.0.1:${await freePort()}`] });
    await assert.rejects(
      kv.get('/registry/a'),
      (err: unknown) => err instanceof EtcdUnavailableError && /ECONNREFUSED/.test(err.message),
    );
    await assert.rejects(kv.create('/registry/a', enc('x')), EtcdUnavailableError);
    await assert.rejects(kv.readinessCheck(), EtcdUnavailableError);
    await assert.rejects(async () => {
      for await (const _ of kv.watch('/registry/', { startRevision: 1, signal: new AbortController().signal })) break;
    }, EtcdUnavailableError);
  });

  test('a watch on a paused etcd ends with an error after the keepalive probe fails', async () => {
    const etcd = await startEtcd();
    try {
      const kv = new EtcdKV({ endpoints: [etcd.clientURL], probeTimeoutMs: 300, watchKeepaliveMs: 200 });
      const ctl = new AbortController();
      const watching = (async () => {
        for await (const _ of kv.watch('/registry/', { startRevision: 1, signal: ctl.signal }))
          assert.fail('no events');
      })().then(
        () => assert.fail('the watch ended without an error'),
        (err: unknown) => err,
      );
      await new Promise((r) => setTimeout(r, 300));
      etcd.pause();
      // SIGSTOP reaches every thread of etcd asynchronously: let it land before the next request.
      await new Promise((r) => setTimeout(r, 100));
      const err = await watching;
      assert.ok(err instanceof EtcdUnavailableError, String(err));
      assert.match(String(err), /timed out after 0.3s/);
      etcd.resume();
      await kv.close();
    } finally {
      await etcd.stop();
    }
  });

  test('a paused etcd times out instead of hanging; a watch on an etcd that dies throws', async () => {
    const etcd = await startEtcd();
    try {
      const kv = new EtcdKV({ endpoints: [etcd.clientURL], requestTimeoutMs: 500, probeTimeoutMs: 300 });
      await kv.create('/registry/a', enc('x'));
      const ctl = new AbortController();
      const watching = (async () => {
        for await (const _ of kv.watch('/registry/', { startRevision: 1, signal: ctl.signal })) {
          // the create
        }
      })().then(
        () => assert.fail('the watch ended without an error'),
        (err: unknown) => err,
      );
      await new Promise((r) => setTimeout(r, 200));
      etcd.pause();
      // SIGSTOP reaches every thread of etcd asynchronously: let it land before the next request.
      await new Promise((r) => setTimeout(r, 100));
      const t0 = Date.now();
      await assert.rejects(kv.get('/registry/a'), /timed out after 0.5s/);
      await assert.rejects(kv.readinessCheck(), /timed out after 0.3s/);
      assert.ok(Date.now() - t0 < 5000);
      etcd.resume();
      await etcd.kill();
      const err = await watching;
      assert.ok(err instanceof EtcdUnavailableError, String(err));
      ctl.abort();
      await kv.close();
    } finally {
      await etcd.stop();
    }
  });
});
