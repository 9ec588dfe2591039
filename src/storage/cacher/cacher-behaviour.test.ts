// Watch-cache behaviour beyond the shared conformance suite: the event ring, bookmarks, delegation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryKV } from '../memory/kv.ts';
import { Store } from '../store.ts';
import { Cacher } from './cacher.ts';
import { SelectionPredicate, type Interface, type StorageObject, type WatchEvent } from '../interfaces.ts';

const gr = { group: '', resource: 'configmaps' };
const newFunc = () => ({ apiVersion: 'v1', kind: 'ConfigMap' });
const cm = (name: string, data: Record<string, string> = {}): StorageObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'ns' },
  data,
});

async function setup(
  cfg: Partial<ConstructorParameters<typeof Cacher>[0]> = {},
  kv = new MemoryKV({ progressNotifyIntervalMs: 100 }),
) {
  const store = new Store({ kv, pathPrefix: '/registry', resourcePrefix: '/configmaps', groupResource: gr, newFunc });
  const calls: string[] = [];
  // Counts what reaches storage, to see which reads the cache serves itself.
  const spied: Interface = new Proxy(store, {
    get(target, prop, recv) {
      const v = Reflect.get(target, prop, recv);
      if (typeof v !== 'function') return v;
      return (...args: unknown[]) => {
        calls.push(String(prop));
        return v.apply(target, args);
      };
    },
  });
  const cacher = new Cacher({ storage: spied, resourcePrefix: '/configmaps', groupResource: gr, newFunc, ...cfg });
  await cacher.waitReady();
  return { kv, store, cacher, calls, close: async () => (cacher.stop(), await kv.close()) };
}

async function collect(w: AsyncIterable<WatchEvent>, n: number, ms = 3000): Promise<WatchEvent[]> {
  const out: WatchEvent[] = [];
  const deadline = setTimeout(() => {}, ms);
  try {
    for await (const e of w) {
      out.push(e);
      if (out.length >= n) break;
    }
  } finally {
    clearTimeout(deadline);
  }
  return out;
}

test('watch cache: a resourceVersion older than the ring → ERROR 410 "too old resource version: X (Y)"', async () => {
  const { cacher, close } = await setup({ minEvents: 5, maxEvents: 5, eventFreshDurationMs: 0 });
  try {
    const first = await cacher.create('/configmaps/ns/a', cm('a'));
    for (let i = 0; i < 10; i++) {
      await cacher.guaranteedUpdate('/configmaps/ns/a', false, undefined, (o) => ({
        object: { ...o, data: { i: String(i) } },
      }));
    }
    await new Promise((r) => setTimeout(r, 50));
    const w = await cacher.watch('/configmaps', {
      recursive: true,
      resourceVersion: String(first.metadata!.resourceVersion),
    });
    const evs = await collect(w, 2);
    assert.equal(evs.length, 1, 'one ERROR event, then the end');
    assert.equal(evs[0]!.type, 'ERROR');
    const st = evs[0]!.object as Record<string, unknown>;
    assert.equal(st.code, 410);
    assert.equal(st.reason, 'Expired');
    assert.match(String(st.message), /^too old resource version: \d+ \(\d+\)$/);
    // A watch from within the ring is served.
    const cur = Number((await cacher.get('/configmaps/ns/a', { resourceVersion: '0' }))!.metadata!.resourceVersion);
    const w2 = await cacher.watch('/configmaps', { recursive: true, resourceVersion: String(cur - 2) });
    const evs2 = await collect(w2, 2);
    assert.deepEqual(
      evs2.map((e) => e.type),
      ['MODIFIED', 'MODIFIED'],
    );
    w2.stop();
  } finally {
    await close();
  }
});

test('watch cache: bookmarks only to watchers that asked, at the cache revision', async () => {
  const { cacher, close } = await setup({ bookmarkIntervalMs: 100 });
  try {
    const a = await cacher.create('/configmaps/ns/a', cm('a'));
    const rv = String(a.metadata!.resourceVersion);
    await new Promise((r) => setTimeout(r, 30));
    const asked = await cacher.watch('/configmaps', {
      recursive: true,
      resourceVersion: rv,
      predicate: new SelectionPredicate({ allowWatchBookmarks: true }),
    });
    const silent = await cacher.watch('/configmaps', { recursive: true, resourceVersion: rv });
    const evs = await collect(asked, 1);
    assert.equal(evs[0]!.type, 'BOOKMARK');
    assert.deepEqual(evs[0]!.object, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { resourceVersion: rv } });
    const got: WatchEvent[] = [];
    void (async () => {
      for await (const e of silent) got.push(e);
    })();
    await new Promise((r) => setTimeout(r, 300));
    assert.deepEqual(got, [], 'no bookmarks without allowWatchBookmarks');
    asked.stop();
    silent.stop();
  } finally {
    await close();
  }
});

test('watch cache: delegation — RV "0" and NotOlderThan from the cache; Exact, continue and limit+RV to storage', async () => {
  const { cacher, calls, close } = await setup();
  try {
    for (const n of ['a', 'b', 'c']) await cacher.create(`/configmaps/ns/${n}`, cm(n));
    await new Promise((r) => setTimeout(r, 30));
    calls.length = 0;
    const l0 = await cacher.getList('/configmaps', { recursive: true, resourceVersion: '0' });
    assert.equal(l0.items.length, 3);
    await cacher.getList('/configmaps', {
      recursive: true,
      resourceVersion: l0.resourceVersion,
      resourceVersionMatch: 'NotOlderThan',
    });
    await cacher.get('/configmaps/ns/a', { resourceVersion: '0' });
    assert.deepEqual(calls, [], 'served from the cache');
    // A consistent read asks storage for its revision, then serves from the cache.
    const consistent = await cacher.getList('/configmaps', { recursive: true });
    assert.deepEqual(calls, ['getCurrentResourceVersion']);
    assert.equal(consistent.items.length, 3);
    calls.length = 0;
    await cacher.getList('/configmaps', {
      recursive: true,
      resourceVersion: l0.resourceVersion,
      resourceVersionMatch: 'Exact',
    });
    await cacher.getList('/configmaps', {
      recursive: true,
      resourceVersion: l0.resourceVersion,
      predicate: new SelectionPredicate({ limit: 1 }),
    });
    assert.deepEqual(calls, ['getList', 'getList'], 'exact reads go to storage');
    // A page from the cache continues from storage at the cache's revision.
    calls.length = 0;
    const p1 = await cacher.getList('/configmaps', {
      recursive: true,
      resourceVersion: '0',
      predicate: new SelectionPredicate({ limit: 2 }),
    });
    assert.deepEqual(
      p1.items.map((i) => i.metadata!.name),
      ['a', 'b'],
    );
    assert.equal(p1.remainingItemCount, 1);
    const p2 = await cacher.getList('/configmaps', {
      recursive: true,
      predicate: new SelectionPredicate({ limit: 2, continue: p1.continue }),
    });
    assert.deepEqual(
      p2.items.map((i) => i.metadata!.name),
      ['c'],
    );
    assert.equal(p2.resourceVersion, p1.resourceVersion);
    assert.deepEqual(calls, ['getList']);
  } finally {
    await close();
  }
});

test('watch cache: a read newer than the cache waits for it, then 504 when it never comes', async () => {
  const { cacher, close } = await setup({ freshnessTimeoutMs: 200 });
  try {
    const a = await cacher.create('/configmaps/ns/a', cm('a'));
    const got = await cacher.get('/configmaps/ns/a', { resourceVersion: a.metadata!.resourceVersion });
    assert.equal(got!.metadata!.resourceVersion, a.metadata!.resourceVersion, 'waited for its own write');
    await assert.rejects(
      cacher.getList('/configmaps', {
        recursive: true,
        resourceVersion: '999999',
        resourceVersionMatch: 'NotOlderThan',
      }),
      (e: { status?: { code?: number; message?: string } }) =>
        e.status?.code === 504 &&
        /^Timeout: Too large resource version: 999999, current: \d+$/.test(e.status.message ?? ''),
    );
  } finally {
    await close();
  }
});

// A first list larger than one call's arguments (V8: ~125k): the cache fills and serves it.
test('watch cache: a first list of 150,000 objects', { timeout: 60_000 }, async () => {
  const kv = new MemoryKV();
  const enc = new TextEncoder();
  for (let i = 0; i < 150_000; i++)
    await kv.create(`/registry/configmaps/ns/cm-${i}`, enc.encode(JSON.stringify(cm(`cm-${i}`))));
  const { cacher, close } = await setup({}, kv);
  try {
    const list = await cacher.getList('/configmaps/ns', { recursive: true, resourceVersion: '0' });
    assert.equal(list.items.length, 150_000);
    assert.deepEqual(
      list.items.slice(0, 3).map((o) => o.metadata!.name),
      ['cm-0', 'cm-1', 'cm-10'],
    );
  } finally {
    await close();
  }
});
