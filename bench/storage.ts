// Storage benchmark (not part of npm test): storage.Interface against the raw engine in the same run.
//   node bench/storage.ts                 memory and node:sqlite
//   BENCH_ENGINES=memory node bench/storage.ts
//   BENCH_N (operations per phase, 3000), BENCH_WATCH_EVENTS (2000), BENCH_RSS_OBJECTS (100000; 0 skips)
// Reports creates/s, updates/s, gets/s and a 1,000-object list through the Store (and the watch cache)
// vs the engine's own KV calls; watch delivery latency p50/p99 from write to event (store and watch
// cache); RSS of a watch cache holding BENCH_RSS_OBJECTS objects of 1 KiB.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import { join } from 'node:path';
import { MemoryKV } from '../src/storage/memory/kv.ts';
import type { KV } from '../src/storage/kv.ts';
import { Store } from '../src/storage/store.ts';
import { Cacher } from '../src/storage/cacher/cacher.ts';
import { SelectionPredicate, type Interface, type StorageObject } from '../src/storage/interfaces.ts';
import { openSQLiteKV } from '../adapters/node/sqlite.ts';

const N = Number(process.env.BENCH_N ?? 3000);
const WATCH_EVENTS = Number(process.env.BENCH_WATCH_EVENTS ?? 2000);
const RSS_OBJECTS = Number(process.env.BENCH_RSS_OBJECTS ?? 100_000);
const engines = (process.env.BENCH_ENGINES ?? 'memory,sqlite').split(',');
const gr = { group: '', resource: 'configmaps' };
const enc = new TextEncoder();
const dir = mkdtempSync(join(tmpdir(), 'bench-storage-'));

const payload = 'x'.repeat(700);
const cm = (i: number): StorageObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: `cm-${String(i).padStart(6, '0')}`, namespace: 'bench', uid: `uid-${i}`, labels: { app: 'bench' } },
  data: { payload, i: String(i) },
});
const bytes = (o: StorageObject) => enc.encode(JSON.stringify(o));

function open(engine: string, name: string): KV {
  if (engine === 'memory') return new MemoryKV();
  return openSQLiteKV(join(dir, `${name}.db`), {});
}

async function rate(n: number, fn: (i: number) => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await fn(i);
  return (n / (performance.now() - t0)) * 1000;
}

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

const fmt = (x: number) => (x >= 100 ? Math.round(x).toLocaleString('en-US') : x.toFixed(2));

async function throughput(engine: string, round: number): Promise<void> {
  const rawKV = open(engine, `raw-${round}`);
  const ifKV = open(engine, `iface-${round}`);
  const store = new Store({ kv: ifKV, pathPrefix: '/registry', resourcePrefix: '/configmaps', groupResource: gr });
  const key = (i: number) => `/registry/configmaps/bench/cm-${String(i).padStart(6, '0')}`;
  const skey = (i: number) => `/configmaps/bench/cm-${String(i).padStart(6, '0')}`;
  const revs: number[] = [];
  const rows: [string, number, number][] = [];
  // Raw: what the store does at minimum (encode + engine call).
  const rawCreate = await rate(N, async (i) => {
    const r = await rawKV.create(key(i), bytes(cm(i)));
    revs[i] = r.revision;
  });
  const ifCreate = await rate(N, (i) => store.create(skey(i), cm(i)));
  rows.push(['creates/s', rawCreate, ifCreate]);
  const rawUpdate = await rate(N, async (i) => {
    const g = await rawKV.get(key(i));
    const o = JSON.parse(new TextDecoder().decode(g.kv!.value));
    o.data.i = 'u' + i;
    await rawKV.update(key(i), bytes(o), g.kv!.modRevision);
  });
  const ifUpdate = await rate(N, (i) =>
    store.guaranteedUpdate(skey(i), false, undefined, (o) => ({
      object: { ...o, data: { ...(o.data as object), i: 'u' + i } },
    })),
  );
  rows.push(['updates/s (read-modify-write)', rawUpdate, ifUpdate]);
  const rawGet = await rate(N, async (i) => JSON.parse(new TextDecoder().decode((await rawKV.get(key(i))).kv!.value)));
  const ifGet = await rate(N, async (i) => store.get(skey(i)));
  rows.push(['gets/s (decoded)', rawGet, ifGet]);
  const LISTS = 30;
  const rawList = await rate(LISTS, async () => {
    const l = await rawKV.list('/registry/configmaps/bench/', { limit: 1000 });
    l.kvs.map((kv) => JSON.parse(new TextDecoder().decode(kv.value)));
  });
  const ifList = await rate(LISTS, () =>
    store.getList('/configmaps/bench', { recursive: true, predicate: new SelectionPredicate({ limit: 1000 }) }),
  );
  rows.push(['1,000-object lists/s', rawList, ifList]);
  const cacher = new Cacher({ storage: store, resourcePrefix: '/configmaps', groupResource: gr });
  await cacher.waitReady();
  const cacheList = await rate(LISTS, () =>
    cacher.getList('/configmaps/bench', {
      recursive: true,
      resourceVersion: '0',
      predicate: new SelectionPredicate({ limit: 1000 }),
    }),
  );
  cacher.stop();
  await rawKV.close();
  await ifKV.close();
  // The first round warms the JIT for both sides; only the second is reported.
  if (round === 0) return;
  console.log(`\n${engine}: ${N} objects of ~1 KiB`);
  console.log('| operation | raw engine | storage.Interface | interface ÷ raw |');
  console.log('| --- | ---: | ---: | ---: |');
  for (const [name, raw, iface] of rows)
    console.log(`| ${name} | ${fmt(raw)} | ${fmt(iface)} | ${(iface / raw).toFixed(2)} |`);
  console.log(
    `| 1,000-object lists/s from the watch cache (RV=0) | | ${fmt(cacheList)} | ${(cacheList / rawList).toFixed(2)} |`,
  );
}

async function watchLatency(engine: string): Promise<void> {
  const kv = open(engine, 'watch');
  const store = new Store({ kv, pathPrefix: '/registry', resourcePrefix: '/configmaps', groupResource: gr });
  const cacher = new Cacher({ storage: store, resourcePrefix: '/configmaps', groupResource: gr });
  await cacher.waitReady();
  for (const [name, s] of [
    ['store', store],
    ['watch cache', cacher],
  ] as [string, Interface][]) {
    const w = await s.watch('/configmaps', { recursive: true, sendInitialEvents: false });
    const it = w[Symbol.asyncIterator]();
    const lat: number[] = [];
    for (let i = 0; i < WATCH_EVENTS; i++) {
      const t0 = performance.now();
      await store.create(`/configmaps/w-${name.replace(' ', '')}/o-${i}`, {
        metadata: { name: `o-${i}`, namespace: 'w' },
        data: { payload },
      });
      for (;;) {
        const e = await it.next();
        if (e.value?.type === 'ADDED') break;
      }
      lat.push(performance.now() - t0);
    }
    w.stop();
    console.log(
      `${engine}: watch delivery through the ${name} (write → event, ${WATCH_EVENTS} events): p50 ${pct(lat, 50).toFixed(3)} ms, p99 ${pct(lat, 99).toFixed(3)} ms`,
    );
  }
  cacher.stop();
  await kv.close();
}

async function rss(): Promise<void> {
  if (!RSS_OBJECTS) return;
  const gc = (globalThis as { gc?: () => void }).gc;
  const kv = new MemoryKV();
  const value = 'y'.repeat(1024 - 160);
  for (let i = 0; i < RSS_OBJECTS; i++) {
    await kv.create(
      `/registry/configmaps/rss/o-${i}`,
      enc.encode(
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: `o-${i}`, namespace: 'rss' },
          data: { v: value },
        }),
      ),
    );
  }
  gc?.();
  await new Promise((r) => setTimeout(r, 100));
  const before = process.memoryUsage();
  const store = new Store({ kv, pathPrefix: '/registry', resourcePrefix: '/configmaps', groupResource: gr });
  const cacher = new Cacher({ storage: store, resourcePrefix: '/configmaps', groupResource: gr });
  await cacher.waitReady();
  gc?.();
  await new Promise((r) => setTimeout(r, 100));
  const after = process.memoryUsage();
  const mib = (x: number) => (x / 1024 / 1024).toFixed(0);
  console.log(
    `watch cache with ${RSS_OBJECTS.toLocaleString('en-US')} objects of 1 KiB: RSS +${mib(after.rss - before.rss)} MiB ` +
      `(heap +${mib(after.heapUsed - before.heapUsed)} MiB; process RSS ${mib(after.rss)} MiB incl. the memory engine's copy)`,
  );
  cacher.stop();
  await kv.close();
}

console.log(
  `load average ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}, Node ${process.version}`,
);
try {
  for (const e of engines) for (const round of [0, 1]) await throughput(e, round);
  for (const e of engines) await watchLatency(e);
  await rss();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log(
  `load average ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
);
