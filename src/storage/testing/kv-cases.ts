// KV-level conformance cases: what every engine behind src/storage/kv.ts must do, as etcd does it.
// Runtime-agnostic ({ name, run(kv) } over the assert helper of ./assert.ts), so the same list runs
// on Node, Bun, Deno and inside a Durable Object. Each case works under its own key prefix, so the
// cases may share one engine; the compaction cases compact the whole engine, so run cases one by one.

import { CompactedError, FutureRevisionError, type KV, type WatchEvent, type WatchResponse } from '../kv.ts';
import { deepEq, equal, fail, ok, rejects, uniquePrefix, within, type Case } from './assert.ts';

export type KVCase = Case<KV>;

const enc = new TextEncoder();
const dec = new TextDecoder();
const b = (s: string) => enc.encode(s);
const s = (u: Uint8Array | undefined) => (u ? dec.decode(u) : undefined);

const isCompacted = (e: unknown) => e instanceof CompactedError || (e as Error)?.name === 'CompactedError';
const isFuture = (e: unknown) => e instanceof FutureRevisionError || (e as Error)?.name === 'FutureRevisionError';

/** Collects a watch's responses in the background. */
export class WatchCollector {
  readonly responses: WatchResponse[] = [];
  error?: unknown;
  ended = false;
  private readonly ac = new AbortController();
  private waiters: (() => void)[] = [];
  private readonly loop: Promise<void>;

  constructor(kv: KV, prefix: string, startRevision: number, progressNotify = false) {
    const it = kv.watch(prefix, { startRevision, progressNotify, signal: this.ac.signal });
    this.loop = (async () => {
      try {
        for await (const r of it) {
          this.responses.push(r);
          this.notify();
        }
      } catch (err) {
        this.error = err;
      } finally {
        this.ended = true;
        this.notify();
      }
    })();
  }

  get events(): WatchEvent[] {
    return this.responses.flatMap((r) => r.events);
  }

  private notify(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  /** Waits until `cond` holds (checked after every response), failing after `ms`. */
  async until(cond: () => boolean, what: string, ms = 5000): Promise<void> {
    const check = async () => {
      while (!cond()) {
        if (this.ended) fail(`watch ended (${String(this.error)}) before ${what}`);
        await new Promise<void>((r) => this.waiters.push(r));
      }
    };
    await within(check(), ms, what);
  }

  async waitEvents(n: number, ms = 5000): Promise<WatchEvent[]> {
    await this.until(() => this.events.length >= n, `${n} watch events (got ${this.events.length})`, ms);
    return this.events;
  }

  async stop(): Promise<void> {
    this.ac.abort();
    await this.loop;
  }
}

async function put(kv: KV, key: string, value: string): Promise<number> {
  const cur = await kv.get(key);
  const r = cur.kv ? await kv.update(key, b(value), cur.kv.modRevision) : await kv.create(key, b(value));
  ok(r.succeeded, `write of ${key} succeeded`);
  return r.revision;
}

/** A case under its own key prefix (see uniquePrefix). */
function kvCase(name: string, fn: (kv: KV, prefix: string) => Promise<void>): KVCase {
  return { name, run: (kv) => fn(kv, uniquePrefix(name)) };
}

export const kvCases: KVCase[] = [
  kvCase('revisions start at 1 or above and increase with every write', async (kv, p) => {
    const r0 = await kv.currentRevision();
    ok(r0 >= 1, `current revision ${r0} ≥ 1`);
    const c = await kv.create(p + 'a', b('1'));
    ok(c.succeeded);
    ok(c.revision > r0, 'create bumps the revision');
    equal(await kv.currentRevision(), c.revision, 'current revision after the create');
    const u = await kv.update(p + 'a', b('2'), c.revision);
    ok(u.succeeded);
    ok(u.revision > c.revision, 'update bumps the revision');
  }),
  kvCase('create: succeeds once, then fails with the current kv', async (kv, p) => {
    const c = await kv.create(p + 'a', b('one'));
    ok(c.succeeded, 'first create');
    equal(c.succeeded && c.prevKv, undefined, 'no prevKv on create');
    const again = await kv.create(p + 'a', b('two'));
    equal(again.succeeded, false, 'second create fails');
    ok(!again.succeeded && again.kv, 'the current kv comes back');
    if (!again.succeeded) {
      equal(s(again.kv!.value), 'one');
      equal(again.kv!.modRevision, c.revision);
      equal(again.kv!.createRevision, c.revision);
      equal(again.kv!.key, p + 'a');
      ok(again.revision >= c.revision, 'failure carries the current revision');
    }
    const g = await kv.get(p + 'a');
    equal(s(g.kv?.value), 'one', 'value unchanged');
  }),
  kvCase('update: compares modRevision, returns prevKv, keeps createRevision', async (kv, p) => {
    const c = await kv.create(p + 'a', b('v1'));
    const u = await kv.update(p + 'a', b('v2'), c.revision);
    ok(u.succeeded, 'update at the current revision');
    if (u.succeeded) {
      equal(s(u.prevKv?.value), 'v1', 'prevKv value');
      equal(u.prevKv?.modRevision, c.revision, 'prevKv modRevision');
    }
    const stale = await kv.update(p + 'a', b('v3'), c.revision);
    equal(stale.succeeded, false, 'stale update fails');
    if (!stale.succeeded) {
      equal(s(stale.kv?.value), 'v2', 'failure returns the current value');
      equal(stale.kv?.modRevision, u.revision);
    }
    const g = await kv.get(p + 'a');
    equal(s(g.kv?.value), 'v2');
    equal(g.kv?.createRevision, c.revision, 'createRevision survives updates');
    equal(g.kv?.modRevision, u.revision);
    const missing = await kv.update(p + 'missing', b('x'), 5);
    equal(missing.succeeded, false, 'update of a missing key with a non-zero expected revision fails');
    equal(!missing.succeeded && missing.kv, undefined, 'no kv for a missing key');
  }),
  kvCase('update with expected revision 0 creates a missing key', async (kv, p) => {
    const u = await kv.update(p + 'a', b('x'), 0);
    ok(u.succeeded, 'OptimisticPut with 0 on a missing key');
    const g = await kv.get(p + 'a');
    equal(s(g.kv?.value), 'x');
    equal(g.kv?.createRevision, u.revision);
    const again = await kv.update(p + 'a', b('y'), 0);
    equal(again.succeeded, false, 'OptimisticPut with 0 on an existing key fails');
  }),
  kvCase('delete: compares modRevision, returns prevKv, then the key is gone', async (kv, p) => {
    const c = await kv.create(p + 'a', b('v1'));
    const u = await kv.update(p + 'a', b('v2'), c.revision);
    const stale = await kv.delete(p + 'a', c.revision);
    equal(stale.succeeded, false, 'stale delete fails');
    if (!stale.succeeded) equal(s(stale.kv?.value), 'v2', 'failure returns the current value');
    const d = await kv.delete(p + 'a', u.revision);
    ok(d.succeeded, 'delete at the current revision');
    if (d.succeeded) {
      equal(s(d.prevKv?.value), 'v2', 'prevKv');
      ok(d.revision > u.revision, 'delete bumps the revision');
    }
    const g = await kv.get(p + 'a');
    equal(g.kv, undefined, 'key gone');
    const gone = await kv.delete(p + 'a', u.revision);
    equal(gone.succeeded, false, 'delete of a missing key with a non-zero expected revision fails');
    equal(!gone.succeeded && gone.kv, undefined, 'no kv for a missing key');
    const c2 = await kv.create(p + 'a', b('again'));
    ok(c2.succeeded, 'create after delete');
    const g2 = await kv.get(p + 'a');
    equal(g2.kv?.createRevision, c2.revision, 'a recreated key has a new createRevision');
  }),
  kvCase('get: missing key, current revision in the result, at a past revision', async (kv, p) => {
    const none = await kv.get(p + 'missing');
    equal(none.kv, undefined);
    ok(none.revision >= 1, 'revision on a miss');
    const r1 = await put(kv, p + 'a', 'one');
    const r2 = await put(kv, p + 'a', 'two');
    const cur = await kv.get(p + 'a');
    equal(s(cur.kv?.value), 'two');
    equal(cur.revision, await kv.currentRevision(), 'result revision is the current revision');
    const old = await kv.get(p + 'a', { revision: r1 });
    equal(s(old.kv?.value), 'one', 'value at r1');
    equal(old.kv?.modRevision, r1);
    const before = await kv.get(p + 'a', { revision: r1 - 1 });
    equal(before.kv, undefined, 'absent before its create');
    const d = await kv.delete(p + 'a', r2);
    ok(d.succeeded);
    const atR2 = await kv.get(p + 'a', { revision: r2 });
    equal(s(atR2.kv?.value), 'two', 'readable at r2 after its delete');
  }),
  kvCase('list: prefix only, byte order, count, limit, startKey', async (kv, p) => {
    for (const k of ['c', 'a', 'e', 'b', 'd']) await put(kv, p + 'ns/' + k, k);
    await put(kv, p + 'ns2/z', 'outside');
    await put(kv, p.slice(0, -1) + 'x', 'outside the prefix');
    const all = await kv.list(p + 'ns/');
    deepEq(
      all.kvs.map((x) => x.key.slice(p.length)),
      ['ns/a', 'ns/b', 'ns/c', 'ns/d', 'ns/e'],
    );
    equal(all.count, 5);
    equal(all.revision, await kv.currentRevision(), 'list revision is the current one');
    const page = await kv.list(p + 'ns/', { limit: 2 });
    deepEq(
      page.kvs.map((x) => s(x.value)),
      ['a', 'b'],
    );
    equal(page.count, 5, 'count covers the whole range');
    const next = await kv.list(p + 'ns/', { limit: 2, startKey: p + 'ns/b\x00' });
    deepEq(
      next.kvs.map((x) => s(x.value)),
      ['c', 'd'],
    );
    equal(next.count, 3, 'count from startKey to the prefix end');
    const last = await kv.list(p + 'ns/', { limit: 2, startKey: p + 'ns/d\x00' });
    deepEq(
      last.kvs.map((x) => s(x.value)),
      ['e'],
    );
    equal(last.count, 1);
    const whole = await kv.list(p);
    equal(whole.count, 6, 'the prefix with a trailing slash excludes its sibling');
    const cnt = await kv.count(p + 'ns/');
    equal(cnt.count, 5, 'count()');
    ok(cnt.revision >= all.revision);
    const empty = await kv.list(p + 'nothing/');
    deepEq(empty.kvs, []);
    equal(empty.count, 0);
  }),
  kvCase('list at a past revision sees that revision only', async (kv, p) => {
    await put(kv, p + 'a', 'a1');
    const r = await put(kv, p + 'b', 'b1');
    await put(kv, p + 'a', 'a2');
    await put(kv, p + 'c', 'c1');
    const cur = await kv.get(p + 'b');
    ok(cur.kv);
    await kv.delete(p + 'b', cur.kv.modRevision);
    const at = await kv.list(p, { revision: r });
    equal(at.revision, r, 'the list revision is the requested one');
    deepEq(
      at.kvs.map((x) => `${x.key.slice(p.length)}=${s(x.value)}`),
      ['a=a1', 'b=b1'],
    );
    equal(at.count, 2);
    const paged = await kv.list(p, { revision: r, limit: 1, startKey: p + 'a\x00' });
    deepEq(
      paged.kvs.map((x) => s(x.value)),
      ['b1'],
      'paging at a past revision',
    );
    const now = await kv.list(p);
    deepEq(
      now.kvs.map((x) => `${x.key.slice(p.length)}=${s(x.value)}`),
      ['a=a2', 'c=c1'],
    );
  }),
  kvCase('future revision: get and list reject with FutureRevisionError', async (kv, p) => {
    await put(kv, p + 'a', 'x');
    const cur = await kv.currentRevision();
    const e = await rejects<FutureRevisionError>(() => kv.get(p + 'a', { revision: cur + 100 }), isFuture, 'get');
    ok(e.currentRevision >= cur, 'error carries the current revision');
    await rejects(() => kv.list(p, { revision: cur + 100 }), isFuture, 'list');
  }),
  kvCase('compaction: reads and watches below the compacted revision fail with CompactedError', async (kv, p) => {
    const r1 = await put(kv, p + 'a', 'a1');
    const r2 = await put(kv, p + 'a', 'a2');
    const r3 = await put(kv, p + 'b', 'b1');
    await kv.compact(r2);
    ok(kv.compactRevision() >= r2, 'compactRevision() reports it');
    const e = await rejects<CompactedError>(() => kv.get(p + 'a', { revision: r1 }), isCompacted, 'get');
    ok(e.compactRevision >= r2, 'error carries the compacted revision');
    await rejects(() => kv.list(p, { revision: r1 }), isCompacted, 'list');
    const w = new WatchCollector(kv, p, r1);
    await within(
      (async () => {
        while (!w.ended) await new Promise((r) => setTimeout(r, 5));
      })(),
      5000,
      'the compacted watch to end',
    );
    ok(isCompacted(w.error), `watch from a compacted revision throws CompactedError (got ${String(w.error)})`);
    equal(w.events.length, 0, 'no events from a compacted watch');
    // The latest state is intact, and so is history above the compacted revision.
    const at3 = await kv.list(p, { revision: r3 });
    deepEq(
      at3.kvs.map((x) => s(x.value)),
      ['a2', 'b1'],
    );
    const latest = await kv.get(p + 'a');
    equal(s(latest.kv?.value), 'a2');
    const w2 = new WatchCollector(kv, p, r3);
    const evs = await w2.waitEvents(1);
    equal(s(evs[0]!.kv.value), 'b1', 'a watch above the compacted revision replays');
    await w2.stop();
    await w.stop();
  }),
  kvCase('compaction keeps deleted keys deleted and live keys readable', async (kv, p) => {
    await put(kv, p + 'gone', 'x');
    const g = await kv.get(p + 'gone');
    await kv.delete(p + 'gone', g.kv!.modRevision);
    await put(kv, p + 'kept', 'y');
    await kv.compact(await kv.currentRevision());
    equal((await kv.get(p + 'gone')).kv, undefined, 'deleted key stays deleted');
    equal(s((await kv.get(p + 'kept')).kv?.value), 'y');
    const l = await kv.list(p);
    deepEq(
      l.kvs.map((x) => x.key.slice(p.length)),
      ['kept'],
    );
    const c = await kv.create(p + 'gone', b('new'));
    ok(c.succeeded, 'a compacted-away key can be created again');
  }),
  kvCase('watch from a past revision replays every event in order with prevKv', async (kv, p) => {
    const r1 = await put(kv, p + 'a', 'a1');
    await put(kv, p + 'a', 'a2');
    const g = await kv.get(p + 'a');
    await kv.delete(p + 'a', g.kv!.modRevision);
    await put(kv, p.slice(0, -1) + '-sibling', 'not mine');
    const w = new WatchCollector(kv, p, r1);
    const evs = await w.waitEvents(3);
    await w.stop();
    deepEq(
      evs.map((e) => [e.type, e.kv.key.slice(p.length), s(e.prevKv?.value) ?? null]),
      [
        ['PUT', 'a', null],
        ['PUT', 'a', 'a1'],
        ['DELETE', 'a', 'a2'],
      ],
    );
    equal(s(evs[0]!.kv.value), 'a1');
    equal(evs[0]!.kv.modRevision, r1);
    equal(evs[0]!.kv.createRevision, r1);
    ok(evs[1]!.kv.modRevision > r1 && evs[2]!.kv.modRevision > evs[1]!.kv.modRevision, 'revisions increase');
    equal(evs[1]!.prevKv?.modRevision, r1, 'prevKv modRevision');
    equal(evs.length, 3, 'nothing outside the prefix');
  }),
  kvCase(
    'watch from the next revision delivers only new events; from a middle revision skips older ones',
    async (kv, p) => {
      await put(kv, p + 'a', 'old');
      const r2 = await put(kv, p + 'b', 'mid');
      const now = await kv.currentRevision();
      const live = new WatchCollector(kv, p, now + 1);
      const mid = new WatchCollector(kv, p, r2);
      const r3 = await put(kv, p + 'c', 'new');
      const evs = await live.waitEvents(1);
      equal(s(evs[0]!.kv.value), 'new');
      equal(evs[0]!.kv.modRevision, r3);
      const mids = await mid.waitEvents(2);
      deepEq(
        mids.map((e) => s(e.kv.value)),
        ['mid', 'new'],
      );
      await put(kv, p + 'd', 'later');
      await live.waitEvents(2);
      deepEq(
        live.events.map((e) => s(e.kv.value)),
        ['new', 'later'],
      );
      await live.stop();
      await mid.stop();
      equal(live.error, undefined, 'stopping a watch is not an error');
    },
  ),
  kvCase('watch from a future revision waits for it', async (kv, p) => {
    const now = await kv.currentRevision();
    const w = new WatchCollector(kv, p, now + 3);
    await put(kv, p + 'a', '1');
    await put(kv, p + 'a', '2');
    const r = await put(kv, p + 'a', '3');
    await put(kv, p + 'a', '4');
    const evs = await w.waitEvents(1);
    ok(evs[0]!.kv.modRevision >= now + 3, 'nothing before the start revision');
    ok(evs.every((e) => e.kv.modRevision >= now + 3));
    if (r === now + 3) equal(s(evs[0]!.kv.value), '3');
    await w.stop();
  }),
  kvCase('watch: a stopped watch ends its iterator and frees the engine', async (kv, p) => {
    const ac = new AbortController();
    const it = kv.watch(p, { startRevision: (await kv.currentRevision()) + 1, signal: ac.signal });
    const iter = it[Symbol.asyncIterator]();
    const next = iter.next();
    ac.abort();
    const r = await within(next, 5000, 'the aborted watch to end');
    equal(r.done, true, 'iterator done after abort');
    await put(kv, p + 'a', 'x');
  }),
  kvCase('watch: progress notifications carry the current revision when idle', async (kv, p) => {
    const start = (await kv.currentRevision()) + 1;
    const w = new WatchCollector(kv, p, start, true);
    // A write elsewhere moves the revision; the watcher learns it from a progress notification.
    const other = uniquePrefix('progress-other');
    const r = await put(kv, other + 'x', 'y');
    await w.until(
      () => w.responses.some((x) => x.events.length === 0 && x.revision >= r),
      `a progress notification at ≥ ${r}`,
      20000,
    );
    equal(w.events.length, 0, 'no events for foreign keys');
    await w.stop();
  }),
  kvCase('concurrent writers: one winner per revision, watch order equals revision order', async (kv, p) => {
    const start = (await kv.currentRevision()) + 1;
    const w = new WatchCollector(kv, p, start);
    const c = await kv.create(p + 'counter', b('0'));
    ok(c.succeeded);
    const writers = 10;
    const perWriter = 5;
    const inc = async () => {
      for (let done = 0; done < perWriter;) {
        const g = await kv.get(p + 'counter');
        const n = Number(s(g.kv!.value));
        const u = await kv.update(p + 'counter', b(String(n + 1)), g.kv!.modRevision);
        if (u.succeeded) done++;
      }
    };
    const creates = Array.from({ length: 20 }, (_, i) => kv.create(p + `k${String(i).padStart(2, '0')}`, b('x')));
    const results = await Promise.all([...Array.from({ length: writers }, inc), ...creates]);
    ok(results.length === writers + 20);
    const g = await kv.get(p + 'counter');
    equal(s(g.kv?.value), String(writers * perWriter), 'no lost update');
    const total = 1 + writers * perWriter + 20;
    const evs = await w.waitEvents(total, 10000);
    equal(evs.length, total, 'one event per successful write');
    for (let i = 1; i < evs.length; i++) {
      ok(evs[i]!.kv.modRevision > evs[i - 1]!.kv.modRevision, `event ${i} after event ${i - 1}`);
    }
    const counterValues = evs.filter((e) => e.kv.key === p + 'counter').map((e) => Number(s(e.kv.value)));
    deepEq(
      counterValues,
      Array.from({ length: writers * perWriter + 1 }, (_, i) => i),
      'counter values in order',
    );
    const list = await kv.list(p);
    equal(list.count, 21);
    await w.stop();
  }),
  kvCase('values are bytes: binary and large values round-trip', async (kv, p) => {
    const bin = new Uint8Array(256).map((_, i) => i);
    await kv.create(p + 'bin', bin);
    deepEq((await kv.get(p + 'bin')).kv?.value, bin, 'binary value');
    const big = new Uint8Array(1_400_000).fill(0x61);
    const c = await kv.create(p + 'big', big);
    ok(c.succeeded, 'a 1.4 MB value');
    equal((await kv.get(p + 'big')).kv?.value.length, big.length);
  }),
  kvCase('TTL: a key with a lease expires and its delete is watched', async (kv, p) => {
    const start = (await kv.currentRevision()) + 1;
    const w = new WatchCollector(kv, p, start);
    const c = await kv.create(p + 'leased', b('x'), { ttlSeconds: 1 });
    ok(c.succeeded);
    const g = await kv.get(p + 'leased');
    equal(s(g.kv?.value), 'x', 'readable before expiry');
    const evs = await w.waitEvents(2, 10000);
    equal(evs[1]!.type, 'DELETE', 'expiry is a delete event');
    equal((await kv.get(p + 'leased')).kv, undefined, 'gone after expiry');
    await w.stop();
  }),
  kvCase('readiness check resolves on an open engine', async (kv) => {
    await kv.readinessCheck();
  }),
];
